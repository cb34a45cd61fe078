"""What people read, in Chromium, in both languages: the case list's banner of sites without a
takedown contact, a failed notice e-mail in words (its technical text for staff only), a holder
offered the verify upload (no command to run), the overview's system apps apart under "System"
for staff, the median time to removal in minutes or hours below a day, the required reason of
a decision marked and named on error, the match list's chapter column, the language switch top
left, and "Scan now" opening the scan's progress. Screenshots go to test-artifacts/."""

from __future__ import annotations

import smtplib
import threading
from datetime import timedelta

import pytest

from .conftest import removed_after_notice

pytestmark = pytest.mark.browser

LANGUAGES = ["zh-hans", "en"]
WORDS = {
    "zh-hans": {"banner": "个有未结案件的网站没有删除通知联系人", "silent": "邮件服务器没有响应",
                "minutes": "7 分钟", "required": "此字段为必填项。", "system": "系统",
                "verify": "核验证据包", "chapter": "章节"},
    "en": {"banner": "sites with open cases have no takedown contact",
           "silent": "the mail server did not answer", "minutes": "7 minutes",
           "required": "This field is required.", "system": "System",
           "verify": "Verify a bundle", "chapter": "chapter"},
}


@pytest.fixture
def desk(open_page, browser_login):
    """Factory ``desk(language, user="staff") -> Page``: logged in as ``user``, 1366x900."""

    def make(language: str, user: str = "staff"):
        page = open_page(language)
        page.set_viewport_size({"width": 1366, "height": 900})
        browser_login(page, user)
        return page

    return make


@pytest.mark.parametrize("language", LANGUAGES)
def test_case_list_banner_in_the_readers_language(scenario_cases, desk,
                                                  screenshot, language):
    page = desk(language, "staff")
    page.goto("/crawler/case/")
    banner = page.locator("#dash-contacts-missing").inner_text()
    screenshot(page, f"words-case-list-{language}-1366")
    assert WORDS[language]["banner"] in banner, banner
    if language == "zh-hans":
        assert "site" not in banner


@pytest.fixture
def failed_mail(scenario_cases, scenario, settings):
    """The novel's case confirmed, its site's contact set, and its notice e-mail tried once
    against an SMTP port where nothing listens (connection refused): recorded as failed."""
    from crawler import case_actions, contacts
    from dashboard import notice_actions, tasks
    from lib.runtime import embedded

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", embedded.free_port()
    settings.NOTICE_MAIL_MAX_RETRIES = 0
    case = scenario_cases["novel"]
    case_actions.do_confirm_case(case, scenario.users.staff, "copies chapter 2")
    contacts.do_set_contact(case.domain, "legal@example.com", scenario.users.staff)
    mail, = notice_actions.do_send_case_notice(case, scenario.users.staff, "en")
    # in a thread: Playwright holds this thread's event loop
    worker = threading.Thread(target=lambda: tasks.send_notice_mail.apply(args=[mail.pk]))
    worker.start()
    worker.join()
    mail.refresh_from_db()
    assert mail.status == "failed" and "ConnectionRefusedError" in mail.error
    return case


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_failed_mail_in_words_and_its_detail_for_staff_only(failed_mail, desk, screenshot, language):
    for user, sees_detail in (("staff", True), ("holder_a", False)):
        page = desk(language, user)
        page.goto(f"/crawler/case/{failed_mail.pk}/change/")
        mails = page.locator("#dash-case-mails").inner_text()
        page.locator("#dash-case-send").screenshot(
            path=str(screenshot(page, f"words-mail-failed-{user}-{language}-1366")))
        assert WORDS[language]["silent"] in mails
        assert ("ConnectionRefusedError" in mails) is sees_detail, (user, mails)
        assert ("Errno" in page.locator("body").inner_text()) is sees_detail


def test_a_refused_server_and_a_missing_report_are_named_too():
    from django.utils import translation

    from dashboard.models import mail_error_detail, mail_error_words
    from dashboard.notice_mail import failure_note
    from dashboard.pdf import PdfUnavailableError

    with translation.override("en"):
        refused = failure_note(smtplib.SMTPRecipientsRefused({"a@b.example": (550, b"no such user")}))
        assert mail_error_words(refused) == "the mail server refused the e-mail"
        assert "550" in mail_error_detail(refused)
        unmade = failure_note(PdfUnavailableError("no Pango"))
        assert "could not be prepared" in mail_error_words(unmade)
        assert mail_error_words("ConnectionRefusedError: [Errno 111]") == "the e-mail could not be sent"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_holder_is_offered_the_verify_upload_not_a_command(scenario, desk,
                                                             screenshot, language):
    from django.core.files.base import ContentFile

    from crawler.evidence.models import Capture

    match = scenario.matches[0]
    capture = Capture(match=match, kind="detection", state="done", version_id=match.version_id,
                      url=match.url, bundle_sha256="ab" * 32)
    capture.bundle.save("detection.wacz", ContentFile(b"PK\x03\x04 bundle"))
    page = desk(language, "holder_a")
    page.goto(f"/crawler/match/{match.pk}/change/")
    captures = page.locator("#dash-captures")
    captures.screenshot(path=str(screenshot(page, f"words-captures-{language}-1366")))
    text = captures.inner_text()
    assert "manage.py" not in text and "verify_evidence" not in text
    assert WORDS[language]["verify"] in page.locator("#dash-bundle-help").inner_text()
    assert page.locator("#dash-verify-bundle input[type=file]").is_visible()


