"""Sites that need a browser: pages rendered in headless Chromium (lib.crawl.render) on loopback.

Text inserted by a script after load and text fetched by XHR reach the page store and the
matches; a request of the page to an address outside CRAWLER_ALLOW_ADDRESSES (127.0.0.2 here,
the allow-list holds 127.0.0.1 only) never leaves the worker and is recorded; robots.txt applies
to the page's own requests; render failures get their outcome. The tests that need Chromium
skip, saying why, where /usr/bin/chromium is absent; the "browser not installed" case runs
everywhere.
"""

import dataclasses
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from lib.crawl.outcomes import Outcome
from lib.crawl.pipeline import Crawler, SiteRules
from lib.crawl.render import Renderer
from tests.browsers import needs_chromium
from tests.scanning import scan

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT_TEXT = "这段正文由页面脚本在加载之后写入，普通下载只能看到一个空壳页面。" * 3
XHR_TEXT = "这段正文由页面通过异步请求从接口取得，再插入到文章区域之中显示。" * 3
SHELL = ("<html><head><title>{title}</title></head><body><div id='nav'>首页 | 书库</div>"
         "<article id='content'>正在加载……</article><script>{script}</script></body></html>")
INSERT = "document.getElementById('content').innerHTML = '<p>' + {text} + '</p>';"


def shell(title: str, script: str) -> str:
    return SHELL.format(title=title, script=script)


@pytest.fixture
def crawler(config, redis_client, mongo_db):
    c = Crawler(dataclasses.replace(config, render_timeout_seconds=10.0, render_settle_seconds=2.0,
                                    read_timeout=2.0),
                redis_client, mongo_db)
    c.ensure_indexes()
    yield c
    c.renderer.close()
    c.fetcher.close()


@pytest.fixture
def other_host(site_on):
    """A server on 127.0.0.2, outside the allow-list: (its base URL, the requests it got)."""
    internal = site_on("127.0.0.2")
    internal.route("/admin", internal.Reply(200, {"Content-Type": "application/json",
                                                  "Access-Control-Allow-Origin": "*"},
                                            b'{"secret": "internal"}'))
    return internal.base, internal.requests


def serve_js_site(site, internal_url: str) -> None:
    pages = ["/script.html", "/xhr.html", "/ssrf.html", "/robots-api.html"]
    site.route("/", site.html("".join(f'<a href="{p}">{p}</a>' for p in pages)))
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"},
                                          b"User-agent: *\nDisallow: /private-api/\n"))
    site.route("/script.html", site.html(shell("脚本写入", INSERT.format(text=json.dumps(SCRIPT_TEXT)))))
    site.route("/api/chapter.json", site.Reply(200, {"Content-Type": "application/json"},
                                               json.dumps({"text": XHR_TEXT}).encode()))
    xhr = ("var x = new XMLHttpRequest(); x.open('GET', '/api/chapter.json');"
           "x.onload = function () { var t = JSON.parse(x.responseText).text;"
           + INSERT.format(text="t") + "}; x.send();")
    site.route("/xhr.html", site.html(shell("异步取得", xhr)))
    steal = (f"fetch('{internal_url}/admin').then(r => r.text()).then(t => "
             "document.getElementById('content').textContent = t).catch(() => {});"
             + INSERT.format(text=json.dumps(SCRIPT_TEXT[:40])))
    site.route("/ssrf.html", site.html(shell("内网请求", steal)))
    site.route("/private-api/x.json", site.Reply(200, {"Content-Type": "application/json"}, b"{}"))
    site.route("/robots-api.html", site.html(shell("禁止接口", "fetch('/private-api/x.json');")))


def scan_site(crawler, scan_driver, site, needs_browser: bool, scan_id: int = 1) -> dict:
    rules = SiteRules("js", ("127.0.0.1",), needs_browser=needs_browser)
    results = scan_driver(crawler, scan_id, rules, [site.url("/")])
    return {url.removeprefix(site.base): r for url, r in results.items()}


