"""One fetch against a real loopback server (lib.crawl.fetch): every limit gives its named outcome."""

import dataclasses
import socket

import pytest

from lib.crawl.config import CrawlConfig
from lib.crawl.fetch import Fetcher, parse_retry_after, retry_delay
from lib.crawl.outcomes import Outcome


@pytest.fixture
def fetcher(config):
    f = Fetcher(config)
    yield f
    f.close()


def test_ok_page_keeps_validators_and_sends_our_user_agent(site, fetcher, config):
    site.route("/a", site.html("<p>你好</p>", ETag='"v1"', **{"Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT"}))
    result = fetcher.fetch(site.url("/a"))
    assert result.outcome is Outcome.OK and result.kind == "html" and result.status == 200
    assert result.body == "<p>你好</p>".encode()
    assert result.validators == {"etag": '"v1"', "last_modified": "Wed, 01 Jan 2025 00:00:00 GMT"}
    assert site.requests[0][1]["User-Agent"] == config.user_agent
    assert config.contact_url in config.user_agent


def test_404_is_client_error_without_retry(site, fetcher, config):
    result = fetcher.fetch(site.url("/missing"))
    assert (result.outcome, result.status) == (Outcome.CLIENT_ERROR, 404)
    assert retry_delay(result, 0, config) is None


def test_500_is_retryable_with_growing_backoff_until_max_retries(site, fetcher, config):
    site.route("/err", site.Reply(500, {}, b"oops"))
    result = fetcher.fetch(site.url("/err"))
    assert result.outcome is Outcome.SERVER_ERROR
    first, second = retry_delay(result, 0, config), retry_delay(result, 1, config)
    assert 0 < first < second
    assert retry_delay(result, config.max_retries, config) is None


def test_429_honours_retry_after(site, fetcher, config):
    site.route("/busy", site.Reply(429, {"Retry-After": "3"}, b""))
    result = fetcher.fetch(site.url("/busy"))
    assert (result.outcome, result.retry_after) == (Outcome.RATE_LIMITED, 3.0)
    assert retry_delay(result, 0, config) == 3.0
    site.route("/busy", site.Reply(429, {"Retry-After": "86400"}, b""))
    assert retry_delay(fetcher.fetch(site.url("/busy")), 0, config) is None  # would come back too soon


