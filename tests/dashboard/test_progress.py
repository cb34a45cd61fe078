"""Live scan progress: a real scan of a slow loopback site through the real Celery worker, watched
in headless Chromium on the scan run page and on the overview, which must show the figures
moving and the scan finishing without a reload; plus the JSON endpoint they poll, the scan
filter of the match list, and the audit trail's links to what each row is about."""

from __future__ import annotations

import os
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from core.models import AuditEvent, RightsHolder, Work
from crawler.models import Match, ScanRun, TargetSite
from lib.runtime.serving import serve_in_thread

from .conftest import FIXTURES, chapter_sections

# The worker subprocess (tests/conftest.py) and this process crawl the loopback site only when
# loopback is allowed (as tests/crawler/conftest.py does for the crawler tests).
os.environ.setdefault("CRAWLER_ALLOW_ADDRESSES", "127.0.0.1")
settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": os.environ["CRAWLER_ALLOW_ADDRESSES"]}

NOVEL = FIXTURES / "xiyouji-excerpt.txt"
FILLER = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8
PAGES = 8  # plain news pages beside the index and the copy
PAGE_DELAY = 0.3  # seconds each answer waits: with the politeness delay, a scan of ~10 s


class SlowSite:
    """A loopback site: an index linking PAGES news pages and one page copying a chapter of
    the novel; every answer waits PAGE_DELAY seconds."""

    def __init__(self, copied: str):
        pages = {"/": self._html("首页", "".join(
            f'<p><a href="/news/{i}.html">新闻 {i}</a></p>' for i in range(PAGES))
            + '<p><a href="/novel/2.html">西游记 第二回</a></p>')}
        for i in range(PAGES):
            pages[f"/news/{i}.html"] = self._html(f"新闻 {i}", f"<p>第{i}条。{FILLER}</p>")
        pages["/novel/2.html"] = self._html("西游记 第二回", "".join(
            f"<p>{line}</p>" for line in copied.split("\n") if line.strip()))
        self.pages = pages

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                time.sleep(PAGE_DELAY)
                body = pages.get(self.path)
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                payload = (body or "<html><body>not found</body></html>").encode()
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        serve_in_thread(self.server)

    @staticmethod
    def _html(title: str, body: str) -> str:
        return (f"<html><head><meta charset='utf-8'><title>{title}</title></head>"
                f"<body><article><h1>{title}</h1>{body}</article></body></html>")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def slow_scan_setup(platform_stores, make_user):
    """A holder's indexed novel, a target site on a slow loopback server (politeness delay
    1 s), a staff user. Returns (site, staff, work)."""
    from core.engine import get_engine

    text = NOVEL.read_text(encoding="utf-8")
    holder = RightsHolder.objects.create(name="星河出版社")
    work = Work.objects.create(holder=holder, reference="XYJ-001", title="西游记（节选）",
                               author="吴承恩", kind="novel", length=len(text),
                               sections=chapter_sections(text), status="indexed")
    get_engine().add_work(work.engine_id, text)
    ch2 = work.sections[1]["start"]
    server = SlowSite(text[ch2:ch2 + 1500])
    site = TargetSite.objects.create(name="慢速测试站", start_urls=[server.base + "/"],
                                     allowed_domains=["127.0.0.1"], max_depth=2, max_pages=50,
                                     delay_seconds=1.0)
    yield site, make_user("staff", staff_role=True), work
    server.close()
    for key in platform_stores[1].scan_iter(match="crawl:*", count=1000):
        platform_stores[1].delete(key)