@needs_chromium
@pytest.mark.browser
def test_rendered_pages_give_script_and_xhr_text_and_refuse_private_requests(
        crawler, site, scan_driver, other_host):
    internal_url, internal_hits = other_host
    serve_js_site(site, internal_url)

    plain = scan_site(crawler, scan_driver, site, needs_browser=False, scan_id=1)
    assert plain["/script.html"].outcome is Outcome.EXTRACT_FAILED or \
        SCRIPT_TEXT[:20] not in crawler.pages.version(plain["/script.html"].page[1]).text
    assert site.hits("/api/chapter.json") == 0  # requests sees only the shell

    results = scan_site(crawler, scan_driver, site, needs_browser=True, scan_id=2)
    assert {p: r.outcome for p, r in results.items() if p.endswith(".html")} == {
        "/script.html": Outcome.OK, "/xhr.html": Outcome.OK, "/ssrf.html": Outcome.OK,
        "/robots-api.html": Outcome.EXTRACT_FAILED}
    text = {p: crawler.pages.version(crawler.pages.get(site.url(p)).version_id).text
            for p in ("/script.html", "/xhr.html")}
    assert SCRIPT_TEXT[:60] in text["/script.html"]
    assert XHR_TEXT[:60] in text["/xhr.html"] and site.hits("/api/chapter.json") == 1
    assert "正在加载" not in text["/xhr.html"]
    assert "rendered" in crawler.pages.get(site.url("/xhr.html")).encoding

    # the page's request to 127.0.0.2 never left the worker, and the crawl log says so
    assert internal_hits == []
    log = {e["url"].removeprefix(site.base): e for e in crawler.log.entries(2)}
    [(url, reason)] = [(r["url"], r["reason"]) for r in log["/ssrf.html"]["refused"]]
    assert url == f"{internal_url}/admin" and reason.startswith("ssrf_refused") and "loopback" in reason
    # robots.txt holds for the page's own requests too
    [refused] = log["/robots-api.html"]["refused"]
    assert refused["reason"].startswith("robots_disallowed") and site.hits("/private-api/x.json") == 0
    assert "refused" not in log["/xhr.html"]


@needs_chromium
@pytest.mark.browser
def test_render_timeout_and_recovery(config, site):
    renderer = Renderer(dataclasses.replace(config, render_timeout_seconds=2.0,
                                            render_settle_seconds=0.5))
    try:
        hung = renderer.render(site.url("/hang.html"), "<html><body><script>for(;;){}</script></body></html>")
        assert hung.outcome is Outcome.RENDER_TIMEOUT and "2 s" in hung.reason
        ok = renderer.render(site.url("/ok.html"), shell("好", INSERT.format(text='"之后的页面照常渲染"')))
        assert ok.outcome is Outcome.OK and "之后的页面照常渲染" in ok.html
    finally:
        renderer.close()


@needs_chromium
@pytest.mark.browser
def test_a_browser_that_died_is_started_again(config, site):
    renderer = Renderer(dataclasses.replace(config, render_settle_seconds=0.5))
    page = shell("好", INSERT.format(text='"第一页"'))
    try:
        assert renderer.render(site.url("/1.html"), page).outcome is Outcome.OK
        renderer._executor.submit(renderer._browser.close).result()  # as if Chromium had died
        again = renderer.render(site.url("/2.html"), page)
        assert again.outcome is Outcome.OK and "第一页" in again.html
    finally:
        renderer.close()


def test_without_chromium_each_page_says_browser_not_installed(config, site, redis_client, mongo_db,
                                                              scan_driver):
    site.route("/", site.html(shell("页", "")))
    crawler = Crawler(dataclasses.replace(config, chromium_path="/nonexistent/chromium"),
                      redis_client, mongo_db)
    results = scan_site(crawler, scan_driver, site, needs_browser=True)
    result = results["/"]
    assert result.outcome is Outcome.BROWSER_MISSING
    assert result.reason == "browser not installed: no Chromium at /nonexistent/chromium"
    assert Outcome.BROWSER_MISSING.is_error
    assert crawler.log.entries(1)[0]["outcome"] == "browser_missing"


@needs_chromium
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_site_that_needs_a_browser_is_matched_through_the_render_queue(idle_worker, site,
                                                                       platform_stores):
    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.models import Match, TargetSite

    chapter = (FIXTURES / "xiyouji-ch1.txt").read_text(encoding="utf-8")
    holder = RightsHolder.objects.create(name="测试出版社")
    work = Work.objects.create(holder=holder, reference="XYJ-1", title="西游记", author="吴承恩",
                               kind="novel", length=len(chapter), status="indexed",
                               indexed_at=timezone.now())
    get_engine().add_work(work.engine_id, chapter)
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/api/1.json", site.Reply(200, {"Content-Type": "application/json"},
                                         json.dumps({"text": chapter[:3000]}).encode()))
    site.route("/book/1.html", site.html(shell("西游记 第一回", (
        "fetch('/api/1.json').then(r => r.json()).then(j => "
        "document.getElementById('content').textContent = j.text);"))))

    out = io.StringIO()
    call_command("add_site", "脚本站", site.url("/"), "--delay", "0", "--browser", stdout=out)
    assert TargetSite.objects.get(pk=int(out.getvalue())).needs_browser
    result = scan("脚本站")
    assert result["status"] == "finished" and result["matches_new"] == 1, result
    assert result["stage_seconds"]["render"] > 0
    match = Match.objects.get()
    assert match.work == work and match.url == site.url("/book/1.html")
