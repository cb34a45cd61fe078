"""The REST API (dashboard/api/) over real HTTP against pytest-django's live server: tokens,
scoping by id guessing, throttling, uploads checked as in the dashboard, idempotent
registration, match evidence and review, and a schema generated with no warnings."""

from __future__ import annotations

import collections
import re

import pytest
import requests
from django.core.management import call_command

from core import text_extraction
from core.errors import ActionError
from core.models import AuditEvent, Work
from crawler.models import Match
from dashboard.models import ApiToken
from lib.runtime import embedded

pytestmark = pytest.mark.django_db


def dashboard_session(base_url: str, username: str) -> requests.Session:
    """A requests session logged in to the dashboard as ``username`` (the scenario's password)."""
    browser = requests.Session()
    browser.get(f"{base_url}/login/")
    browser.post(f"{base_url}/login/", data={
        "username": username, "password": "Dash-board-2026!",
        "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
        headers={"Referer": f"{base_url}/login/"})
    return browser


def token_for(user, name: str = "script") -> str:
    """A new raw API token of ``user``."""
    token = ApiToken(user=user, name=name)
    raw = token.issue()
    token.save()
    return raw


class Api:
    """requests against the live server's /api/v1/ with a Bearer token."""

    def __init__(self, base: str, token: str | None, language: str = "en") -> None:
        self.base = f"{base}/api/v1/"
        self.session = requests.Session()
        self.session.headers["Accept-Language"] = language
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def __getattr__(self, method):
        return lambda path, **kw: self.session.request(method.upper(), self.base + path,
                                                       timeout=30, **kw)


@pytest.fixture
def api(live_server):
    """Factory ``api(user_or_None, language="en") -> Api``."""
    return lambda user, language="en": Api(live_server.url, token_for(user) if user else None,
                                           language)


@pytest.fixture(autouse=True)
def _fresh_throttle_counts(session_servers):
    """Throttle counts live in Django's cache (Redis, once the servers are up: a cache opened
    before would keep the default address): start each test with none."""
    from django.core.cache import cache

    cache.clear()


def test_schema_generates_with_no_warnings(tmp_path):
    """`manage.py spectacular --validate --fail-on-warn` passes (and the schema is valid)."""
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/works/" in text and "/api/v1/matches/{id}/review/" in text


def test_docs_are_served_from_local_files(scenario, api, live_server):
    """Swagger UI and Redoc load their scripts from this server's static files, no CDN."""
    client = api(scenario.users.holder_a)
    for path in ("docs/", "redoc/"):
        page = client.get(path)
        assert page.status_code == 200, path
        assert "drf_spectacular_sidecar" in page.text
        assert "cdn" not in page.text.lower()
    assert client.get("schema/").status_code == 200


def test_every_endpoint_answers_404_for_another_holders_ids(scenario, api):
    """Holder B's token guessing holder A's ids: 404 on every endpoint, nothing changed."""
    b = api(scenario.users.holder_b)
    novel, match = scenario.novel, scenario.matches[0]
    calls = [("get", f"works/{novel.pk}/", {}), ("get", f"works/{novel.pk}/chapters/", {}),
             ("post", f"works/{novel.pk}/text/", {"json": {"text": "第三回 新章\n" * 3}}),
             ("delete", f"works/{novel.pk}/", {}), ("get", f"matches/{match.pk}/", {}),
             ("post", f"matches/{match.pk}/review/",
              {"json": {"decision": "confirmed", "reason": "guess"}})]
    for method, path, kwargs in calls:
        answer = getattr(b, method)(path, **kwargs)
        assert answer.status_code == 404, (method, path, answer.text)
        assert answer.json()["code"] == "not_found"
    assert Work.objects.filter(pk=novel.pk).exists()
    assert Match.objects.get(pk=match.pk).review_status == "new"
    listed = b.get("matches/").json()
    assert {row["work"] for row in listed["results"]} == {scenario.news.pk}
    assert [row["id"] for row in b.get("works/").json()["results"]] == [scenario.news.pk]
    # a holder cannot register into another holder either
    answer = b.post("works/", json={"holder": scenario.a.pk, "reference": "X", "text": "正文"})
    assert answer.status_code == 400 and "holder" in answer.json()["fields"]
    # staff see every holder's rows
    staff = api(scenario.users.staff)
    assert staff.get(f"works/{novel.pk}/").status_code == 200
    assert staff.get("matches/").json()["count"] == 3


def test_no_token_and_a_revoked_token_are_refused(scenario, api, live_server):
    """Without a token 401; a token revoked in the dashboard stops working at once."""
    assert Api(live_server.url, None).get("works/").status_code in (401, 403)
    raw = token_for(scenario.users.holder_a)
    client = Api(live_server.url, raw)
    assert client.get("works/").status_code == 200
    token = ApiToken.objects.get(digest=ApiToken.hash(raw))
    assert token.last_used_at is not None and token.digest != raw and raw.startswith(token.prefix)
    # revoke through the dashboard's action, as its user
    browser = dashboard_session(live_server.url, "holder_a")
    changelist = f"{live_server.url}/dashboard/apitoken/"
    assert browser.get(changelist).status_code == 200
    browser.post(changelist, data={"action": "revoke", "_selected_action": [token.pk],
                                   "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
                 headers={"Referer": changelist})
    token.refresh_from_db()
    assert token.revoked_at is not None
    answer = client.get("works/")
    assert answer.status_code == 401 and answer.json()["code"] == "authentication_failed"
    chinese = Api(live_server.url, raw, "zh-hans").get("works/").json()
    assert chinese["message"] == "API 令牌不存在或已吊销。"


def test_token_created_in_the_dashboard_is_shown_once(scenario, live_server):
    """The add page shows the raw token once; only its SHA-256 is stored; it works."""
    browser = dashboard_session(live_server.url, "holder_a")
    add = f"{live_server.url}/dashboard/apitoken/add/"
    page = browser.post(add, data={"name": "CMS", "csrfmiddlewaretoken":
                                   browser.cookies["csrftoken"]}, headers={"Referer": add})
    token = ApiToken.objects.get(name="CMS")
    import re
    shown = re.findall(rf"{re.escape(token.prefix)}[A-Za-z0-9_-]+", page.text)
    assert shown and ApiToken.hash(shown[0]) == token.digest
    assert token.user.username == "holder_a"
    assert Api(live_server.url, shown[0]).get("works/").status_code == 200
    assert shown[0] not in browser.get(f"{live_server.url}/dashboard/apitoken/").text


def test_throttling_is_per_token(scenario, api, monkeypatch):
    """Past the rate a token gets 429 with Retry-After; another token keeps its own budget."""
    from dashboard.api.throttling import TokenRateThrottle

    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"user": "3/minute",
                                                              "anon": "3/minute"})
    first, second = api(scenario.users.holder_a), api(scenario.users.holder_a)
    assert [first.get("works/").status_code for _ in range(3)] == [200] * 3
    refused = first.get("works/")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused.headers["Retry-After"]) > 0
    assert second.get("works/").status_code == 200


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_uploads_refused_without_reading_get_the_dashboards_errors(scenario, api, language):
    """An empty file and a file of a type not accepted: 400 at once with the upload's code and
    the same message as the dashboard's form, in the request's language; no job is started
    (what needs reading: tests/dashboard/test_api_uploads.py)."""
    from django.utils import translation

    from core.models import ImportJob

    client = api(scenario.users.holder_a, language)
    bad = [("empty.txt", b""), ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)]
    for name, data in bad:
        with translation.override(language):
            try:
                text_extraction.check_upload(name, len(data))
            except text_extraction.UploadError as exc:
                expected = (exc.code, str(exc))
        answer = client.post("works/upload/", data={"reference": name},
                             files={"file": (name, data)})
        assert answer.status_code == 400, answer.text
        body = answer.json()
        assert (body["code"], body["message"]) == expected
        assert body["fields"] == {"file": [expected[1]]}
    assert not ImportJob.objects.exists()


