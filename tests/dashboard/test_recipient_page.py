"""The page a takedown notice's recipient opens from the mail's link, over real HTTP (live
server), logged out: the holder, the work, the page with its screenshot, the copied passages
beside the work, the capture and timestamp with the demo authority labelled, the digests, the
signed report and the WACZ (with range requests, as the replay reads it); the links mailed
before the page still open it; an altered, expired or withdrawn link, or a bundle that is gone,
answers a page that says so and whom to contact."""

from __future__ import annotations

import hashlib
import io

import pytest
import requests
from django.core import signing
from PIL import Image

from crawler.evidence.trust import Stamper
from tests.evidence_captures import finished_capture

pytestmark = pytest.mark.django_db


def screenshot_png() -> bytes:
    """A small PNG standing for a capture's screenshot."""
    out = io.BytesIO()
    Image.new("RGB", (320, 200), (200, 40, 40)).save(out, "PNG")
    return out.getvalue()


def archived_html(text: str) -> str:
    """The archived page of a copy: its text in paragraphs, as the site served it."""
    paragraphs = "".join(f"<p>{line}</p>" for line in text.splitlines() if line.strip())
    return (f'<html><head><meta charset="utf-8"><title>copy</title></head>'
            f'<body id="archived">{paragraphs}</body></html>')


@pytest.fixture
def sent_notice(scenario, scenario_cases):
    """Factory ``sent_notice(language) -> (notice, capture, link path)``: the novel's copy on
    copy.example.com confirmed, captured (screenshot, demo timestamp) and cited by a notice."""
    from crawler.models import Match
    from dashboard.notice_actions import do_draft_notices

    def make(language: str = "zh-hans"):
        match = scenario.matches[0]
        Match.objects.filter(pk=match.pk).update(review_status="confirmed")
        match.refresh_from_db()
        capture = finished_capture(match, {"evidence/screenshot.png": screenshot_png()},
                                   stamper=Stamper(), html=archived_html(scenario.texts[match.pk]))
        [notice] = do_draft_notices([match], scenario.users.staff, language)
        return notice, capture, link_path(notice)

    return make


def link_path(notice) -> str:
    """The path of ``notice``'s recipient link (what its mail carries), without the site."""
    from dashboard.recipient_links import notice_link

    return notice_link(notice).split("://", 1)[1].split("/", 1)[1]


def aged(link: str, days: int) -> str:
    """``link`` (a notice link's path) as it was signed ``days`` days ago: the same payload,
    signed with an earlier time (django.core.signing's timestamp)."""
    import time

    from dashboard.recipient_links import SALT

    class Earlier(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - days * 24 * 3600)

    token = link.rstrip("/").rsplit("/", 1)[1]
    old = Earlier(salt=SALT).sign_object(signing.loads(token, salt=SALT), compress=True)
    return link.replace(token, old)


def get(live_server, path: str, **kwargs) -> requests.Response:
    return requests.get(f"{live_server.url}/{path.lstrip('/')}", timeout=60, **kwargs)


