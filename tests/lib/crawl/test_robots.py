"""robots.txt (lib.crawl.robots): rules, Crawl-delay, shared Redis cache, RFC 9309 error handling."""

import dataclasses
import time

import pytest

from lib.crawl.fetch import Fetcher
from lib.crawl.robots import UNREACHABLE_TTL_SECONDS, RobotsCache

ROBOTS = b"""User-agent: *
Disallow: /private/
Crawl-delay: 3

User-agent: OtherBot
Disallow: /
"""


@pytest.fixture
def robots(config, redis_client):
    fetcher = Fetcher(config)
    yield RobotsCache(redis_client, fetcher, config.robots_agent, config.robots_ttl_seconds)
    fetcher.close()


def test_rules_and_crawl_delay(site, robots):
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, ROBOTS))
    policy = robots.policy(site.url("/news/1.html"))
    assert policy.allowed(site.url("/news/1.html"))
    assert not policy.allowed(site.url("/private/a.html"))
    assert policy.crawl_delay == 3.0


def test_cached_in_redis_for_every_worker(site, robots, config, redis_client):
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, ROBOTS))
    robots.policy(site.url("/a"))
    other_worker = RobotsCache(redis_client, Fetcher(config), config.robots_agent, 60)
    assert not other_worker.policy(site.url("/private/x")).allowed(site.url("/private/x"))
    assert site.hits("/robots.txt") == 1
    ttl = redis_client.ttl(f"crawl:robots:{site.base}")
    assert 0 < ttl <= config.robots_ttl_seconds


def test_missing_robots_allows_everything(site, robots):
    policy = robots.policy(site.url("/x"))  # the test server answers 404
    assert policy.mode == "allow_all" and policy.allowed(site.url("/anything"))
    assert policy.crawl_delay is None


def test_server_error_disallows_everything_briefly(site, robots, redis_client):
    site.route("/robots.txt", site.Reply(503, {}, b""))
    policy = robots.policy(site.url("/x"))
    assert policy.mode == "disallow_all" and not policy.allowed(site.url("/x"))
    assert redis_client.ttl(f"crawl:robots:{site.base}") <= UNREACHABLE_TTL_SECONDS


def test_a_robots_txt_refused_by_our_ssrf_guard_is_not_cached(site, config, redis_client):
    """Loopback not yet allowed: the refusal is ours, not the site's; once the configuration
    allows it, the site's own robots.txt applies at once (no day-long "disallow all")."""
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, ROBOTS))
    strict = dataclasses.replace(config, allow_addresses=())
    refused = RobotsCache(redis_client, Fetcher(strict), config.robots_agent, 3600, 60, 10)
    policy = refused.policy(site.url("/private/a.html"))
    # robots.txt blocks nothing: the page's own fetch is refused by the guard, as an SSRF refusal
    assert policy.allowed(site.url("/private/a.html")) and "loopback" in policy.reason
    assert redis_client.get(f"crawl:robots:{site.base}") is None
    assert site.hits("/robots.txt") == 0
    corrected = RobotsCache(redis_client, Fetcher(config), config.robots_agent, 3600)
    assert not corrected.policy(site.url("/private/a.html")).allowed(site.url("/private/a.html"))
    assert site.hits("/robots.txt") == 1


def test_each_process_keeps_policies_in_memory_until_the_redis_entry_expires(site, config, redis_client):
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, ROBOTS))
    key = f"crawl:robots:{site.base}"
    worker = RobotsCache(redis_client, Fetcher(config), config.robots_agent, 3600,
                         process_ttl_seconds=300, process_max_origins=8)
    first = worker.policy(site.url("/a"))
    redis_client.set(key, '{"mode": "allow_all", "body": "", "reason": "changed"}', ex=3600)
    assert worker.policy(site.url("/private/b")) is first  # no Redis read for the next URLs
    fresh = RobotsCache(redis_client, Fetcher(config), config.robots_agent, 3600)  # no memory
    assert fresh.policy(site.url("/private/b")).reason == "changed"
    worker.forget()
    assert worker.policy(site.url("/private/b")).reason == "changed"
    # kept no longer than the Redis entry lives: a 1-second entry is read again after it expired
    redis_client.set(key, '{"mode": "allow_all", "body": "", "reason": "brief"}', ex=1)
    worker.forget()
    assert worker.policy(site.url("/x")).reason == "brief"
    assert worker._local[site.base][0] - time.monotonic() <= 1
    assert site.hits("/robots.txt") == 1


def test_an_unreachable_verdict_lasts_only_as_long_as_its_redis_entry(site, config, redis_client):
    """robots.txt answering 503: every URL of the origin is refused while the Redis entry
    lives; once that entry is gone (deleted by staff, or expired) the very next URL asks the
    site again, in a process that keeps policies in memory for minutes."""
    site.route("/robots.txt", site.Reply(503, {}, b""))
    key = f"crawl:robots:{site.base}"
    worker = RobotsCache(redis_client, Fetcher(config), config.robots_agent, 3600,
                         process_ttl_seconds=300, process_max_origins=8)
    assert not worker.policy(site.url("/a")).allowed(site.url("/a"))
    assert not worker.policy(site.url("/b")).allowed(site.url("/b"))
    assert site.hits("/robots.txt") == 1  # the verdict comes from Redis meanwhile
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"}, ROBOTS))
    redis_client.delete(key)  # the site answers again; the entry is removed
    policy = worker.policy(site.url("/c"))
    assert policy.mode == "rules" and policy.allowed(site.url("/c"))
    assert site.hits("/robots.txt") == 2