def test_registration_is_idempotent_on_the_reference(scenario, api, settings):
    """The same reference and text twice: one work, 201 then 200 "skipped"; JSON Lines bulk
    reports each line, a bad line does not stop the others."""
    client = api(scenario.users.holder_a)
    text = "第一章 开端\n" + "天地玄黄，宇宙洪荒。" * 30 + "\n第二章 继续\n" + "日月盈昃，辰宿列张。" * 30
    first = client.post("works/", json={"reference": "NOVEL-9", "text": text})
    assert first.status_code == 201, first.text
    assert first.json()["outcome"] == "registered" and first.json()["chapters"] == 2
    again = client.post("works/", json={"reference": "NOVEL-9", "text": text})
    assert again.status_code == 200 and again.json()["outcome"] == "skipped"
    assert again.json()["id"] == first.json()["id"]
    assert Work.objects.filter(holder=scenario.a, reference="NOVEL-9").count() == 1
    lines = "\n".join(['{"reference": "B-1", "text": "一二三四五六七八九十"}', "not json",
                       '{"reference": "", "text": "x"}', '{"reference": "NOVEL-9", "text": '
                       + __import__("json").dumps(text) + "}"])
    answer = client.post("works/bulk/", data=lines.encode(),
                         headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 200, answer.text
    rows = answer.json()
    assert [r["outcome"] for r in rows] == ["registered", "error", "error", "skipped"]
    assert rows[1]["error"]["code"] == "parse_error" and "reference" in rows[2]["error"]["fields"]
    chapters = client.get(f"works/{first.json()['id']}/chapters/").json()
    assert [c["title"] for c in chapters] == ["第一章 开端", "第二章 继续"]


def test_match_list_filters_and_detail_evidence(scenario, api):
    """Filters narrow the list; the detail's passages carry both texts at their offsets."""
    client = api(scenario.users.staff)
    rows = client.get("matches/", params={"score_min": 0.4, "ordering": "-score"}).json()
    assert [r["score"] for r in rows["results"]] == [0.86, 0.45]
    assert client.get("matches/", params={"domain": "mirror.example.net"}).json()["count"] == 1
    assert client.get("matches/", params={"work": scenario.news.pk}).json()["count"] == 1
    assert client.get("matches/", params={"status": "confirmed"}).json()["count"] == 0
    bad = client.get("matches/", params={"score_min": "high"})
    assert bad.status_code == 400 and "score_min" in bad.json()["fields"]
    match = scenario.matches[0]
    detail = client.get(f"matches/{match.pk}/").json()
    page = scenario.texts[match.pk]
    assert detail["passages"]
    for p in detail["passages"]:
        assert p["page_text"] == page[p["page_start"]:p["page_end"]]
        assert p["work_text"] == scenario.novel_text[p["work_start"]:p["work_end"]]
        assert p["page_text"] == p["work_text"]
    assert detail["capture"]["hash_ok"] is True and detail["capture"]["http_status"] == 200
    assert detail["capture"]["fetched_at"].endswith("+08:00")
    assert detail["chapter_shares"][0]["title"].startswith("第二回")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_match_time_filters_take_any_offset_and_refuse_out_of_range_times(scenario, api,
                                                                           language):
    """Python takes offsets up to ±23:59, PostgreSQL up to ±15:59: the filter answers either
    way; a time outside years 1 to 9999 once in UTC is a 400 naming the filter."""
    client = api(scenario.users.staff, language)
    for offset in ("+16:00", "-23:59", "+08:00"):
        listed = client.get("matches/", params={"first_seen_after": f"2000-01-01T00:00:00{offset}",
                                                "first_seen_before": f"9999-01-01T00:00:00{offset}"})
        assert listed.status_code == 200, listed.text
        assert listed.json()["count"] == len(scenario.matches)
    for value in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"):
        refused = client.get("matches/", params={"first_seen_after": value})
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "invalid"
        assert refused.json()["fields"]["first_seen_after"] == [
            {"en": "The time is out of range (years 1 to 9999 in UTC).",
             "zh-hans": "时间超出范围（UTC 时间须在公元 1 年至 9999 年之间）。"}[language]]


def test_parts_of_a_chapter_page_are_named_and_filtered(scenario, api):
    """A match that is part 2 of a chapter split over pages names its first part; filtering by
    that URL gives every part the caller may see."""
    first, second = scenario.matches[0], scenario.matches[1]
    Match.objects.filter(pk=second.pk).update(part_of=first.url, work=first.work)
    Match.objects.filter(pk=first.pk).update(part_of=first.url)
    client = api(scenario.users.staff)
    rows = client.get("matches/", params={"part_of": first.url}).json()["results"]
    assert sorted(r["id"] for r in rows) == sorted([first.pk, second.pk])
    assert {r["part_of"] for r in rows} == {first.url}
    assert client.get("matches/", params={"part_of": "https://elsewhere.example/1.html"}
                      ).json()["count"] == 0


def test_review_goes_through_the_dashboards_action(scenario, api):
    """Confirm with a reason: the audit trail records who and why and the detail's history
    shows it; a missing reason is a 400 with a field message in the request's language."""
    match = scenario.matches[0]
    client = api(scenario.users.holder_a, "zh-hans")
    missing = client.post(f"matches/{match.pk}/review/", json={"decision": "confirmed"})
    assert missing.status_code == 400 and "reason" in missing.json()["fields"]
    done = client.post(f"matches/{match.pk}/review/",
                       json={"decision": "confirmed", "reason": "整章照搬"})
    assert done.status_code == 200 and done.json()["review_status"] == "confirmed"
    event = AuditEvent.objects.about(match).get()
    assert (event.username, event.new_state, event.reason) == ("holder_a", "confirmed", "整章照搬")
    again = client.post(f"matches/{match.pk}/review/",
                        json={"decision": "confirmed", "reason": "again"})
    assert again.status_code == 400 and again.json()["code"] == "action_refused"
    assert "已" in again.json()["message"]  # in Chinese
    history = client.get(f"matches/{match.pk}/").json()["history"]
    assert [(h["username"], h["new_state"]) for h in history] == [("holder_a", "confirmed")]


def test_notices_draft_read_advance_download(scenario, api):
    """Confirm, draft a notice, read it, mark it sent, download .docx and .txt; holder B's
    guesses answer 404 and cannot put A's match into a notice."""
    match = scenario.matches[0]
    client = api(scenario.users.holder_a)
    assert client.post(f"matches/{match.pk}/review/",
                       json={"decision": "confirmed", "reason": "copied"}).status_code == 200
    drafted = client.post("notices/", json={"matches": [match.pk], "language": "en",
                                            "recipient": "abuse@copy.example.com"})
    assert drafted.status_code == 201, drafted.text
    notice = drafted.json()[0]
    assert (notice["domain"], notice["status"], notice["matches"]) == (
        "copy.example.com", "drafted", [match.pk])
    b = api(scenario.users.holder_b)
    for method, path, kwargs in [
            ("get", f"notices/{notice['id']}/", {}),
            ("get", f"notices/{notice['id']}/document/txt/", {}),
            ("post", f"notices/{notice['id']}/advance/", {"json": {"status": "sent"}}),
            ("post", "notices/", {"json": {"matches": [match.pk]}})]:
        assert getattr(b, method)(path, **kwargs).status_code == 404, (method, path)
    sent = client.post(f"notices/{notice['id']}/advance/", json={"status": "sent"})
    assert sent.status_code == 200 and sent.json()["status"] == "sent"
    assert sent.json()["sent_at"]
    backwards = client.post(f"notices/{notice['id']}/advance/", json={"status": "drafted"})
    assert backwards.status_code == 400 and backwards.json()["code"] == "action_refused"
    text = client.get(f"notices/{notice['id']}/document/txt/")
    assert text.status_code == 200 and match.url in text.text
    docx = client.get(f"notices/{notice['id']}/document/docx/")
    assert docx.status_code == 200 and docx.content[:2] == b"PK"
    unconfirmed = client.post("notices/", json={"matches": [scenario.matches[1].pk]})
    assert unconfirmed.status_code == 400 and unconfirmed.json()["code"] == "action_refused"


def test_notice_text_with_control_characters_is_refused_and_old_ones_still_download(
        scenario, api):
    """A recipient or text with control characters (not line breaks or tabs) is refused when
    drafting or editing; a notice that holds some already still downloads as .docx."""
    from dashboard.models import TakedownNotice
    from dashboard.notice_actions import do_edit_notice

    match = scenario.matches[0]
    client = api(scenario.users.holder_a, "zh-hans")
    assert client.post(f"matches/{match.pk}/review/", json={"decision": "confirmed",
                                                             "reason": "copy"}).ok
    refused = client.post("notices/", json={"matches": [match.pk], "recipient": "站长\x07"})
    assert refused.status_code == 400 and refused.json()["code"] == "action_refused"
    assert "控制字符" in refused.json()["message"]
    notice_id = client.post("notices/", json={"matches": [match.pk],
                                               "recipient": "站长"}).json()[0]["id"]
    notice = TakedownNotice.objects.get(pk=notice_id)
    with pytest.raises(ActionError):
        do_edit_notice(notice, scenario.users.holder_a, body="第一行\x0b第二行\x00")
    # a row written before the check (or a crawled excerpt holding them)
    TakedownNotice.objects.filter(pk=notice_id).update(recipient="站\x1b长",
                                                       body="正文\x0c第二段\x07")
    docx = client.get(f"notices/{notice_id}/document/docx/")
    assert docx.status_code == 200 and docx.content[:2] == b"PK"
    text = client.get(f"notices/{notice_id}/document/txt/").text
    assert "正文第二段" in text and "\x07" not in text


def test_sites_and_scans_are_for_staff(scenario, api):
    """Holders get 403 on sites and scans; staff create and update a site (audited), read a
    scan's progress and cancel it while it runs."""
    from crawler import scans
    from crawler.models import ScanRun, TargetSite

    holder = api(scenario.users.holder_a)
    assert holder.get("sites/").status_code == 403
    assert holder.get("scans/").json()["code"] == "permission_denied"
    staff = api(scenario.users.staff)
    created = staff.post("sites/", json={"name": "copy-site",
                                         "start_urls": ["https://copy.example.com/"],
                                         "max_pages": 20})
    assert created.status_code == 201, created.text
    site = TargetSite.objects.get(name="copy-site")
    assert AuditEvent.objects.about(site).get().username == "staff"
    changed = staff.patch(f"sites/{site.pk}/", json={"delay_seconds": 5})
    assert changed.status_code == 200 and changed.json()["delay_seconds"] == 5
    bad = staff.post("sites/", json={"name": "bad", "start_urls": ["not a url"]})
    assert bad.status_code == 400 and "start_urls" in bad.json()["fields"]
    run = ScanRun.objects.create(site=site, status="running")
    frontier = scans.get_crawler().frontier(run.pk)  # a running scan's figures live in Redis
    frontier.open(20, 1)
    frontier.count(pages_fetched=7, matches=2)
    progress = staff.get(f"scans/{run.pk}/").json()
    assert (progress["status"], progress["pages_fetched"], progress["matches_found"]) == (
        "running", 7, 2)
    cancelled = staff.post(f"scans/{run.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = staff.post(f"scans/{run.pk}/cancel/")
    assert again.status_code == 400 and again.json()["code"] == "not_running"
    frontier.redis.delete(frontier.meta_key, frontier.stats_key)  # ids are reused by later tests


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_api_error_is_json_with_code_and_message(scenario, api, live_server, language):
    """An unknown path, a body over the size limit and JSON nested too deeply: JSON errors
    with a code and a message in the request's language, never an HTML page or a redirect."""
    from django.conf import settings

    client, anonymous = api(scenario.users.holder_a, language), api(None, language)
    works = Work.objects.count()
    expected = {"en": {"not_found": "Not found.",
                       "too_large": "The request body is larger than 51 MB.",
                       "parse_error": "The JSON body is nested too deeply."},
                "zh-hans": {"not_found": "未找到。",
                            "too_large": "请求正文超过 51 MB。",
                            "parse_error": "JSON 正文嵌套过深。"}}[language]

    def assert_error(response, status, code):
        assert response.status_code == status, response.text[:300]
        assert response.headers["Content-Type"].startswith("application/json")
        body = response.json()
        assert (body["code"], body["message"]) == (code, expected[code])

    assert client.get("works").json()["count"] >= 0  # no slash: redirected to works/
    for who in (client, anonymous):
        assert_error(who.get("no-such-thing/", allow_redirects=False), 404, "not_found")
        assert_error(who.get("no-such-thing"), 404, "not_found")
        assert_error(who.post("works/1/nothing/", json={}, allow_redirects=False), 404,
                     "not_found")
    oversized = b'{"text": "' + b"x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"}'
    assert_error(client.post("works/", data=oversized,
                             headers={"Content-Type": "application/json"}), 400, "too_large")
    deep = "[" * 100_000 + "]" * 100_000
    assert_error(client.post("works/", data=deep, headers={"Content-Type": "application/json"}),
                 400, "parse_error")
    many = client.get("works/", params=[("status", "indexed")] * 1001)  # over Django's 1000
    assert many.status_code == 400 and many.json()["code"] == "bad_request"
    assert "TooManyFieldsSent" in many.json()["message"]
    bulk = client.post("works/bulk/", data=deep + "\n", headers={
        "Content-Type": "application/x-ndjson"})
    assert bulk.status_code == 200 and bulk.json()[0]["error"]["code"] == "parse_error"
    assert Work.objects.count() == works


def test_a_text_over_the_length_limit_is_a_400_too_large_in_every_path(scenario, api):
    """A text of WORK_TEXT_MAX_CHARS + 1 characters (under the 50 MB upload limit): 400
    too_large from works/, works/bulk/ and works/{id}/text/ (append), and no work changed
    (works/upload/: its job fails too_large, tests/dashboard/test_api_uploads.py)."""
    from django.conf import settings

    client = api(scenario.users.holder_a)
    limit = settings.WORK_TEXT_MAX_CHARS
    message = re.compile(rf"The text has \d+ characters; a work may have at most {limit}\.")
    long_text = "x" * (limit + 1)
    works = {work.pk: work.sha256 for work in Work.objects.all()}
    own = Work.objects.filter(holder__users=scenario.users.holder_a).first()
    for response in (
            client.post("works/", json={"reference": "long", "text": long_text}),
            client.post(f"works/{own.pk}/text/", json={"text": "x" * limit, "mode": "append"})):
        assert response.status_code == 400, response.text[:300]
        assert response.json()["code"] == "too_large"
        assert message.fullmatch(response.json()["message"]), response.json()["message"]
    bulk = client.post("works/bulk/", data=f'{{"reference": "long", "text": "{long_text}"}}\n',
                       headers={"Content-Type": "application/x-ndjson"})
    assert bulk.status_code == 200
    assert bulk.json()[0]["error"]["code"] == "too_large"
    assert message.fullmatch(bulk.json()[0]["error"]["message"])
    assert {work.pk: work.sha256 for work in Work.objects.all()} == works

HOSTILE_FILTERS = {
    "works/": {"status": "nope", "reference": "a\x00b", "kind": "\x00", "ordering": "-nope",
               "page": "99999999999999999999", "page_size": "-1"},
    "matches/": {"work": "1e30", "score_min": "1e999", "score_max": "NaN", "domain": "\x00",
                 "still_matching": "maybe", "part_of": "\x00", "page": "0",
                 "first_seen_before": "99999-01-01"},
    "notices/": {"status": "\x00", "domain": "a\x00", "language": "xx"},
    "sites/": {"enabled": "2"},
    "scans/": {"site": "99999999999999999999", "status": "\x00"},
    "alerts/webhooks/": {"holder": "-99999999999999999999", "enabled": "x"},
}


@pytest.mark.parametrize("path", list(HOSTILE_FILTERS))
def test_hostile_filter_values_get_json_answers_not_errors(scenario, api, path):
    """Each filter with values out of its type or range: a JSON answer (a 400 naming the
    filter, or a list), never a 500."""
    client = api(scenario.users.staff)
    for name, value in HOSTILE_FILTERS[path].items():
        response = client.get(path, params={name: value})
        assert response.status_code in (200, 400, 404), (name, value, response.text[:300])
        body = response.json()
        if response.status_code == 400:
            assert name in body["fields"], (name, value, body)

@pytest.mark.parametrize("language, words", [("en", "Service temporarily unavailable"),
                                             ("zh-hans", "服务暂时不可用")])
def test_evidence_report_and_match_detail_answer_503_while_mongodb_is_down(
        scenario, api, live_server, language, words):
    """The evidence page, its report and the API's match detail need MongoDB: while it does not
    answer they say so in the user's language with a 503, never showing the driver's error or
    the server's address."""
    from django.test import override_settings

    dead = f"127.0.0.1:{embedded.free_port()}"
    match = scenario.matches[0]
    browser = dashboard_session(live_server.url, scenario.users.holder_a.username)
    browser.headers["Accept-Language"] = language
    browser.cookies.set("django_language", language)
    client = api(scenario.users.holder_a, language)
    with override_settings(MONGO_URL=f"mongodb://{dead}", MONGO_SERVER_TIMEOUT_MS=300):
        for path in (f"/crawler/match/{match.pk}/change/", f"/crawler/match/{match.pk}/report/"):
            page = browser.get(live_server.url + path)
            assert page.status_code == 503, (path, page.status_code, page.text[:300])
            assert words in page.text and dead not in page.text
        detail = client.get(f"matches/{match.pk}/")
    assert detail.status_code == 503 and detail.json()["code"] == "storage_unavailable"
    assert dead not in detail.text and int(detail.headers["Retry-After"]) > 0


# Hypothesis examples per operation: the test runs 60 s with 30, 26 s with 10, on the shared
# 2-core machine (load average 7); 10 missed a time filter's +16:00 offset that 40 found.
FUZZ_EXAMPLES = 30


def test_fuzz_every_endpoint_with_schemathesis(scenario, api, live_server, monkeypatch):
    """schemathesis generates requests for every operation of the schema and sends them to the
    live server with a staff token: no 500 answer, and every answer conforms to the schema."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.checks import not_a_server_error, response_schema_conformance

    from dashboard.api.throttling import TokenRateThrottle

    # FUZZ_EXAMPLES per operation add up past the token's hourly rate: the later operations
    # would only be answered 429 (throttling has its own test)
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"user": "100000/hour",
                                                              "anon": "100000/hour"})

    @schemathesis.serializer("application/x-ndjson")
    class JsonLines:
        """Generated bodies of works/bulk/ sent as text (strings as they are)."""

        def as_requests(self, context, value):
            return {"data": value if isinstance(value, str) else str(value)}

        def as_werkzeug(self, context, value):
            return self.as_requests(context, value)

    client = api(scenario.users.staff)
    schema = schemathesis.from_dict(client.get("schema/?format=json").json(),
                                    base_url=live_server.url)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    paths = {operation.path for operation in operations}
    assert {"/api/v1/alerts/webhooks/{id}/", "/api/v1/alerts/preferences/",
            "/api/v1/works/bulk/"} <= paths
    answered = collections.Counter()
    auth = {}
    for operation in operations:
        # a token per operation: the examples of all operations together exceed one token's
        # rate (settings.API_THROTTLE_USER_RATE), one operation's do not
        auth["Authorization"] = api(scenario.users.staff).session.headers["Authorization"]

        @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def fuzz(case):
            if isinstance(case.body, dict) and isinstance(case.body.get("url"), str):
                # a webhook URL is resolved by the SSRF guard: an address literal asks no DNS
                # server off this machine
                case.body["url"] = "http://127.0.0.1:9/hook"
            response = case.call_and_validate(
                headers=auth, timeout=30, checks=(not_a_server_error, response_schema_conformance))
            answered[case.path, case.method.upper(), response.status_code] += 1

        fuzz()
    # the JSON Lines serializer gave works/bulk/ bodies it read (a line error is a 200 too)
    assert answered["/api/v1/works/bulk/", "POST", 200] > 0, answered
    # each request thread of the live server closed its database connection when its client
    # closed the socket (Django's ThreadedWSGIServer.close_request): none left open
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        assert cursor.fetchone()[0] <= 3