def _figures(page, box: str) -> dict:
    """The figures a person reads in ``box`` (a CSS selector of one scan's element)."""
    return page.eval_on_selector(box, """el => Object.fromEntries(
        Array.from(el.querySelectorAll('[data-field]')).map(f => [f.dataset.field,
            f.textContent.trim()]))""")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_progress_moves_without_reload_until_finished(language, idle_worker, slow_scan_setup,
                                                      open_page, browser_login, screenshot):
    from crawler.scan_actions import do_start_scan

    site, staff, _work = slow_scan_setup
    run_page, overview = open_page(language), open_page(language)
    browser_login(run_page, "staff")
    browser_login(overview, "staff")

    run = do_start_scan(site, acting_user=staff, trigger="admin")
    assert run.status == "running"
    run_page.goto(f"/crawler/scanrun/{run.pk}/change/")
    overview.goto("/")
    for page in (run_page, overview):
        page.evaluate("window.__sameDocument = true")  # gone if the page reloads
    box = f"#scan-progress [data-scan-id='{run.pk}']"
    row = f"#dash-scans [data-scan-id='{run.pk}']"

    seen, overview_seen, shot = [], [], False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # asked before the figures are read, so that the last figures read are the final ones
        # (once both show the scan ended, their polling has stopped)
        ended = run_page.get_attribute(box, "data-running") == "0" and \
            overview.get_attribute(row, "data-running") == "0"
        figures, listed = _figures(run_page, box), _figures(overview, row)
        seen.append(figures)
        overview_seen.append(listed)
        if (not shot and figures["pages_fetched"] not in ("0", "—") and figures["status"]
                and ScanRun.objects.get(pk=run.pk).status == "running"):
                screenshot(run_page, f"scan-progress-running-{language}")
                screenshot(overview, f"overview-progress-running-{language}")
                shot = True
        if ended:
            break
        time.sleep(0.3)
    else:
        pytest.fail(f"the page still showed a running scan after 120 s: {seen[-1]}")

    run.refresh_from_db()
    assert run.status == "finished", run.note
    assert shot, "no screenshot while the scan was running"
    fetched = [int(f["pages_fetched"]) for f in seen if f["pages_fetched"].isdigit()]
    assert len(set(fetched)) >= 3, fetched  # the figure moved at least twice on the same page
    assert fetched == sorted(fetched)
    assert len({f["pages_fetched"] for f in overview_seen}) >= 3, overview_seen
    assert len({f["elapsed"] for f in seen}) >= 3  # elapsed time ticks

    final, listed = seen[-1], overview_seen[-1]
    with translation.override(language):
        finished_label = str(run.get_status_display())
    assert final["status"] == listed["status"] == finished_label
    assert final["urls_seen"] == listed["urls_seen"] == str(run.urls_seen) == str(PAGES + 2)
    assert final["pages_fetched"] == listed["pages_fetched"] == str(run.pages_fetched)
    assert final["matches"] == listed["matches"] == str(run.matches_found) == "1"
    assert final["finished"] not in ("", "—")
    for page, selector in ((run_page, box), (overview, row)):
        assert page.evaluate("window.__sameDocument") is True  # never reloaded
        assert "finished" in page.get_attribute(f"{selector} [data-field=status]", "class")
        assert page.eval_on_selector("[data-scan-progress]", "el => el.dataset.progressState") \
            == "done"  # polling stopped
    screenshot(run_page, f"scan-progress-finished-{language}")

    run_page.click(f"{box} a[data-field=matches]")  # the scan's link to its matches
    run_page.wait_for_load_state()
    assert run_page.locator("#result_list tbody tr").count() == 1
    assert "/novel/2.html" in run_page.inner_text("#result_list")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_failed_poll_shows_a_message_not_a_broken_page(platform_stores, make_user, open_page,
                                                       browser_login, live_server):
    """A running scan whose endpoint fails (Redis gone from the page's point of view: the
    request is refused by the browser here) keeps its page and says so in words."""
    site = TargetSite.objects.create(name="站", start_urls=["http://127.0.0.1:9/"])
    run = ScanRun.objects.create(site=site)  # running, no frontier: figures read as zeros
    make_user("staff", staff_role=True)
    page = open_page("zh-hans")
    browser_login(page, "staff")
    page.route("**/crawler/scanrun/progress/**", lambda route: route.fulfill(
        status=503, content_type="application/json",
        body='{"error": "进度暂时无法读取：Redis 没有应答。"}'))
    page.goto(f"/crawler/scanrun/{run.pk}/change/")
    message = page.locator("#scan-progress [data-progress-message]")
    message.wait_for(state="visible")
    assert message.inner_text() == "进度暂时无法读取：Redis 没有应答。"
    assert page.locator("#scan-progress dl").is_visible()  # the rest of the page stays
    page.unroute("**/crawler/scanrun/progress/**")
    page.route("**/crawler/scanrun/progress/**", lambda route: route.abort())
    from playwright.sync_api import expect

    expect(message).to_have_text("无法读取进度，正在重试。", timeout=20_000)  # network failure


# -- the JSON endpoint, the scan filter and the audit links, through Django's test client ------