@pytest.mark.parametrize("language", LANGUAGES)
def test_system_apps_apart_for_staff(scenario, desk, screenshot, language,
                                    django_user_model):
    from tests.dashboard.conftest import PASSWORD

    django_user_model.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    order = """() => {
      const system = document.querySelector('#dash-system');
      const after = el => system && (system.compareDocumentPosition(el) & 4);
      return [...document.querySelectorAll('#content-main .module[class*="app-"]')].map(
        m => [[...m.classList].find(c => c.startsWith('app-')), Boolean(after(m))]);
    }"""
    page = desk(language, "boss")
    page.goto("/")
    apps = dict(page.evaluate(order))
    page.locator("#content-main").screenshot(
        path=str(screenshot(page, f"words-overview-apps-{language}-1366")))
    assert page.locator("#dash-system").inner_text() == WORDS[language]["system"]
    assert apps["app-django_celery_beat"] and apps["app-axes"], apps
    assert not apps["app-crawler"] and not apps["app-core"], apps
    holder = desk(language, "holder_a")
    holder.goto("/")
    assert holder.locator("#dash-system").count() == 0
    assert holder.locator(".app-django_celery_beat, .app-axes").count() == 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_median_time_to_removal_below_a_day(scenario_cases, scenario, desk,
                                            screenshot, language):
    removed_after_notice(scenario_cases["novel"], scenario.users.staff, timedelta(minutes=7))
    page = desk(language, "staff")
    page.goto("/")
    median = page.locator("#dash-removal-median").inner_text()
    page.locator("#dash-case-funnel").screenshot(
        path=str(screenshot(page, f"words-median-{language}-1366")))
    assert WORDS[language]["minutes"] in median and "0.0" not in median, median


def test_durations_in_words():
    from django.utils import translation

    from dashboard.wording import duration

    with translation.override("en"):
        assert duration(timedelta(seconds=20)) == "1 minute"
        assert duration(timedelta(hours=5, minutes=10)) == "5 hours"
        assert duration(timedelta(days=2)) == "2.0 days"
    with translation.override("zh-hans"):
        assert duration(timedelta(hours=1)) == "1 小时"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_reason_is_marked_required_and_named_on_error(scenario_cases, desk, screenshot, language):
    page = desk(language, "staff")
    case = scenario_cases["novel"]
    page.goto(f"/crawler/case/{case.pk}/change/")
    label = page.locator("label[for=id_case_reason]")
    assert "required" in label.get_attribute("class")
    assert int(label.evaluate("el => getComputedStyle(el).fontWeight")) >= 700
    page.goto("/crawler/case/")
    page.check(f"#result_list input[value='{case.pk}']")
    page.select_option("select[name=action]", "confirm_cases")
    with page.expect_navigation():
        page.click("button[name=index]")
    page.evaluate("document.querySelector('#id_reason').removeAttribute('required')")
    with page.expect_navigation():  # sent empty (the browser's own check taken away)
        page.click("#dash-action-form input[type=submit]")
    screenshot(page, f"words-reason-required-{language}-1366")
    assert page.locator("label[for=id_reason].required").count() == 1
    assert page.locator("#id_reason_error").inner_text() == WORDS[language]["required"]
    assert page.locator("#id_reason").get_attribute("aria-invalid") == "true"


@pytest.mark.parametrize("language", LANGUAGES)
def test_match_list_chapter_and_language_switch_top_left(scenario, desk,
                                                         screenshot, language):
    page = desk(language, "staff")
    page.goto("/crawler/match/")
    screenshot(page, f"words-match-list-{language}-1366")
    header = page.locator("#result_list th.column-chapter").inner_text()
    assert header.strip().lower() == WORDS[language]["chapter"]
    chapters = page.locator("#result_list td.field-chapter").all_inner_texts()
    assert scenario.matches[0].section in chapters if scenario.matches[0].section else chapters
    switch = page.locator("#dash-language-select").bounding_box()
    assert switch["x"] + switch["width"] < 1366 / 2 and switch["y"] < 80, switch


def test_scan_now_opens_the_scans_progress(scenario, desk, screenshot):
    from crawler.models import ScanRun, TargetSite

    site = TargetSite.objects.create(name="扫描站", start_urls=["http://127.0.0.1:9/"])
    page = desk("en", "staff")
    page.goto(f"/crawler/targetsite/{site.pk}/change/")
    with page.expect_navigation():
        page.click("#dash-site-scan")
    run = ScanRun.objects.filter(site=site).get()
    screenshot(page, "words-scan-now-en-1366")
    assert page.url.endswith(f"/crawler/scanrun/{run.pk}/change/"), page.url
    message = page.locator(".messagelist a")
    assert message.get_attribute("href") == f"/crawler/scanrun/{run.pk}/change/"
