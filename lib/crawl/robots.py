"""robots.txt: fetched once per origin, cached in Redis for every worker, parsed with Protego.

Each worker process also keeps the policies it read in memory for a short while
(``process_ttl_seconds``, never beyond the Redis entry's own expiry), so a scan does not read and
decode robots.txt from Redis for every URL; a changed robots.txt reaches a process at the latest
when its entry there expires. A "disallow all" verdict (robots.txt unreachable) is never kept in
memory: Redis is its only record, so once its entry is gone (expired, or deleted by staff) the
next URL of that origin asks the site again, in every process.

Error handling follows RFC 9309 section 2.3.1: a 4xx robots.txt means no restrictions; a 5xx
answer or an unreachable server means complete disallow, cached only briefly
(``UNREACHABLE_TTL_SECONDS``) so a transient failure does not block a site for a day. A
robots.txt request refused by our own SSRF guard is no answer of the site: not cached.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass

from protego import Protego

from lib.crawl.canonical import origin_of
from lib.crawl.fetch import Fetcher
from lib.crawl.outcomes import Outcome

UNREACHABLE_TTL_SECONDS = 600
_MAX_ROBOTS_BYTES = 500 * 1024  # RFC 9309 2.5: parse at least 500 KiB


@dataclass(frozen=True)
class RobotsPolicy:
    """Rules of one origin. ``mode``: 'rules' (parse ``body``), 'allow_all' or 'disallow_all';
    ``reason``: why (e.g. 'HTTP 404', 'timeout'); ``agent``: the robots.txt product token."""

    mode: str
    body: str
    reason: str
    agent: str

    def allowed(self, url: str) -> bool:
        """True when robots.txt lets ``agent`` fetch ``url`` (an absolute URL, str)."""
        if self.mode != "rules":
            return self.mode == "allow_all"
        return _parse(self.body).can_fetch(url, self.agent)

    @property
    def crawl_delay(self) -> float | None:
        """The Crawl-delay for ``agent`` in seconds (float), or None when robots.txt sets none."""
        if self.mode != "rules":
            return None
        delay = _parse(self.body).crawl_delay(self.agent)
        return float(delay) if delay is not None else None

    @property
    def sitemaps(self) -> list[str]:
        """Sitemap URLs listed in robots.txt (list of str)."""
        return list(_parse(self.body).sitemaps) if self.mode == "rules" else []


@functools.lru_cache(maxsize=256)
def _parse(body: str) -> Protego:
    return Protego.parse(body)


class RobotsCache:
    """robots.txt per origin (scheme://host:port), shared through Redis.

    Takes a redis.Redis client, a Fetcher (so robots.txt requests pass the same SSRF guard and
    limits as pages), the robots.txt agent token (str), the Redis cache TTL in seconds (int),
    how long this process keeps a policy in memory (seconds, int; 0 = not at all) and for how
    many origins at most (int; the oldest entries are dropped first).
    """

    def __init__(self, redis, fetcher: Fetcher, agent: str, ttl_seconds: int,
                 process_ttl_seconds: int = 0, process_max_origins: int = 0,
                 prefix: str = "crawl:robots"):
        self.redis, self.fetcher, self.agent = redis, fetcher, agent
        self.ttl, self.prefix = ttl_seconds, prefix
        self.process_ttl, self.process_max = process_ttl_seconds, process_max_origins
        self._local: dict[str, tuple[float, RobotsPolicy]] = {}

    def policy(self, url: str, accept_invalid_certificate: bool = False) -> RobotsPolicy:
        """Return the RobotsPolicy for the origin of ``url``, fetching robots.txt on a cache miss
        (``accept_invalid_certificate``: as ``Fetcher.fetch``, the target site's setting).

        Raises redis.RedisError when Redis is unreachable (the caller's task retries).
        """
        origin = origin_of(url)
        now = time.monotonic()
        local = self._local.get(origin)
        if local is not None and local[0] > now:
            return local[1]
        key = f"{self.prefix}:{origin}"
        pipe = self.redis.pipeline()
        pipe.get(key)
        pipe.ttl(key)
        cached, ttl = pipe.execute()
        if cached is not None:
            data = json.loads(cached)
            policy = RobotsPolicy(data["mode"], data["body"], data["reason"], self.agent)
        else:
            mode, body, reason, ttl = self._download(origin + "/robots.txt",
                                                     accept_invalid_certificate)
            if ttl > 0:
                self.redis.set(key, json.dumps({"mode": mode, "body": body, "reason": reason}),
                               ex=ttl)
            policy = RobotsPolicy(mode, body, reason, self.agent)
        # "disallow all" (unreachable) is read from Redis each time: gone there, asked again
        lasting = ttl is not None and ttl > 0 and policy.mode != "disallow_all"
        keep = min(self.process_ttl, ttl) if lasting else 0
        if keep > 0:
            self._local.pop(origin, None)
            while self._local and len(self._local) >= self.process_max:
                del self._local[next(iter(self._local))]  # dicts keep insertion order: oldest first
            self._local[origin] = (now + keep, policy)
        return policy

    def forget(self) -> None:
        """Drop this process's in-memory policies (the Redis cache is kept)."""
        self._local.clear()

    def _download(self, robots_url: str, accept_invalid: bool) -> tuple[str, str, str, int]:
        result = self.fetcher.fetch(robots_url, accept_invalid_certificate=accept_invalid)
        if result.outcome is Outcome.OK:
            text = result.body[:_MAX_ROBOTS_BYTES].decode("utf-8", "replace")
            return "rules", text, f"HTTP {result.status}", self.ttl
        if result.outcome in (Outcome.CLIENT_ERROR, Outcome.CONTENT_TYPE):
            return "allow_all", "", result.reason, self.ttl
        if result.outcome is Outcome.SSRF_REFUSED:
            # Our refusal, not the site's: never cached (a corrected CRAWLER_ALLOW_ADDRESSES
            # applies at once) and no robots.txt verdict; each page's own fetch meets the same
            # guard and is counted as ssrf_refused, not as forbidden by robots.txt.
            return "allow_all", "", result.reason, 0
        return "disallow_all", "", f"{result.outcome.value}: {result.reason}", UNREACHABLE_TTL_SECONDS
