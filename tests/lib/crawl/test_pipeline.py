"""Whole scans of a loopback site through lib.crawl.pipeline (no Celery): each case ends in its
recorded outcome in the crawl log, pages land in the page store, a second scan uses 304s."""

import dataclasses
from pathlib import Path

import pytest

from lib.crawl.outcomes import Outcome
from lib.crawl.pipeline import Crawler, SiteRules, UrlTask

FIXTURES = Path(__file__).parents[2] / "crawler" / "fixtures"
ARTICLE = "<html><head><title>{t}</title></head><body><article><h1>{t}</h1><p>{p}</p></article></body></html>"
PARA = "这是一篇用于测试的新闻正文，记者从有关部门获悉，相关工作正在有序推进之中。" * 3
GBK_TEXT = "朱镕基总理昨日在北京会见了来访的客人，王堃先生介绍了当地的经济发展情况。" * 4


def article(title, para=PARA):
    return ARTICLE.format(t=title, p=para)


@pytest.fixture
def crawler(config, redis_client, mongo_db):
    c = Crawler(config, redis_client, mongo_db)
    c.ensure_indexes()
    yield c
    c.fetcher.close()


def build_site(site):
    links = ["/news/1.html?utm_source=wx&spm=a.b", "/news/1.html?from=timeline#comments", "/news/1.html",
             "/private/secret.html", "/calendar/2025/01/", "/flaky.html", "/busy.html", "/gbk.html",
             "/big5.html", "/doc.pdf", "/gone.html", "/loop.html", "/evil.html", "/slow.html",
             "/big.html", "/feed.xml", "/sitemap.xml", "/empty.html", "mailto:x@y.cn"]
    index = "<html><body>" + "".join(f'<a href="{u}">link</a>' for u in links) + "</body></html>"
    site.route("/", site.html(index))
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, (
        f"User-agent: *\nDisallow: /private/\nSitemap: {site.url('/robots-sitemap.xml')}\n").encode()))
    site.route("/robots-sitemap.xml", site.Reply(200, {"Content-Type": "application/xml"}, (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f'<url><loc>{site.url("/news/4.html")}</loc></url></urlset>').encode()))
    site.route("/news/4.html", site.html(article("新闻四")))
    site.route("/news/1.html", lambda h: site.Reply(304, {"ETag": '"n1"'})
               if h.headers.get("If-None-Match") == '"n1"' else site.html(article("新闻一"), ETag='"n1"'))
    site.route("/news/2.html", site.html(article("新闻二")))
    site.route("/news/3.html", site.html(article("新闻三")))
    site.route("/private/secret.html", site.html(article("秘密")))
    site.route("/calendar/2025/01/", site.html('<a href="/calendar/2025/02/">next</a>'))
    flaky = iter([site.Reply(500, {}, b"")])
    site.route("/flaky.html", lambda h: next(flaky, None) or site.html(article("稳定")))
    busy = iter([site.Reply(429, {"Retry-After": "1"}, b"")])
    site.route("/busy.html", lambda h: next(busy, None) or site.html(article("繁忙")))
    site.route("/gbk.html", site.Reply(200, {"Content-Type": "text/html"},
                                       article("国标", GBK_TEXT).encode("gbk")))
    site.route("/big5.html", site.Reply(200, {"Content-Type": "text/html"},
                                        (FIXTURES / "big5_no_charset.html").read_bytes()))
    site.route("/doc.pdf", site.Reply(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4"))
    site.route("/loop.html", site.Reply(302, {"Location": "/loop2.html"}))
    site.route("/loop2.html", site.Reply(302, {"Location": "/loop.html"}))
    site.route("/evil.html", site.Reply(302, {"Location": "http://10.0.0.1/admin"}))
    site.route("/slow.html", site.Reply(200, {"Content-Type": "text/html"}, b"<p>x</p>", delay=1.0))
    site.route("/big.html", site.Reply(200, {"Content-Type": "text/html"}, b"<p>" + b"x" * 100_000))
    site.route("/empty.html", site.html("<html><body><div></div></body></html>"))
    site.route("/feed.xml", site.Reply(200, {"Content-Type": "application/rss+xml"}, (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>'
        f'<item><link>{site.url("/news/2.html")}</link></item></channel></rss>').encode()))
    site.route("/sitemap.xml", site.Reply(200, {"Content-Type": "application/xml"}, (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f'<url><loc>{site.url("/news/3.html")}</loc></url></urlset>').encode()))


def rules_for(site, **kw):
    return SiteRules(site_id=1, allowed_domains=("127.0.0.1",), **kw)


def test_scan_records_a_specific_outcome_for_every_case(site, crawler, scan_driver):
    build_site(site)
    results = scan_driver(crawler, 101, rules_for(site), [site.url("/")])
    log = {e["url"].removeprefix(site.base): e for e in crawler.log.entries(101)}
    expected = {
        "/": "ok", "/news/1.html": "ok", "/news/2.html": "ok", "/news/3.html": "ok",
        "/private/secret.html": "robots_disallowed", "/calendar/2025/01/": "trap",
        "/flaky.html": "ok", "/busy.html": "ok", "/gbk.html": "ok", "/big5.html": "ok",
        "/doc.pdf": "content_type", "/gone.html": "client_error", "/loop.html": "redirect_loop",
        "/evil.html": "ssrf_refused", "/slow.html": "timeout", "/big.html": "too_large",
        "/feed.xml": "ok", "/sitemap.xml": "ok", "/empty.html": "extract_failed",
        "/robots-sitemap.xml": "ok", "/news/4.html": "ok",  # found through robots.txt
    }
    assert {u: e["outcome"] for u, e in log.items()} == expected
    assert log["/flaky.html"]["attempts"] == 2 and log["/busy.html"]["attempts"] == 2
    assert log["/gone.html"]["attempts"] == 1  # no retry on 4xx
    assert log["/slow.html"]["attempts"] == 3  # first try + max_retries
    assert site.hits("/news/1.html") == 1  # three spellings, one fetch
    assert site.hits("/private/secret.html") == 0 and site.hits("/calendar/2025/01/") == 0
    assert not any(p.startswith("/calendar") for p, _ in site.requests)
    gbk = crawler.pages.get(site.url("/gbk.html"))
    assert GBK_TEXT[:30] in crawler.pages.version(gbk.version_id).text
    assert gbk.encoding == "gb18030 (detected)"
    big5 = crawler.pages.get(site.url("/big5.html"))
    assert "台北看守所" in crawler.pages.version(big5.version_id).text
    assert results[site.url("/news/1.html")].match is not None
    stats = crawler.frontier(101).state().stats
    assert stats["outcome:ok"] == 12 and stats["retries"] >= 4


def test_second_scan_uses_304_and_hashes_and_still_follows_links(site, crawler, scan_driver):
    build_site(site)
    scan_driver(crawler, 1, rules_for(site), [site.url("/")])
    site.route("/news/2.html", site.html(article("新闻二", "改过的正文，内容已经发生了变化，需要重新比对。" * 3)))
    results = scan_driver(crawler, 2, rules_for(site), [site.url("/")])
    assert results[site.url("/news/1.html")].outcome is Outcome.NOT_MODIFIED
    assert results[site.url("/news/1.html")].match is None
    assert results[site.url("/news/3.html")].outcome is Outcome.UNCHANGED
    changed = results[site.url("/news/2.html")]
    assert changed.change == "changed" and changed.match is not None
    page = crawler.pages.get(site.url("/news/2.html"))
    assert page.versions == 2


def test_pages_fetched_add_up_to_new_changed_unchanged_and_feeds(site, crawler, scan_driver):
    build_site(site)
    feeds = 3  # /feed.xml, /sitemap.xml and the sitemap named in robots.txt
    for scan_id in (61, 62):  # the second scan gets 304s and unchanged hashes
        scan_driver(crawler, scan_id, rules_for(site), [site.url("/")])
        stats = crawler.frontier(scan_id).state().stats
        read = sum(stats.get(f"pages_{kind}", 0) for kind in ("new", "changed", "unchanged"))
        assert stats["pages_fetched"] == read + feeds, stats
    assert stats["outcome:not_modified"] >= 1 and stats["pages_unchanged"] >= 10


def test_crawl_delay_defers_the_second_fetch_to_a_reserved_slot(site, crawler):
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"},
                                         b"User-agent: *\nCrawl-delay: 30\n"))
    site.route("/a.html", site.html(article("甲")))
    site.route("/b.html", site.html(article("乙")))
    rules = rules_for(site, delay_seconds=0)
    crawler.frontier(5).open(10, 1)
    first = crawler.step(5, rules, UrlTask(site.url("/a.html")))
    second = crawler.step(5, rules, UrlTask(site.url("/b.html")))
    assert first.outcome is Outcome.OK
    assert second.outcome is None and second.next_task.reserved and 20 < second.defer <= 30
    assert site.hits("/b.html") == 0
    third = crawler.step(5, rules, second.next_task)  # the reserved slot: no second asking
    assert third.outcome is Outcome.OK


