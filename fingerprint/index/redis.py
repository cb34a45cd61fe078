"""RedisIndex: the platform's fingerprint index in Redis, pipelined and batched.

Key layout (``P`` is the prefix, default ``fp``; it may not contain ``{`` or ``}``, so no key
carries a hash tag and Redis Cluster spreads the posting keys over all hash slots):

===================  ======  ===========================================================
key                  type    value
===================  ======  ===========================================================
``P:k:<key>``        hash    one field per work holding fingerprint ``<key>`` (decimal):
                             field = work number (decimal), value = that work's window
                             numbers, comma-separated decimals (``"17"``, ``"17,230"``).
                             Document frequency = HLEN; Redis deletes the hash when its last
                             field goes, so no empty keys remain.
``P:w:<number>``     hash    the work's record: ``keys`` = its distinct fingerprint keys
                             packed as little-endian uint64 (exact removal), ``windows`` =
                             its posting count. Written before the postings, so an add
                             interrupted by a failure can still be removed exactly.
``P:ids``            hash    work id -> work number
``P:names``          hash    work number -> work id (resolved once per number, then cached)
``P:seq``            string  last work number given (INCR); numbers are never reused
``P:windows``        string  total postings (INCRBY/DECRBY), for stats
``P:version``        string  FINGERPRINT_VERSION of the indexed fingerprints
===================  ======  ===========================================================

Work numbers instead of work ids in the posting hashes keep small hashes in Redis's compact
ziplist/listpack encoding with integer fields. Every command touches one key, so the layout
works unchanged on Redis Cluster (redis-py's ``RedisCluster`` pipelines group commands by
node). Lookup runs a small Lua script per key (one key per call, so cluster-safe) that returns
nothing for keys whose document frequency exceeds ``max_df``: stop-listed keys are never
transferred. A lookup of any number of keys costs one round trip per 2,000 keys, plus one
HMGET on ``P:names`` the first time a work number is seen; an add costs one round trip per
2,000 distinct keys plus three.

Measured memory: see ``bench/`` and the project notes (``INFO used_memory`` over 100k windows).
Concurrency: any number of readers and writers, but one writer per work id at a time.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterable, Iterator, Sequence

import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from fingerprint.index.base import (
    DEFAULT_MAX_DF,
    IndexUnavailableError,
    IndexVersionError,
    check_posting,
    check_work_id,
    current_version,
)

#: Commands per pipeline round trip (keeps each reply a few hundred kB at most).
BATCH = 2000

_LOOKUP_LUA = """
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[1]) then return 0 end
return redis.call('HGETALL', KEYS[1])
"""


def _reachable(method):
    """Turn redis-py connection failures into IndexUnavailableError naming the server."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise IndexUnavailableError(f"Redis index at {self.server} unreachable: {exc}") from exc

    return wrapper


