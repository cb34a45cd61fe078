"""The crawl frontier of one scan run, in Redis, shared by every worker on every machine.

Per scan run: a seen-set of canonical URLs (a URL is admitted once per scan) and the page
that admitted each, the page budget and depth limit, the count of admitted URLs, the count of
pending tasks (crawl and match: the scan is finished when it drops to zero; the ids of the tasks
counted pending and finished, each counted once), a cancellation flag, and counters of
outcomes. The queue of admitted URLs itself is the Celery "crawl" queue in the Redis broker:
admitting a URL and enqueueing its task are one step for the caller, taken again by a caller
delivered again after its worker died between them. All updates are single Redis commands or
Lua scripts, hence atomic across workers.
"""

from __future__ import annotations

import collections
import contextlib
import json
import time
import uuid
from dataclasses import dataclass

KEY_TTL_SECONDS = 7 * 24 * 3600  # a scan's keys outlive any scan; expire if a run is abandoned

# KEYS: seen-set, meta hash, hash of the page that admitted each URL. ARGV: depth, that page
# ('' = none), KEY_TTL_SECONDS, the URLs. A URL seen before comes back 'admitted' to the page
# that admitted it.
_ADMIT = """
local max_pages = tonumber(redis.call('HGET', KEYS[2], 'max_pages') or '0')
local max_depth = tonumber(redis.call('HGET', KEYS[2], 'max_depth') or '0')
local depth = tonumber(ARGV[1])
local parent = ARGV[2]
local out = {}
for i = 4, #ARGV do
  local verdict = 'seen'
  if depth > max_depth then
    verdict = 'depth'
  elseif redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then
    if tonumber(redis.call('HGET', KEYS[2], 'admitted') or '0') >= max_pages then
      verdict = 'budget'
    else
      redis.call('SADD', KEYS[1], ARGV[i])
      redis.call('HINCRBY', KEYS[2], 'admitted', 1)
      redis.call('HINCRBY', KEYS[2], 'pending', 1)
      if parent ~= '' then
        redis.call('HSET', KEYS[3], ARGV[i], parent)
        redis.call('EXPIRE', KEYS[3], ARGV[3])
      end
      verdict = 'admitted'
    end
  elseif parent ~= '' and redis.call('HGET', KEYS[3], ARGV[i]) == parent then
    verdict = 'admitted'
  end
  out[#out + 1] = verdict
end
return out
"""

# KEYS: meta hash, set of the task ids counted pending. ARGV: task id, KEY_TTL_SECONDS.
_ADD_PENDING = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'pending', 1)
return 1
"""

# KEYS: meta hash, alive key, set of finished task ids. ARGV: task id ('' = not recorded), now
# (s), stale_seconds, KEY_TTL_SECONDS, '1' when a URL is finished. A task id seen before (the
# broker delivered the task again after its worker died past this point) changes nothing.
_TASK_DONE = """
if ARGV[1] ~= '' then
  if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then
    return tonumber(redis.call('HGET', KEYS[1], 'pending') or '0')
  end
  redis.call('EXPIRE', KEYS[3], ARGV[4])