def test_out_of_scope_start_url_and_path_patterns(site, crawler, scan_driver):
    site.route("/", site.html('<a href="/news/1.html">n</a><a href="/ads/1.html">ad</a>'
                              '<a href="http://example.com/x">ext</a>'))
    site.route("/news/1.html", site.html(article("新闻一")))
    rules = rules_for(site, path_patterns=(r"^/$", r"^/news/"))
    scan_driver(crawler, 7, rules, [site.url("/"), "http://elsewhere.example/", "not a url"])
    outcomes = {e["url"]: e["outcome"] for e in crawler.log.entries(7)}
    assert outcomes["http://elsewhere.example/"] == "out_of_scope"
    assert outcomes["not a url"] == "invalid_url"
    assert site.hits("/ads/1.html") == 0 and site.hits("/news/1.html") == 1


def test_cancelled_scan_stops_fetching(site, crawler):
    site.route("/a.html", site.html(article("甲")))
    crawler.frontier(8).open(10, 1)
    crawler.frontier(8).cancel()
    assert crawler.step(8, rules_for(site), UrlTask(site.url("/a.html"))).outcome is Outcome.CANCELLED
    assert site.hits("/a.html") == 0


def redirect_site(site):
    """Pages that redirect: into robots.txt's /private/, off the allowed domains (to localhost,
    the same server under another host name), within the site, and to a linked page."""
    def robots(h):
        # the same server as http://localhost:port has its own robots.txt: only /local-only/ is off
        off = "/local-only/" if h.headers.get("Host", "").startswith("localhost") else "/private/"
        return site.Reply(200, {"Content-Type": "text/plain"}, f"User-agent: *\nDisallow: {off}\n".encode())

    port = site.base.rsplit(":", 1)[1]
    site.route("/robots.txt", robots)
    site.route("/", site.html("".join(f'<a href="{u}">x</a>' for u in (
        "/to-private.html", "/to-other-domain.html", "/moved.html", "/old.html", "/news/new.html",
        "/to-local-only.html"))))
    site.route("/to-private.html", site.Reply(302, {"Location": "/private/secret.html"}))
    site.route("/private/secret.html", site.html(article("秘密")))
    site.route("/to-other-domain.html", site.Reply(301, {"Location": f"http://localhost:{port}/news/x.html"}))
    site.route("/news/x.html", site.html(article("别处")))
    site.route("/moved.html", site.Reply(301, {"Location": "/news/target.html?utm_source=wx#top"}))
    site.route("/news/target.html", site.html(article("搬家后的新闻")))
    site.route("/old.html", site.Reply(302, {"Location": "/news/new.html"}))
    site.route("/news/new.html", site.html(article("新的新闻")))
    site.route("/to-local-only.html", site.Reply(302, {"Location": f"http://localhost:{port}/local-only/p.html"}))
    site.route("/local-only/p.html", site.html(article("本地")))


