"""Canonical URLs and trap defence (lib.crawl.canonical)."""

import datetime

import pytest

from lib.crawl.canonical import InvalidURL, canonical_url, in_domains, origin_of, trap_reason


def test_canonical_drops_fragment_tracking_and_default_port_and_sorts_query():
    a = canonical_url("HTTP://News.Example.COM:80/a/b.html?z=1&utm_source=wx&a=2&spm=c.d#top")
    b = canonical_url("http://news.example.com/a/b.html?a=2&z=1&from=timeline")
    assert a == b == "http://news.example.com/a/b.html?a=2&z=1"


def test_canonical_removes_session_ids_in_path_and_query():
    assert canonical_url("http://x.cn/p;jsessionid=ABC123?id=5&PHPSESSID=9") == "http://x.cn/p?id=5"


def test_canonical_resolves_relative_links_and_keeps_other_ports():
    assert canonical_url("../c/d.html", base="https://x.cn:8443/a/b/") == "https://x.cn:8443/a/c/d.html"


def test_canonical_percent_encodes_chinese_paths_once():
    once = canonical_url("http://x.cn/新闻/一.html")
    assert once == canonical_url(once)
    assert "%E6%96%B0%E9%97%BB" in once


@pytest.mark.parametrize("bad", ["", "   ", "mailto:a@b.cn", "javascript:void(0)", "ftp://x.cn/a",
                                 "http:///nohost", "http://x.cn:99999/"])
def test_canonical_rejects_uncrawlable_urls_with_reason(bad):
    with pytest.raises(InvalidURL):
        canonical_url(bad)


def test_domains_and_origin():
    assert in_domains("http://m.news.example.com/a", ["example.com"])
    assert not in_domains("http://badexample.com/a", ["example.com"])
    assert not in_domains("http://example.com/a", [])
    assert origin_of("http://Example.com:8080/a?b") == "http://example.com:8080"


@pytest.mark.parametrize("url,reason", [
    ("http://x.cn/calendar/2024/05/", "calendar"),
    ("http://x.cn/events?month=2024-06", "calendar"),
    ("http://x.cn/archive/2999/01/", "calendar"),
    ("http://x.cn/archive/1970-01/", "calendar"),
    ("http://x.cn/a/b/a/b/a/b/a.html", "repeating_segments"),
    ("http://x.cn/" + "/".join(f"d{i}" for i in range(20)), "path_too_deep"),
    ("http://x.cn/a?q=" + "x" * 3000, "url_too_long"),
    ("http://x.cn/list?sid=abcdef", "session_id"),
])
def test_traps_are_named(url, reason):
    assert trap_reason(url).reason == reason


def test_ordinary_dated_article_is_not_a_trap():
    year = datetime.date.today().year
    assert not trap_reason(f"http://x.cn/news/{year}/05/17/123.html")
    assert not trap_reason("http://x.cn/a/b/c.html?page=2")