def client_for(user, language="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_progress_endpoint_scopes_matches_and_errors(scenario):
    run = ScanRun.objects.filter(status="finished").get()
    failed = ScanRun.objects.filter(status="failed").get()
    url = f"/crawler/scanrun/progress/?id={run.pk}&id={failed.pk}"

    staff = client_for(scenario.users.staff).get(url).json()["scans"]
    by_id = {s["id"]: s for s in staff}
    assert by_id[run.pk]["matches"] == 3 and by_id[run.pk]["running"] is False
    # a robots.txt refusal is the crawler obeying the site: said apart, not an error
    assert by_id[failed.pk]["errors"] == 2
    assert by_id[failed.pk]["errors_by_kind"] == [["timeout", 2]]
    assert by_id[failed.pk]["errors_in_words"] == "timeout 2"
    assert by_id[failed.pk]["robots_in_words"] == "skipped as robots.txt asks: 1"
    assert by_id[run.pk]["pages_feeds"] == 40  # fetched, none of them new, changed or unchanged

    holder = client_for(scenario.users.holder_b, "zh-hans").get(url).json()["scans"]
    by_id = {s["id"]: s for s in holder}
    assert by_id[run.pk]["matches"] == 1  # its own work's match only, not 3
    assert by_id[failed.pk]["errors"] is None and by_id[failed.pk]["errors_by_kind"] is None
    assert by_id[failed.pk]["errors_in_words"] is None
    assert by_id[failed.pk]["robots_in_words"] is None
    assert by_id[failed.pk]["status_label"] == "失败"

    bad = client_for(scenario.users.staff, "zh-hans").get("/crawler/scanrun/progress/?id=x")
    assert bad.status_code == 400 and bad.json()["error"] == "扫描编号必须是数字。"
    anonymous = Client().get(url)
    assert anonymous.status_code == 302  # to the login page, never figures


def test_scan_links_to_its_matches_and_the_filter_narrows_the_list(scenario):
    run = ScanRun.objects.filter(status="finished").get()
    other = ScanRun.objects.create(site=run.site, status="finished")
    Match.objects.filter(pk=scenario.matches[2].pk).update(first_scan=other, last_scan=other)

    staff = client_for(scenario.users.staff)
    listing = staff.get("/crawler/scanrun/").content.decode()
    assert f'href="/crawler/match/?scan={run.pk}"' in listing
    matches = staff.get(f"/crawler/match/?scan={run.pk}")
    assert sorted(m.pk for m in matches.context["cl"].result_list) == sorted(
        m.pk for m in scenario.matches[:2])
    assert f"scan #{run.pk}" in matches.content.decode()  # the filter says which scan
    holder = client_for(scenario.users.holder_b).get(f"/crawler/match/?scan={other.pk}")
    assert [m.pk for m in holder.context["cl"].result_list] == [scenario.matches[2].pk]
    assert staff.get("/crawler/match/?scan=abc").status_code in (200, 302)  # no server error


def test_audit_rows_link_to_what_the_viewer_may_open(scenario):
    from crawler.review_actions import do_review_match

    novel_match, gone, news_match = scenario.matches
    for match in scenario.matches:
        do_review_match(match, "confirmed", "整段转载", scenario.users.staff)
    Match.objects.filter(pk=gone.pk).delete()  # its audit row stays, with nothing to open

    staff_page = client_for(scenario.users.staff).get("/core/auditevent/").content.decode()
    assert f'href="/crawler/match/{novel_match.pk}/change/"' in staff_page
    assert f'href="/crawler/match/{news_match.pk}/change/"' in staff_page
    assert f"/crawler/match/{gone.pk}/change/" not in staff_page
    assert gone.url in staff_page  # the subject is still named

    holder_page = client_for(scenario.users.holder_a).get("/core/auditevent/").content.decode()
    assert f'href="/crawler/match/{novel_match.pk}/change/"' in holder_page
    assert f"/crawler/match/{news_match.pk}/change/" not in holder_page  # another holder's
    assert AuditEvent.objects.count() == 3


def test_scan_page_is_readable_without_script(scenario):
    run = ScanRun.objects.filter(status="failed").get()
    page = client_for(scenario.users.staff, "zh-hans").get(f"/crawler/scanrun/{run.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-running="0"' in html and "超时 2" in html  # errors in words, not codes
    assert f"的第 {run.pk} 号扫描</h2>" in html  # heading without a status that could go stale
    assert f"#{run.pk} (failed)" not in html  # str(run), in the breadcrumbs before
    assert "dashboard/progress.js" in html
    assert Path(settings.BASE_DIR, "dashboard/static/dashboard/progress.js").exists()