@pytest.fixture
def loopback_crawler(config, redis_client, mongo_db):
    """A Crawler whose SSRF guard also lets ::1 through, so that "localhost" reaches the test
    server whichever address it resolves to (its redirects must be refused by scope, not SSRF)."""
    c = Crawler(dataclasses.replace(config, allow_addresses=("127.0.0.1", "::1")), redis_client, mongo_db)
    c.ensure_indexes()
    yield c
    c.fetcher.close()


def test_redirect_hops_pass_the_admission_checks_of_a_link(site, loopback_crawler, scan_driver):
    crawler = loopback_crawler
    redirect_site(site)
    scan_driver(crawler, 31, rules_for(site), [site.url("/")])
    log = {e["url"].removeprefix(site.base): e for e in crawler.log.entries(31)}
    assert log["/to-private.html"]["outcome"] == "redirect_robots_disallowed"
    assert site.hits("/private/secret.html") == 0
    assert log["/to-other-domain.html"]["outcome"] == "redirect_out_of_scope"
    assert "localhost" in log["/to-other-domain.html"]["reason"]
    assert site.hits("/news/x.html") == 0
    # the hop may not leave the allowed domains even though the server is the same
    assert log["/to-local-only.html"]["outcome"] == "redirect_out_of_scope"
    assert not any("localhost" in u for u in log)  # refused hops are not crawled as URLs
    assert crawler.frontier(31).state().stats["outcome:redirect_out_of_scope"] == 2