end
redis.call('SET', KEYS[2], 1, 'EX', ARGV[3])
redis.call('HSET', KEYS[1], 'touched', ARGV[2])
if ARGV[5] == '1' then redis.call('HINCRBY', KEYS[1], 'done', 1) end
return redis.call('HINCRBY', KEYS[1], 'pending', -1)
"""


def microseconds(seconds: float) -> int:
    """``seconds`` as whole microseconds: the unit of the CPU-time counters (``Frontier.count``
    keeps integers)."""
    return int(round(seconds * 1_000_000))


@dataclass(frozen=True)
class FrontierState:
    """Snapshot of a scan's frontier: ``admitted`` URLs, ``pending`` tasks, ``done`` URLs
    finished, ``cancelled`` flag, ``max_pages``, ``max_depth``, and ``stats`` (dict str -> int:
    outcome counters such as 'outcome:ok', 'pages_new', 'matches')."""

    admitted: int
    pending: int
    done: int
    cancelled: bool
    max_pages: int
    max_depth: int
    stats: dict[str, int]


class Frontier:
    """Frontier of scan run ``scan_id`` (int or str) in Redis (a redis.Redis client); a scan
    with no task finished for ``stale_seconds`` is abandoned (its workers died holding its
    tasks: CrawlConfig.scan_stale_seconds, from settings.SCAN_STUCK_SECONDS)."""

    def __init__(self, redis, scan_id, prefix: str = "crawl:scan", stale_seconds: int = 3600):
        self.redis = redis
        self.stale_seconds = int(stale_seconds)
        base = f"{prefix}:{scan_id}"
        self.seen_key, self.meta_key, self.stats_key = f"{base}:seen", f"{base}:meta", f"{base}:stats"
        self.alive_key, self.finished_key = f"{base}:alive", f"{base}:finished"
        self.counted_key, self.parents_key = f"{base}:counted", f"{base}:parents"
        self._admit = redis.register_script(_ADMIT)
        self._add_pending = redis.register_script(_ADD_PENDING)
        self._task_done = redis.register_script(_TASK_DONE)
        self._batch: collections.Counter | None = None

    @contextlib.contextmanager
    def batched(self):
        """Within the ``with`` block, ``count`` and ``count_outcome`` add up in memory; one
        Redis pipeline sends them all when the block ends (also when it raises), so a crawled
        URL costs one round trip for its counters instead of one per update. A block nested in
        another adds to the outer one, which sends."""
        if self._batch is not None:
            yield self
            return
        self._batch = collections.Counter()
        try:
            yield self
        finally:
            batch, self._batch = self._batch, None
            self._send(batch)

    def _send(self, counters) -> None:
        if not counters:
            return
        pipe = self.redis.pipeline(transaction=False)
        for name, n in counters.items():
            pipe.hincrby(self.stats_key, name, n)
        pipe.execute()

    def open(self, max_pages: int, max_depth: int, context: dict | None = None) -> str:
        """Start the scan's frontier with a page budget (int >= 1) and a depth limit (int >= 0:
        0 = only the start URLs); ``context`` (JSON-ready dict) is kept for every worker (the
        site's crawl rules). Returns the run's token (str): tasks carry it, and a task whose
        token is not the open frontier's (left over from a closed run, or from a database whose
        ids were reused) is dropped. Raises ValueError on bad limits."""
        if max_pages < 1 or max_depth < 0:
            raise ValueError(f"max_pages must be >= 1 and max_depth >= 0, got {max_pages}, {max_depth}")
        token = uuid.uuid4().hex
        pipe = self.redis.pipeline()
        pipe.hset(self.meta_key, mapping={"max_pages": max_pages, "max_depth": max_depth,
                                          "admitted": 0, "pending": 0, "done": 0, "cancelled": 0,
                                          "context": json.dumps(context or {}), "token": token,
                                          "touched": int(time.time())})
        for key in (self.meta_key, self.seen_key, self.stats_key):
            pipe.expire(key, KEY_TTL_SECONDS)
        pipe.set(self.alive_key, 1, ex=self.stale_seconds)
        pipe.execute()
        return token

    def admit(self, urls: list[str], depth: int, parent: str = "") -> dict[str, str]:
        """Offer canonical ``urls`` (list of str) found at link ``depth`` (int) on page
        ``parent`` (its canonical URL; '' when none: start URLs).

        Returns {url: verdict} with verdict 'admitted' (the caller must enqueue a task for it:
        new, and counted as pending; or admitted before by the same ``parent``, whose task
        was delivered again after its worker died, maybe before it sent the URL: sent again,
        not counted again), 'seen' (already admitted in this scan), 'depth' (beyond max_depth)
        or 'budget' (max_pages reached). Duplicates within ``urls`` are offered once.
        """
        unique = list(dict.fromkeys(urls))
        if not unique:
            return {}
        verdicts = self._admit(keys=[self.seen_key, self.meta_key, self.parents_key],
                               args=[depth, parent, KEY_TTL_SECONDS, *unique])
        return {u: (v.decode() if isinstance(v, bytes) else v) for u, v in zip(unique, verdicts, strict=True)}

    def mark_seen(self, url: str) -> bool:
        """Add ``url`` to the seen-set without admitting it (a URL refused at link time, e.g. a
        trap). Returns True the first time, so the refusal is recorded once per scan."""
        return bool(self.redis.sadd(self.seen_key, url))

    def is_seen(self, url: str) -> bool:
        """True when canonical ``url`` (str) is in the scan's seen-set (admitted or marked seen)."""
        return bool(self.redis.sismember(self.seen_key, url))

    def add_pending(self, task_id: str) -> bool:
        """Count task ``task_id`` (str: the id it is sent with; not a URL admission, e.g. a
        match task) pending, once: the caller counts it before sending it, and a caller
        delivered again after its worker died between the two counts it again and sends it
        again under the same id, which ``task_done`` counts finished once. Returns True the
        first time, False when the id was counted before."""
        return bool(self._add_pending(keys=[self.meta_key, self.counted_key],
                                      args=[task_id, KEY_TTL_SECONDS]))

    def task_done(self, url_finished: bool = True, task_id: str = "") -> int:
        """Mark one pending task finished; ``url_finished`` also counts a URL as done. With a
        ``task_id`` (str, the broker's id of the task) a second call for the same id (a task
        delivered again after its worker died) changes nothing, so the scan cannot finish
        while tasks of it still run.

        Returns the number of pending tasks left (int): the caller that sees 0 finishes the scan.
        """
        return int(self._task_done(
            keys=[self.meta_key, self.alive_key, self.finished_key],
            args=[task_id, int(time.time()), self.stale_seconds, KEY_TTL_SECONDS,
                  "1" if url_finished else "0"]))

    def idle_seconds(self) -> float | None:
        """Seconds (float) since the scan was opened or a task of it last finished, by this
        machine's clock; None when the frontier was never opened (or has expired)."""
        touched = self.redis.hget(self.meta_key, "touched")
        return None if touched is None else max(0.0, time.time() - int(touched))

    def alive(self) -> bool:
        """False when no task of the scan finished for ``stale_seconds`` (or it was never opened)."""
        return bool(self.redis.exists(self.alive_key))

    def count(self, **counters: int) -> None:
        """Add to the scan's counters, e.g. ``count(pages_new=1)``; names are free-form str.
        Sent at once, or at the end of the ``batched`` block it is called in."""
        if self._batch is not None:
            self._batch.update(counters)
        else:
            self._send(counters)

    def count_outcome(self, outcome: str) -> None:
        """Count one URL with ``outcome`` (an Outcome value) under 'outcome:<value>'."""
        self.count(**{f"outcome:{outcome}": 1})

    def accepts(self, token: str) -> bool:
        """True when ``token`` is the token of this frontier's open run."""
        current = self.redis.hget(self.meta_key, "token")
        return bool(token) and current is not None and current.decode() == token

    def context(self) -> dict:
        """The ``context`` given to ``open`` ({} when none, or when the frontier is gone)."""
        raw = self.redis.hget(self.meta_key, "context")
        return json.loads(raw) if raw else {}

    def cancelled(self) -> bool:
        """True once ``cancel`` was called (one HGET: checked before every fetch)."""
        return self.redis.hget(self.meta_key, "cancelled") in (b"1", "1")

    def cancel(self) -> None:
        """Flag the scan cancelled: tasks still queued finish without fetching."""
        self.redis.hset(self.meta_key, "cancelled", 1)

    def state(self) -> FrontierState:
        """Return a FrontierState snapshot (zeros when the frontier was never opened)."""
        meta = {k.decode(): int(v) for k, v in self.redis.hgetall(self.meta_key).items()
                if k not in (b"context", b"token")}
        stats = {k.decode(): int(v) for k, v in self.redis.hgetall(self.stats_key).items()}
        return FrontierState(meta.get("admitted", 0), meta.get("pending", 0), meta.get("done", 0),
                             bool(meta.get("cancelled", 0)), meta.get("max_pages", 0),
                             meta.get("max_depth", 0), stats)

    def close(self, keep_seconds: int = 24 * 3600) -> None:
        """Free the seen-set now and keep the counters ``keep_seconds`` longer for reports."""
        pipe = self.redis.pipeline()
        pipe.delete(self.seen_key, self.alive_key, self.finished_key, self.counted_key,
                    self.parents_key)
        pipe.hset(self.meta_key, "token", "")  # tasks still queued for this run are dropped
        pipe.expire(self.meta_key, keep_seconds)
        pipe.expire(self.stats_key, keep_seconds)
        pipe.execute()