class RedisIndex:
    """Fingerprint index in Redis (implements :class:`fingerprint.index.base.Index`).

    Args:
        client: a ``redis.Redis`` (or ``redis.RedisCluster``); responses bytes or str.
        prefix: key prefix (see the module docstring); no ``{``, ``}`` or ``*``.
        max_df: stop-list limit in works (see :mod:`fingerprint.index.base`).
        version: FINGERPRINT_VERSION of the fingerprints; default: the running code's.

    The version is checked against ``P:version`` at the first operation.

    Raises (from any operation):
        IndexUnavailableError: Redis cannot be reached.
        IndexVersionError: the index holds fingerprints of another version.
    """

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "fp",
        max_df: int = DEFAULT_MAX_DF,
        version: str | None = None,
    ):
        if not prefix or any(c in prefix for c in "{}*?[]"):
            raise ValueError(f"prefix must be non-empty, without {{}}*?[]: {prefix!r}")
        if max_df < 1:
            raise ValueError(f"max_df must be >= 1, got {max_df!r}")
        self.client = client
        self.prefix = prefix
        self.max_df = max_df
        self._version = version
        self._checked = False
        self._names: dict[int, str] = {}
        self._sha: str | None = None
        kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
        self.server = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"

    @property
    def version(self) -> str:
        """FINGERPRINT_VERSION of the fingerprints this client reads and writes (str)."""
        if self._version is None:
            self._version = current_version()
        return self._version

    def _key(self, key: int) -> str:
        return f"{self.prefix}:k:{key}"

    def _check_version(self) -> None:
        if self._checked:
            return
        name = f"{self.prefix}:version"
        self.client.set(name, self.version, nx=True)
        stored = _text(self.client.get(name))
        if stored != self.version:
            raise IndexVersionError(
                f"Redis index {self.prefix!r} at {self.server} holds fingerprints of version "
                f"{stored!r}, the running code makes {self.version!r}: clear it and rebuild it "
                f"from the work store"
            )
        self._checked = True

    @_reachable
    def add(self, work_id: str, postings: Iterable[tuple[int, int]]) -> int:
        """Index a work's ``(key, window)`` postings, replacing its old ones; see Index.add.

        On a failure after the first write, the postings written are removed when Redis can
        still be reached; otherwise the work's record stays, and ``remove(work_id)`` or a new
        ``add`` of the same id cleans up exactly.
        """
        check_work_id(work_id)
        by_key: dict[int, set[int]] = {}
        for key, window in postings:
            check_posting(key, window)
            by_key.setdefault(int(key), set()).add(int(window))
        self._check_version()
        if self.client.hexists(f"{self.prefix}:ids", work_id):
            self.remove(work_id)
        number = int(self.client.incr(f"{self.prefix}:seq"))
        count = sum(len(w) for w in by_key.values())
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(f"{self.prefix}:w:{number}",
                  mapping={"keys": array("Q", by_key).tobytes(), "windows": count})
        pipe.hset(f"{self.prefix}:names", number, work_id)
        pipe.hset(f"{self.prefix}:ids", work_id, number)
        pipe.incrby(f"{self.prefix}:windows", count)
        pipe.execute()
        try:
            items = list(by_key.items())
            for start in range(0, len(items), BATCH):
                for key, windows in items[start:start + BATCH]:
                    pipe.hset(self._key(key), number, ",".join(map(str, sorted(windows))))
                pipe.execute()
        except BaseException:
            try:
                self.remove(work_id)
            except (RedisConnectionError, RedisTimeoutError):
                pass
            raise
        self._names[number] = work_id
        return count

    @_reachable
    def remove(self, work_id: str) -> int:
        """Remove exactly this work's postings; returns how many were removed (0 if absent)."""
        number = self.client.hget(f"{self.prefix}:ids", work_id)
        if number is None:
            return 0
        number = int(number)
        record = f"{self.prefix}:w:{number}"
        packed, windows = self.client.hmget(record, ["keys", "windows"])
        keys = array("Q")
        keys.frombytes(_raw(packed or b""))
        pipe = self.client.pipeline(transaction=False)
        for start in range(0, len(keys), BATCH):
            for key in keys[start:start + BATCH]:
                pipe.hdel(self._key(key), number)
            pipe.execute()
        windows = int(windows or 0)
        pipe.delete(record)
        pipe.hdel(f"{self.prefix}:names", number)
        pipe.hdel(f"{self.prefix}:ids", work_id)
        pipe.decrby(f"{self.prefix}:windows", windows)
        pipe.execute()
        self._names.pop(number, None)
        return windows

    @_reachable
    def lookup(self, keys: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """Postings ``(work_id, window)`` per indexed, non-stop-listed key; see Index.lookup."""
        self._check_version()
        unique = list(dict.fromkeys(int(k) for k in keys))
        found: dict[int, list] = {}
        for start in range(0, len(unique), BATCH):
            batch = unique[start:start + BATCH]
            for key, reply in zip(batch, self._run_lookup(batch), strict=True):
                if reply:
                    found[key] = reply
        numbers = {int(f) for reply in found.values() for f in reply[::2]}
        self._resolve(numbers - self._names.keys())
        names = self._names
        out: dict[int, list[tuple[str, int]]] = {}
        for key, reply in found.items():
            hits = []
            for field, value in zip(reply[::2], reply[1::2], strict=True):
                work = names.get(int(field))
                if work is not None:  # None: removed while we looked
                    hits.extend((work, int(w)) for w in _raw(value).split(b","))
            if hits:
                out[key] = hits
        return out

    def _run_lookup(self, batch: list[int]) -> list:
        if self._sha is None:
            self._sha = _text(self.client.script_load(_LOOKUP_LUA))
        pipe = self.client.pipeline(transaction=False)
        for key in batch:
            pipe.execute_command("EVALSHA", self._sha, 1, self._key(key), self.max_df)
        try:
            return pipe.execute()
        except NoScriptError:  # the server restarted or flushed its scripts
            self._sha = None
            return self._run_lookup(batch)

    def _resolve(self, numbers: set[int]) -> None:
        if not numbers:
            return
        wanted = sorted(numbers)
        for number, name in zip(
            wanted, self.client.hmget(f"{self.prefix}:names", wanted), strict=True
        ):
            if name is not None:
                self._names[number] = _text(name)

    @_reachable
    def has_work(self, work_id: str) -> bool:
        """True when the work has postings here (one HEXISTS)."""
        return bool(self.client.hexists(f"{self.prefix}:ids", work_id))

    @_reachable
    def work_ids(self) -> Iterator[str]:
        """Ids of the indexed works (HSCAN of ``P:ids``; read eagerly, any order)."""
        return iter([_text(k) for k, _ in self.client.hscan_iter(f"{self.prefix}:ids", count=1000)])

    @_reachable
    def clear(self) -> None:
        """Delete every key under the prefix (SCAN + UNLINK) and set ``P:version`` to ``version``."""
        pipe = self.client.pipeline(transaction=False)
        pending = 0
        for name in self.client.scan_iter(match=f"{self.prefix}:*", count=1000):
            pipe.unlink(name)
            pending += 1
            if pending >= BATCH:
                pipe.execute()
                pending = 0
        pipe.execute()
        self._names.clear()
        self._checked = False
        self._check_version()

    @_reachable
    def stats(self) -> dict:
        """Counts: backend "redis", prefix, works, windows, max_df, version (stored, or None
        when empty), used_memory_bytes (the whole Redis server's, from INFO memory)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hlen(f"{self.prefix}:ids")
        pipe.get(f"{self.prefix}:windows")
        pipe.get(f"{self.prefix}:version")
        works, windows, version = pipe.execute()
        info = self.client.info("memory")
        return {
            "backend": "redis",
            "prefix": self.prefix,
            "works": int(works),
            "windows": int(windows or 0),
            "max_df": self.max_df,
            "version": _text(version) if version is not None else None,
            "used_memory_bytes": info.get("used_memory") if isinstance(info, dict) else None,
        }


def _raw(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
