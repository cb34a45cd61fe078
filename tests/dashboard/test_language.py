"""No English in the zh-hans interface: every admin page a staff member can open (lists, change
and add forms, the overview, the evidence view and report, notices) is rendered in zh-hans and
its visible text searched for English words outside a short allow-list (URLs, e-mail
addresses, product and format names, the test data's own values)."""

import re
import zoneinfo
from html.parser import HTMLParser

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, reverse

# Words that are names or codes on purpose, not untranslated interface text.
ALLOWED = {
    "URL", "URLs", "HTTP", "HTTPS", "SHA", "PDF", "HTML", "CSV", "XLSX", "JSON", "API", "ID",
    "RSS", "Atom", "robots", "txt", "docx", "epub", "zip", "Jaccard", "WeCom", "Markdown",
    "Chen", "Guang", "XYJ", "pd", "demo", "staff", "holder", "a", "b", "IP", "SSRF", "UTC",
    "Bearer", "Token", "HMAC", "SMTP", "Django", "Celery", "Swagger", "Redoc", "APP",
    "Webhook", "markdown", "English", "Control", "Command", "Mac", "MB", "htm", "html",
    "xhtml", "pdf", "text", "HH", "MM", "Asia", "Chromium", "JavaScript", "ZIP", "LDAP", "WACZ",
}
# digests and their shortened forms, and UUIDs (a group of one may hold no digit: "badc")
HEX = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]*\d[0-9a-f]*")
URLISH = re.compile(r"(https?://\S+|\S+@\S+|\b[\w-]+(\.[\w-]+)+\b|/[\w/.-]*)")
WORD = re.compile(r"[A-Za-z]{2,}")


class VisibleText(HTMLParser):
    """The text a reader sees: text nodes outside script/style/code and outside multiple
    selects (Django's permission pickers list its own English permission names), plus title
    and placeholder attributes and button values."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style", "code", "pre") or (tag == "select" and "multiple" in attrs):
            self._skip += 1
        for name in ("title", "placeholder"):
            if attrs.get(name):
                self.parts.append(attrs[name])
        if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.parts.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code", "pre", "select") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def english_words(html: str, data_values: set[str]) -> set[str]:
    """English words in ``html``'s visible text that are neither allowed nor test data."""
    parser = VisibleText()
    parser.feed(html)
    # whole values only: a 2-character salt prefix such as "de" must not cut "demo" into "mo"
    listed = "|".join(re.escape(value) for value in sorted(data_values, key=len, reverse=True)
                      if value)
    values = re.compile(rf"(?<![A-Za-z0-9])(?:{listed})(?![A-Za-z0-9])")
    found = set()
    for part in parser.parts:
        part = values.sub(" ", part)
        for word in WORD.findall(URLISH.sub(" ", HEX.sub(" ", part))):
            if word not in ALLOWED:
                found.add(word)
    return found


def admin_pages(scenario, notice) -> list[str]:
    """URLs of every admin list, add form and change form (first object) a staff member may
    open, plus the overview, the evidence view and report, and "My settings"."""
    urls = ["/", f"/crawler/match/{scenario.matches[0].pk}/change/",
            f"/crawler/match/{scenario.matches[0].pk}/report/", "/settings/"]
    for model in admin.site._registry:
        meta = model._meta
        if meta.app_label in ("django_celery_beat", "axes"):
            continue
        try:
            urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
            urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
        except NoReverseMatch:
            continue
        first = model._default_manager.first()
        if first is not None:
            urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_change",
                                args=[first.pk]))
    return urls


def test_no_english_on_zh_hans_pages(scenario):
    from core import roles
    from crawler.models import ScanRun
    from crawler.review_actions import do_review_match
    from crawler.scan_actions import do_cancel_scan
    from dashboard.notice_actions import do_draft_notices

    do_review_match(scenario.matches[0], "confirmed", "整章转载，未获授权", scenario.users.staff)
    notice = do_draft_notices(scenario.matches[:1], scenario.users.staff)[0]
    running = ScanRun.objects.create(site=ScanRun.objects.first().site, trigger="admin")
    do_cancel_scan(running, scenario.users.staff)
    data = {scenario.novel.title, scenario.news.title, scenario.a.name, scenario.b.name,
            scenario.novel.reference, scenario.news.reference, scenario.article["title"],
            *(m.title for m in scenario.matches), "staff", "holder_a", "holder_b",
            roles.STAFF_GROUP, roles.HOLDER_GROUP,  # group names are data
            # the password hash summary on the user pages: algorithm, salt (2 characters shown)
            # and hash (6) prefixes
            *(part[:shown] for password in get_user_model().objects.values_list("password", flat=True)
              for part in password.split("$") for shown in (2, 6)),
            *zoneinfo.available_timezones()}  # IANA names, offered as they are on "My settings"
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(scenario.users.staff)
    leaks = {}
    for url in admin_pages(scenario, notice):
        response = client.get(url)
        if response.status_code in (302, 403):  # not offered to staff
            continue
        assert response.status_code == 200, url
        words = english_words(response.content.decode(), data)
        if words:
            leaks[url] = sorted(words)
    assert not leaks, leaks