def test_the_notice_link_opens_the_evidence_page_logged_out(sent_notice, scenario, live_server):
    notice, capture, link = sent_notice("zh-hans")
    match = scenario.matches[0]
    page = get(live_server, link, headers={"Accept-Language": "en"})  # the notice's language wins
    assert page.status_code == 200, page.text[:500]
    html = page.text
    assert "侵权证据" in html and 'lang="zh-hans"' in html
    assert "星河出版社" in html and "legal@xinghe.example" in html and "西游记（节选）" in html
    assert match.url in html and "第二回" in html
    first = scenario.passages[match.pk][0]
    copied = scenario.novel_text[first["work_start"]:first["work_end"]]
    assert html.count(copied[:40]) >= 1 and "作品中" in html  # the work's side of passage 1
    assert '<div class="rcp-scroll" lang="zh-Hans">' in html  # the work's language
    assert capture.bundle_sha256 in html and capture.datapackage_sha256 in html
    assert "DEMO, not accredited / 演示，非认证" in html  # the session's demo authority
    assert 'src="/replay/ui.js"' in html and 'data-replay-base="/replay/"' in html
    assert "/login/" not in html  # not the dashboard

    bundle = get(live_server, f"{link}bundle-{capture.pk}.wacz")
    assert bundle.status_code == 200 and bundle.headers["Accept-Ranges"] == "bytes"
    assert hashlib.sha256(bundle.content).hexdigest() == capture.bundle_sha256
    assert bundle.headers["X-Evidence-SHA256"] == capture.bundle_sha256
    part = get(live_server, f"{link}bundle-{capture.pk}.wacz", headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == bundle.content[10:20]
    assert part.headers["Content-Range"] == f"bytes 10-19/{len(bundle.content)}"
    tail = get(live_server, f"{link}bundle-{capture.pk}.wacz", headers={"Range": "bytes=-22"})
    assert tail.status_code == 206 and tail.content == bundle.content[-22:]  # the ZIP's end
    head = requests.head(f"{live_server.url}/{link}bundle-{capture.pk}.wacz",
                         headers={"Range": "bytes=0-"}, timeout=30)
    assert head.status_code == 206 and head.headers["Content-Length"] == str(len(bundle.content))
    past = get(live_server, f"{link}bundle-{capture.pk}.wacz",
               headers={"Range": f"bytes={len(bundle.content)}-"})
    assert past.status_code == 416 and past.headers["Content-Range"] == \
        f"bytes */{len(bundle.content)}"

    several = get(live_server, f"{link}bundle-{capture.pk}.wacz",
                  headers={"Range": "bytes=0-1,5-6"})
    assert several.status_code == 200 and several.content == bundle.content  # the whole file

    shot = get(live_server, f"{link}screenshot-{capture.pk}.png")
    assert shot.status_code == 200 and shot.content == screenshot_png()
    report = get(live_server, f"{link}report-{match.pk}.pdf")
    assert report.status_code == 200 and report.content.startswith(b"%PDF")
    again = get(live_server, link)
    assert hashlib.sha256(report.content).hexdigest() in again.text  # the kept report's digest
    assert get(live_server, f"{link}report-{match.pk}.pdf").content == report.content


def test_a_link_mailed_before_the_page_opens_it(sent_notice, live_server):
    notice, capture, _link = sent_notice("en")
    old = signing.dumps({"c": capture.pk}, salt="dashboard.notice-bundle")  # as mails carried
    page = get(live_server, f"/evidence/bundle/{old}/")
    assert page.status_code == 200 and "Evidence of copyright infringement" in page.text
    assert capture.bundle_sha256 in page.text and 'lang="en"' in page.text
    bundle = get(live_server, f"/evidence/notice/{old}/bundle-{capture.pk}.wacz")
    assert hashlib.sha256(bundle.content).hexdigest() == capture.bundle_sha256


def test_an_altered_or_expired_link_says_so_and_whom_to_ask(sent_notice, live_server, settings):
    notice, capture, link = sent_notice("zh-hans")
    altered = get(live_server, link[:-4] + "xx/", headers={"Accept-Language": "en"})
    assert altered.status_code == 404 and "This link is not valid" in altered.text
    assert settings.RECIPIENT_CONTACT_EMAIL in altered.text  # nobody else is known
    assert "/login/" not in altered.text and "Site administration" not in altered.text
    other = get(live_server, f"{link}bundle-{capture.pk + 1000}.wacz")  # not one of its pages
    assert other.status_code == 404 and "证据包已不在" in other.text

    days = settings.NOTICE_BUNDLE_LINK_DAYS
    assert get(live_server, aged(link, days - 1)).status_code == 200
    old = aged(link, days + 1)
    expired = get(live_server, old, headers={"Accept-Language": "en"})
    assert expired.status_code == 410 and "链接已过期" in expired.text  # the notice's language
    assert f"{days} 天内有效" in expired.text
    assert "星河出版社" in expired.text and "legal@xinghe.example" in expired.text
    assert get(live_server, f"{old}bundle-{capture.pk}.wacz").status_code == 410


def test_a_deleted_case_or_a_lost_bundle_says_so(sent_notice, scenario, scenario_cases,
                                                 live_server):
    notice, capture, link = sent_notice("en")
    capture.bundle.storage.delete(capture.bundle.name)  # the file lost from the storage
    page = get(live_server, link)
    assert page.status_code == 200 and "no longer stored on the platform" in page.text
    assert f"bundle-{capture.pk}.wacz" not in page.text
    gone = get(live_server, f"{link}bundle-{capture.pk}.wacz")
    assert gone.status_code == 404 and "This evidence is no longer stored" in gone.text
    old = signing.dumps({"c": capture.pk}, salt="dashboard.notice-bundle")
    assert get(live_server, f"/evidence/bundle/{old}/").status_code == 404

    scenario_cases["novel"].delete()
    withdrawn = get(live_server, link)
    assert withdrawn.status_code == 410 and "deleted the case" in withdrawn.text
    assert "legal@xinghe.example" in withdrawn.text
    notice.delete()
    assert get(live_server, link).status_code == 410


def test_the_notice_mail_links_to_the_page(sent_notice, live_server, settings):
    from dashboard import notice_mail
    from dashboard.models import NoticeMail

    notice, capture, _link = sent_notice("en")
    settings.SITE_URL = live_server.url
    settings.NOTICE_MAIL_MAX_REPORTS = 0  # the link is the point here, not the attachments
    message = notice_mail.compose(NoticeMail.objects.create(notice=notice,
                                                            recipient="abuse@copy.example"))
    [link] = [line for line in message.body.splitlines() if "/evidence/notice/" in line]
    assert get(live_server, link.strip()).status_code == 200


def test_a_browser_signed_in_to_the_dashboard_gets_no_replay(sent_notice, scenario, client):
    _notice, _capture, link = sent_notice("en")
    client.force_login(scenario.users.staff)
    html = client.get("/" + link).content.decode()
    assert 'data-role="signed-in"' in html and "private window" in html
    assert "data-replay-base" not in html  # the copying site's scripts never meet a session
    client.logout()
    assert "data-replay-base" in client.get("/" + link).content.decode()


def test_replay_web_page_is_served_here(live_server):
    worker = get(live_server, "/replay/sw.js")
    assert worker.status_code == 200 and "javascript" in worker.headers["Content-Type"]
    assert len(worker.content) == 1_239_972  # the vendored file (its SOURCE.txt)
    assert get(live_server, "/replay/ui.js").status_code == 200
    frame = get(live_server, "/replay/?source=x")
    assert frame.status_code == 200 and frame.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in frame.headers["Content-Security-Policy"]
    assert get(live_server, "/replay/other.js").status_code == 404


LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def archived_frame(page, text: str, timeout: float = 90.0):
    """The frame of ``page`` that shows the replayed archived page once it holds ``text``
    (ReplayWeb.page nests it under /replay/w/...); fails after ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for frame in page.frames:
            if "/replay/w/" in frame.url:
                try:
                    if text in frame.inner_text("body", timeout=1000):
                        return frame
                except Exception:  # noqa: BLE001 - a frame torn down while replay reloads it
                    continue
        page.wait_for_timeout(500)
    urls = [frame.url for frame in page.frames]
    raise AssertionError(f"no replayed frame showed {text!r} in {timeout} s; frames: {urls}")


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", [1366, 390])
def test_the_recipient_sees_the_page_and_its_replay_with_no_request_leaving_the_machine(
        sent_notice, scenario, open_page, screenshot, language, width):
    from urllib.parse import urlsplit

    notice, capture, link = sent_notice(language)
    match = scenario.matches[0]
    page = open_page("en" if language == "zh-hans" else "zh-hans")  # the notice's language wins
    page.set_viewport_size({"width": width, "height": 900})
    requests_seen: list[str] = []
    page.context.on("request", lambda request: requests_seen.append(request.url))
    page.goto("/" + link)
    page.wait_for_load_state("networkidle")
    heading = {"zh-hans": "侵权证据", "en": "Evidence of copyright infringement"}[language]
    assert page.locator("h1").inner_text() == heading
    assert "星河出版社" in page.locator("#rcp-holder").inner_text()
    first = scenario.passages[match.pk][0]
    copied = scenario.novel_text[first["work_start"]:first["work_end"]]
    assert copied[:30] in page.locator("table.passages").inner_text()
    frame = archived_frame(page, copied[:30])  # the first page's replay starts at once
    assert page.locator("replay-web-page").count() == 1
    assert frame.locator("#archived").count() == 1  # the archived HTML itself, not our page
    page.wait_for_timeout(500)
    screenshot(page, f"recipient-page-{language}-{width}")
    assert page.evaluate("() => document.scrollingElement.scrollWidth"
                         " <= document.scrollingElement.clientWidth + 1")
    paths = {urlsplit(url).path for url in requests_seen}
    assert {"/replay/ui.js", "/replay/sw.js"} <= paths
    assert f"/{link}bundle-{capture.pk}.wacz" in paths  # the replay read the bundle from here
    away = [url for url in requests_seen if urlsplit(url).scheme in ("http", "https", "ws", "wss")
            and urlsplit(url).hostname not in {h.strip("[]") for h in LOOPBACK}]
    assert away == [], away


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_an_expired_link_in_the_browser_names_the_holder(sent_notice, open_page, screenshot,
                                                         settings, language):
    _notice, _capture, link = sent_notice(language)
    link = aged(link, settings.NOTICE_BUNDLE_LINK_DAYS + 1)
    page = open_page(language)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 800})
        response = page.goto("/" + link)
        assert response.status == 410
        assert "legal@xinghe.example" in page.locator("#rcp-contact").inner_text()
        screenshot(page, f"recipient-expired-{language}-{width}")