def test_redirect_uses_the_robots_txt_of_the_target_host(site, loopback_crawler):
    crawler = loopback_crawler
    redirect_site(site)
    rules = SiteRules(site_id=1, allowed_domains=("127.0.0.1", "localhost"))
    crawler.frontier(32).open(10, 1)
    result = crawler.step(32, rules, UrlTask(site.url("/to-local-only.html")))
    assert result.outcome is Outcome.REDIRECT_ROBOTS_DISALLOWED
    assert site.hits("/local-only/p.html") == 0
    result = crawler.step(32, rules, UrlTask(site.url("/to-other-domain.html")))
    assert result.outcome is Outcome.OK  # allowed by localhost's robots.txt
    assert result.final_url == site.url("/news/x.html").replace("127.0.0.1", "localhost")


def test_redirect_within_the_site_stores_the_page_once_under_its_final_url(site, crawler, scan_driver):
    redirect_site(site)
    for scan in (33, 34):  # the second scan finds the same page unchanged, still one document
        results = scan_driver(crawler, scan, rules_for(site), [site.url("/")])
        moved = results[site.url("/moved.html")]
        assert moved.final_url == site.url("/news/target.html")
        page = crawler.pages.get(site.url("/news/target.html"))
        assert page.url == site.url("/moved.html")
        assert page.final_url == site.url("/news/target.html?utm_source=wx#top")  # exactly as redirected
        assert moved.page[0] == page.id
        # linked directly and through /old.html: one fetch, one document under its own URL
        assert results[site.url("/old.html")].outcome is Outcome.REDIRECT_SEEN
        assert site.hits("/news/new.html") == scan - 32
    assert moved.outcome is Outcome.UNCHANGED
    assert crawler.pages.get(site.url("/moved.html")) is None and crawler.pages.get(site.url("/old.html")) is None
    assert crawler.pages.pages.count_documents({"canonical_url": site.url("/news/target.html")}) == 1
    assert crawler.pages.versions.count_documents({"canonical_url": site.url("/news/target.html")}) == 1
    assert crawler.pages.pages.count_documents({"url": site.url("/news/new.html")}) == 1
    errors = {e["outcome"] for e in crawler.log.entries(34)}
    assert "redirect_seen" in errors and not Outcome.REDIRECT_SEEN.is_error


def test_conditional_get_after_a_redirect(site, crawler, scan_driver):
    """The next scan asks for the URL it knows, follows the redirect and sends the validators of
    the page stored under the final URL: a 304, no second download, the same page."""
    site.route("/", site.html('<a href="/chapter/1.html">1</a>'))
    site.route("/chapter/1.html", site.Reply(301, {"Location": "/book/1/1.html"}))
    site.route("/book/1/1.html", lambda h: site.Reply(304, {"ETag": '"c1"'})
               if h.headers.get("If-None-Match") == '"c1"' else site.html(article("第一章"), ETag='"c1"'))
    first = scan_driver(crawler, 41, rules_for(site), [site.url("/")])[site.url("/chapter/1.html")]
    assert first.outcome is Outcome.OK and first.final_url == site.url("/book/1/1.html")
    second = scan_driver(crawler, 42, rules_for(site), [site.url("/")])[site.url("/chapter/1.html")]
    assert second.outcome is Outcome.NOT_MODIFIED and second.page == first.page
    sent = [h for p, h in site.requests if p == "/book/1/1.html"]
    assert len(sent) == 2 and sent[1].get("If-None-Match") == '"c1"'
    assert crawler.pages.pages.count_documents({}) == 2  # the index and the chapter, once each
    assert crawler.pages.lookup(site.url("/chapter/1.html")).canonical_url == site.url("/book/1/1.html")
    assert crawler.frontier(42).state().stats["outcome:not_modified"] == 1


def test_a_site_on_a_refused_address_counts_ssrf_refusals_not_robots_txt(site, config,
                                                                         redis_client, mongo_db,
                                                                         scan_driver):
    """No address allowed: robots.txt and the pages are refused by our SSRF guard, without a
    request; the scan says so, not "forbidden by robots.txt"."""
    build_site(site)
    strict = Crawler(dataclasses.replace(config, allow_addresses=()), redis_client, mongo_db)
    strict.ensure_indexes()
    try:
        scan_driver(strict, 41, rules_for(site), [site.url("/"), site.url("/news/1.html")])
        outcomes = {e["url"].removeprefix(site.base): e["outcome"]
                    for e in strict.log.entries(41)}
    finally:
        strict.fetcher.close()
    assert outcomes == {"/": "ssrf_refused", "/news/1.html": "ssrf_refused"}
    assert site.requests == []
