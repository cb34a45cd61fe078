"""Per-host politeness delay shared by every worker through Redis, without sleeping.

Each host has a key holding the earliest time (Redis server clock, milliseconds) of its next
fetch. ``acquire`` runs one Lua script, so workers on several machines never race, and answers
either "fetch now", "your slot is in N seconds (reserved)" or "come back in N seconds (not
reserved)". The caller re-queues its task with that countdown instead of waiting: a worker
process is never blocked by a slow or distant host. Slots are reserved only up to a horizon so
that a host with a long queue does not hand out countdowns of hours.
"""

from __future__ import annotations

from dataclasses import dataclass

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local delay = tonumber(ARGV[1])
local horizon = tonumber(ARGV[2])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
if nxt <= now then
  redis.call('SET', KEYS[1], now + delay, 'PX', delay + 60000)
  return {0, 1}
end
local wait = nxt - now
if wait <= horizon then
  redis.call('SET', KEYS[1], nxt + delay, 'PX', wait + delay + 60000)
  return {wait, 1}
end
return {wait - horizon, 0}
"""

_PUSH_BACK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local until_ms = now + tonumber(ARGV[1])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
if until_ms > nxt then
  redis.call('SET', KEYS[1], until_ms, 'PX', tonumber(ARGV[1]) + 60000)
end
return until_ms
"""


@dataclass(frozen=True)
class Grant:
    """Answer of ``Politeness.acquire``. ``wait``: seconds to wait before fetching (float, 0 =
    now); ``reserved``: True when the slot after ``wait`` belongs to the caller, who fetches
    then without asking again; False when the caller must ask again after ``wait``."""

    wait: float
    reserved: bool

    @property
    def now(self) -> bool:
        """True when the caller may fetch immediately."""
        return self.wait <= 0 and self.reserved


class Politeness:
    """Per-host next-allowed fetch times in Redis.

    Takes a redis.Redis client, the reservation horizon in seconds (float) and a key prefix.
    """

    def __init__(self, redis, horizon_seconds: float = 60.0, prefix: str = "crawl:polite"):
        self.redis, self.horizon, self.prefix = redis, horizon_seconds, prefix
        self._acquire = redis.register_script(_ACQUIRE)
        self._push_back = redis.register_script(_PUSH_BACK)

    def acquire(self, host: str, delay_seconds: float) -> Grant:
        """Claim the next fetch slot of ``host`` (str) spaced ``delay_seconds`` from the last.

        A delay of 0 or less always grants at once (politeness off, e.g. benchmarks on
        loopback). Returns a Grant. Raises redis.RedisError when Redis is unreachable.
        """
        if delay_seconds <= 0:
            return Grant(0.0, True)
        wait_ms, reserved = self._acquire(keys=[f"{self.prefix}:{host}"],
                                          args=[int(delay_seconds * 1000), int(self.horizon * 1000)])
        return Grant(wait_ms / 1000.0, bool(reserved))

    def push_back(self, host: str, seconds: float) -> None:
        """Forbid fetches from ``host`` for the next ``seconds`` (after a 429 with Retry-After,
        so the other workers back off too). Never shortens an existing wait."""
        if seconds > 0:
            self._push_back(keys=[f"{self.prefix}:{host}"], args=[int(seconds * 1000)])