def test_retry_after_http_date():
    from datetime import UTC, datetime
    now = datetime(2025, 1, 1, 0, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 01 Jan 2025 00:00:30 GMT", now) == 30.0
    assert parse_retry_after("soon") is None


def test_response_slower_than_read_timeout(site, fetcher):
    site.route("/slow", site.Reply(200, {"Content-Type": "text/html"}, b"<p>late</p>", delay=2.0))
    result = fetcher.fetch(site.url("/slow"))
    assert result.outcome is Outcome.TIMEOUT and result.outcome.retryable


def test_body_that_drips_past_the_total_time_limit(site, config):
    fetcher = Fetcher(dataclasses.replace(config, max_fetch_seconds=0.5))
    site.route("/drip", site.Reply(200, {"Content-Type": "text/html"}, b"x" * 40, chunk=4, chunk_delay=0.2))
    result = fetcher.fetch(site.url("/drip"))
    assert result.outcome is Outcome.TIMEOUT and "download over" in result.reason


def test_body_larger_than_limit_declared_or_streamed(site, fetcher, config):
    big = b"<p>" + b"x" * (config.max_body_bytes + 10) + b"</p>"
    site.route("/big", site.Reply(200, {"Content-Type": "text/html"}, big))
    result = fetcher.fetch(site.url("/big"))
    assert result.outcome is Outcome.TOO_LARGE and "Content-Length" in result.reason
    site.route("/big2", site.Reply(200, {"Content-Type": "text/html", "Content-Length": None,
                                         "Connection": "close"}, big, chunk=8192))
    result = fetcher.fetch(site.url("/big2"))
    assert result.outcome is Outcome.TOO_LARGE and result.reason.startswith("body over")
    assert result.body == b""


def test_pdf_is_refused_by_content_type(site, fetcher):
    site.route("/doc.pdf", site.Reply(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4 ..."))
    result = fetcher.fetch(site.url("/doc.pdf"))
    assert result.outcome is Outcome.CONTENT_TYPE and "application/pdf" in result.reason


def test_redirect_loop_and_too_many_redirects(site, fetcher):
    site.route("/a", site.Reply(302, {"Location": "/b"}))
    site.route("/b", site.Reply(301, {"Location": "/a?utm_source=loop"}))
    result = fetcher.fetch(site.url("/a"))
    assert result.outcome is Outcome.REDIRECT_LOOP
    for i in range(6):
        site.route(f"/r{i}", site.Reply(302, {"Location": f"/r{i + 1}"}))
    result = fetcher.fetch(site.url("/r0"))
    assert result.outcome is Outcome.TOO_MANY_REDIRECTS and len(result.redirects) == 4


def test_redirect_is_followed_to_final_url(site, fetcher):
    site.route("/old", site.Reply(301, {"Location": "/new"}))
    site.route("/new", site.html("<p>moved</p>"))
    result = fetcher.fetch(site.url("/old"))
    assert result.outcome is Outcome.OK and result.final_url == site.url("/new")


def test_redirect_to_private_address_is_refused_before_connecting(site, fetcher):
    site.route("/go", site.Reply(302, {"Location": "http://169.254.169.254/latest/meta-data/"}))
    result = fetcher.fetch(site.url("/go"))
    assert result.outcome is Outcome.SSRF_REFUSED and "link_local" in result.reason
    site.route("/go2", site.Reply(302, {"Location": "http://10.0.0.7:8080/admin"}))
    assert fetcher.fetch(site.url("/go2")).outcome is Outcome.SSRF_REFUSED


def test_loopback_is_refused_without_allow_list(site):
    site.route("/", site.html("<p>internal</p>"))
    result = Fetcher(CrawlConfig()).fetch(site.url("/"))
    assert result.outcome is Outcome.SSRF_REFUSED and "loopback" in result.reason
    assert site.hits("/") == 0


def test_conditional_get_gives_not_modified(site, fetcher):
    def page(handler):
        if handler.headers.get("If-None-Match") == '"v7"':
            return site.Reply(304, {"ETag": '"v7"'})
        return site.html("<p>body</p>", ETag='"v7"')

    site.route("/c", page)
    first = fetcher.fetch(site.url("/c"))
    second = fetcher.fetch(site.url("/c"), etag=first.validators["etag"])
    assert (first.outcome, second.outcome) == (Outcome.OK, Outcome.NOT_MODIFIED)
    assert second.body == b""


def test_closed_port_is_a_connection_error(fetcher):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    result = fetcher.fetch(f"http://127.0.0.1:{port}/")
    assert result.outcome is Outcome.CONNECTION_ERROR and result.outcome.retryable


def test_check_hop_refusal_stops_before_the_target_is_requested(site, fetcher):
    site.route("/from", site.Reply(302, {"Location": "/to?utm_source=x"}))
    site.route("/to", site.html("<p>target</p>"))
    asked = []

    def refuse(url):
        asked.append(url)
        return Outcome.REDIRECT_OUT_OF_SCOPE, "no"

    result = fetcher.fetch(site.url("/from"), check_hop=refuse)
    assert (result.outcome, result.reason, result.status) == (Outcome.REDIRECT_OUT_OF_SCOPE, "no", 302)
    assert asked == [site.url("/to")]  # canonical: tracking argument dropped
    assert site.hits("/from") == 1 and not any(p.startswith("/to") for p, _ in site.requests)
    result = fetcher.fetch(site.url("/from"), check_hop=lambda url: None)
    assert result.outcome is Outcome.OK and result.body == b"<p>target</p>"
