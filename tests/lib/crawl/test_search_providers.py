"""The search providers (lib.crawl.search.providers) against loopback servers speaking each
provider's documented format: requests carry the key where the provider wants it, results come
back in order; 429 with Retry-After is waited out and retried, a provider down is retried then
reported, a refused key is reported at once, garbage is named; the configuration's parser."""

import json
import time

import pytest

from lib.crawl.search.providers import Provider, SearchError, parse_providers, search_with_retries


def _json(site, body, status=200, **headers):
    return site.Reply(status, {"Content-Type": "application/json", **headers},
                      json.dumps(body).encode())


def test_each_provider_reads_its_documented_answer(site):
    site.route("/search", _json(site, {"results": [
        {"url": "http://a.example/1", "title": "A", "content": "甲"},
        {"url": "http://b.example/2", "title": "B", "content": "乙"}]}))
    site.route("/brave", _json(site, {"web": {"results": [
        {"url": "http://c.example/", "title": "C", "description": "丙"}]}}))
    site.route("/serpapi", _json(site, {"organic_results": [
        {"link": "http://d.example/", "title": "D", "snippet": "丁"}]}))
    site.route("/cse", _json(site, {"items": [{"link": "http://e.example/", "title": "E"}]}))
    env = {"TRACKER_SEARCH_BRAVE_KEY": "bk", "TRACKER_SEARCH_SERPAPI_KEY": "sk",
           "TRACKER_SEARCH_GOOGLE_CSE_KEY": "gk", "TRACKER_SEARCH_GOOGLE_CSE_CX": "cx1"}
    searx, brave, serp, cse = parse_providers(
        f"searxng={site.base}, brave={site.base}/brave, serpapi={site.base}/serpapi?engine=bing,"
        f"google_cse={site.base}/cse", env)
    results = searx.search("石猴出世", 10)
    assert [(r.url, r.rank, r.snippet) for r in results] == [
        ("http://a.example/1", 1, "甲"), ("http://b.example/2", 2, "乙")]
    assert brave.search("石猴出世", 10)[0].snippet == "丙"
    assert serp.name == "serpapi:bing" and serp.search("石猴出世", 10)[0].url == "http://d.example/"
    assert cse.search("石猴出世", 10)[0].url == "http://e.example/"
    paths = [p for p, _ in site.requests]
    assert "format=json" in paths[0] and "%22" in paths[0]  # the phrase in double quotes
    assert site.requests[1][1]["X-Subscription-Token"] == "bk"
    assert "engine=bing" in paths[2] and "api_key=sk" in paths[2]
    assert "key=gk" in paths[3] and "cx=cx1" in paths[3]


def test_429_with_retry_after_is_waited_out_then_answered(site):
    answers = iter([_json(site, {}, 429, **{"Retry-After": "1"}),
                    _json(site, {"results": [{"url": "http://a.example/"}]})])
    site.route("/search", lambda handler: next(answers))
    started = time.monotonic()
    results, made = search_with_retries(Provider("searxng", site.base), "石猴出世", 10,
                                        retries=3, base_seconds=0.01, max_seconds=5)
    assert made == 2 and [r.url for r in results] == ["http://a.example/"]
    assert time.monotonic() - started >= 1.0  # the provider's Retry-After, not the backoff


def test_brave_rate_limit_reset_header_is_honoured(site):
    answers = iter([_json(site, {}, 429, **{"X-RateLimit-Reset": "1, 1000"}),
                    _json(site, {"web": {"results": []}})])
    site.route("/brave", lambda handler: next(answers))
    provider = parse_providers(f"brave={site.base}/brave", {"TRACKER_SEARCH_BRAVE_KEY": "k"})[0]
    started = time.monotonic()
    assert search_with_retries(provider, "石猴", 10, 2, 0.01, 5) == ([], 2)
    assert time.monotonic() - started >= 1.0


def test_a_provider_down_is_retried_then_reported():
    provider = Provider("searxng", "http://127.0.0.1:9", timeout=1)  # discard port: refused
    with pytest.raises(SearchError) as caught:
        search_with_retries(provider, "石猴", 10, 2, 0.01, 0.05)
    assert caught.value.kind == "unavailable" and caught.value.attempts == 3


def test_a_refused_key_is_not_retried(site):
    site.route("/brave", _json(site, {"error": "invalid token"}, 401))
    provider = parse_providers(f"brave={site.base}/brave", {"TRACKER_SEARCH_BRAVE_KEY": "bad"})[0]
    with pytest.raises(SearchError) as caught:
        search_with_retries(provider, "石猴", 10, 3, 0.01, 0.05)
    assert caught.value.kind == "refused" and caught.value.attempts == 1
    assert site.hits("/brave") == 0 and len(site.requests) == 1


def test_a_google_quota_403_is_a_rate_limit_and_garbage_is_named(site):
    site.route("/cse", _json(site, {"error": {"errors": [{"reason": "dailyLimitExceeded"}]}}, 403))
    site.route("/search", site.html("<html>not json</html>"))
    cse = Provider("google_cse", site.base + "/cse", "k", {"cx": "c"})
    with pytest.raises(SearchError) as quota:
        cse.search("石猴", 10)
    assert quota.value.kind == "rate_limited"
    with pytest.raises(SearchError) as garbage:
        Provider("searxng", site.base).search("石猴", 10)
    assert garbage.value.kind == "garbage" and garbage.value.retryable


def test_the_configuration_names_what_is_missing():
    providers = parse_providers("searxng=http://127.0.0.1:8888,brave=https://api.search.brave"
                                ".com/res/v1/web/search,serpapi=https://serpapi.com/search", {})
    assert [p.name for p in providers] == ["searxng", "brave", "serpapi:baidu"]
    assert [p.disabled for p in providers] == [
        "", "no key: set TRACKER_SEARCH_BRAVE_KEY", "no key: set TRACKER_SEARCH_SERPAPI_KEY"]
    for bad in ("bing=https://x", "searxng", "serpapi=https://serpapi.com/search?engine=yandex"):
        with pytest.raises(ValueError):
            parse_providers(bad, {})
    assert parse_providers(" , ", {}) == []
