"""RedisIndex: the platform's fingerprint index in Redis (layout version :data:`LAYOUT`).

Keys under a prefix ``P`` (default ``fp``, without ``{`` or ``}``): ``P:g:<group>`` hashes of
posting buckets (linear hashing per group, so a lookup reads about :data:`LOAD` postings per
key at any size), ``P:ids`` (work id -> record for exact removal), ``P:names`` (work number ->
id), ``P:seq``, ``P:windows``, ``P:groups``, ``P:version`` (FINGERPRINT_VERSION), ``P:layout``
and ``P:epoch`` (changes when Redis lost its data). A lookup is one round trip; adds and
removes are one Lua script per group, so concurrent writers lose nothing, and every command
touches one key (Redis Cluster works unchanged). The client must return bytes (no
``decode_responses``). Any number of readers and writers, one writer per work id at a time.
The layout and why: ``docs/decisions/redis-index-layout.md``.
"""

from __future__ import annotations

import contextlib
import functools
import uuid
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import numpy as np
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from fingerprint.arrays import sorted_distinct
from fingerprint.index.base import (
    DEFAULT_MAX_DF,
    IndexLayoutError,
    IndexUnavailableError,
    IndexVersionError,
    check_posting,
    check_work_id,
)
from fingerprint.index.packing import varint_decode, varint_encode
from fingerprint.version import FINGERPRINT_VERSION

#: Layout version written to ``P:layout`` (1 = a hash field per key, before it was recorded).
LAYOUT = "2"
#: Default number of groups (hashes) the buckets are spread over (a power of two, at most 64).
DEFAULT_GROUPS = 64
#: Buckets of all groups together in a new index (2**12): with ``groups`` groups, each starts
#: at level 12 - log2(groups), which keeps the stored remainder of a narrow key within 3 bytes.
MIN_BUCKETS = 4096
#: Highest bucket level (2**23 buckets per group); the Lua scripts get x's low 24 bits apart.
MAX_LEVEL = 23
#: Levels a group may grow by after a work is added before removing that work reads more
#: than one bucket per key (then 2, 4, ... candidates, still exact): hints keep the bits of
#: the deepest level + 1 + HINT_SLACK. Each level more costs a hint about 1 bit.
HINT_SLACK = 2
#: Average postings per bucket above which a group splits a bucket. Measured on 1M windows of
#: real chapters (one process, one Redis, lookups interleaved; script in the commit message):
#: 24, 16, 12 give 15.3, 17.4, 18.8 bytes of used_memory per window (0.84, 0.96, 1.03 per
#: character) and the same lookup time within noise (5.7, 5.8, 5.4 ms median), so the largest.
LOAD = 24
#: Work numbers are 3 bytes in a posting: at most this many adds per epoch.
MAX_WORK_NUMBER = 2**24 - 1
#: Round trips a lookup makes at most while writers split the buckets it reads.
LOOKUP_ROUNDS = 8
#: Postings per add script call at most (bounds one script's time and arguments).
BATCH = 1000
_NARROW, _WIDE = 9, 14
_MIX = 0x9E3779B97  # odd 36-bit multiplier (the top bits of the golden ratio, as Fibonacci
# hashing uses; Knuth, TAOCP vol. 3, 6.4)
_M36 = (1 << 36) - 1
_M24 = (1 << 24) - 1
_META_WIDTH = 80

# KEYS[1]: a group hash. ARGV: min level, max level, load, narrow limit of xh (2**(12-gbits)),
# work number, then (xh, xl, window) per posting, where x = xh * 2**24 + xl. Appends each
# posting to its bucket, then splits buckets while the group is over its load.
_ADD = """
local K = KEYS[1]
local minlevel, maxlevel, load = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local narrowlimit, work = tonumber(ARGV[4]), tonumber(ARGV[5])
local L, S, W, N = minlevel, 0, 0, 0
local meta = redis.call('HGET', K, '')
if meta then
  local a, b, c, d = string.match(meta, '^(%d+):(%d+):(%d+):(%d+)')
  L, S, W, N = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
end
local function le(n, k)
  local t = {}
  for i = 1, k do local byte = n % 256; t[i] = byte; n = (n - byte) / 256 end
  return string.char(unpack(t))
end
local w3 = le(work, 3)
local parts = {}
local added = 0
for i = 6, #ARGV, 3 do
  local xh, xl, win = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local lvl = L
  local b = xl % 2 ^ L
  if b < S then lvl = L + 1; b = xl % 2 ^ lvl end
  local r = xh * 2 ^ (24 - lvl) + (xl - xl % 2 ^ lvl) / 2 ^ lvl
  local field
  if xh < narrowlimit and win < 16777216 then
    field = tostring(b)
    local t = parts[field] or {}; parts[field] = t
    t[#t + 1] = le(r, 3) .. w3 .. le(win, 3)
  else
    field = 'w' .. b
    local t = parts[field] or {}; parts[field] = t
    t[#t + 1] = le(r, 7) .. w3 .. le(win, 4)
    if xh < narrowlimit then W = W + 1 end
  end
  added = added + 1
end
for field, t in pairs(parts) do
  redis.call('HSET', K, field, (redis.call('HGET', K, field) or '') .. table.concat(t))
end
N = N + added
local function split(field, size, rbytes, target)
  local v = redis.call('HGET', K, field)
  if not v then return end
  local stay, move = {}, {}
  for p = 1, #v, size do
    local r, f = 0, 1
    for q = p, p + rbytes - 1 do r = r + string.byte(v, q) * f; f = f * 256 end
    local bit = r % 2
    local entry = le((r - bit) / 2, rbytes) .. string.sub(v, p + rbytes, p + size - 1)
    if bit == 0 then stay[#stay + 1] = entry else move[#move + 1] = entry end
  end
  if #stay > 0 then redis.call('HSET', K, field, table.concat(stay))
  else redis.call('HDEL', K, field) end
  if #move > 0 then redis.call('HSET', K, target, table.concat(move)) end
end
while L < maxlevel and N > load * (2 ^ L + S) do
  split(tostring(S), 9, 3, tostring(S + 2 ^ L))
  split('w' .. S, 14, 7, 'w' .. (S + 2 ^ L))
  S = S + 1
  if S == 2 ^ L then L = L + 1; S = 0 end
end
meta = string.format('%d:%d:%d:%d:', L, S, W, N)
redis.call('HSET', K, '', meta .. string.rep(' ', 80 - #meta))
return added
"""
# KEYS[1]: a group hash. ARGV: hint bits B, kind (1 narrow, 2 wide), the work number as 3
# bytes, the bits of a narrow key's x (36 - log2 groups), then the work's hints in this group
# (x mod 2**B). Drops the work's postings from every
# bucket such a key can be in now: one when the group's level + 1 <= B, else 2**(level+1-B).
_REMOVE = """
local K = KEYS[1]
local meta = redis.call('HGET', K, '')
if not meta then return 0 end
local a, b, c, d = string.match(meta, '^(%d+):(%d+):(%d+):(%d+)')
local L, S, W, N = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
local B, wide, tag = tonumber(ARGV[1]), ARGV[2] == '2', ARGV[3]
local narrowbits = tonumber(ARGV[4])
local size, at, prefix = 9, 3, ''
if wide then size, at, prefix = 14, 7, 'w' end
local seen = {}
local removed, hugewindows = 0, 0
local function filter(field, lvl)
  local v = redis.call('HGET', K, field)
  if not v then return 0 end
  local kept, gone = {}, 0
  for p = 1, #v, size do
    if string.sub(v, p + at, p + at + 2) == tag then
      gone = gone + 1
      if wide then  -- a narrow key's posting with a huge window: counted in W
        local r, f = 0, 1
        for q = p, p + 6 do r = r + string.byte(v, q) * f; f = f * 256 end
        if r < 2 ^ (narrowbits - lvl) then hugewindows = hugewindows + 1 end
      end
    else kept[#kept + 1] = string.sub(v, p, p + size - 1) end
  end
  if gone > 0 then
    if #kept > 0 then redis.call('HSET', K, field, table.concat(kept))
    else redis.call('HDEL', K, field) end
  end
  return gone
end
local variants = 1
if L + 1 > B then variants = 2 ^ (L + 1 - B) end
for i = 5, #ARGV do
  local h = tonumber(ARGV[i])
  for j = 0, variants - 1 do
    local xl = h + j * 2 ^ B
    local lvl = L
    local bucket = xl % 2 ^ L
    if bucket < S then lvl = L + 1; bucket = xl % 2 ^ lvl end
    if not seen[bucket] then
      seen[bucket] = true
      removed = removed + filter(prefix .. bucket, lvl)
    end
  end
end
W = W - hugewindows
N = N - removed
meta = string.format('%d:%d:%d:%d:', L, S, W, N)
redis.call('HSET', K, '', meta .. string.rep(' ', 80 - #meta))
return removed
"""


def _resp_head(command: str, key: str, n_args: int) -> str:
    """``command key`` and ``n_args`` more arguments in the Redis protocol (RESP), as a
    %-template: the header, then ``$%d\r\n%s\r\n`` (byte length, argument) per argument."""
    return f"*{n_args + 2}\r\n${len(command)}\r\n{command}\r\n{_resp_key(key)}" \
        + "$%d\r\n%s\r\n" * n_args


@functools.lru_cache(maxsize=4096)
def _resp_key(key: str) -> str:
    """``key`` as a RESP bulk string in a %-template: its UTF-8 byte length, ``%`` escaped."""
    return f"${len(key.encode())}\r\n{key}\r\n".replace("%", "%%")


def _reachable(method):
    """Turn redis-py connection failures into IndexUnavailableError naming the server."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise IndexUnavailableError(f"Redis index at {self.server} unreachable: {exc}") from exc

    return wrapper


def _little(rows: np.ndarray, start: int, width: int) -> np.ndarray:
    """uint64 of the little-endian unsigned integers in columns start..start+width-1 of a
    2-D uint8 array (one integer per row)."""
    out = np.zeros(len(rows), dtype=np.uint64)
    for i in range(width):
        out |= rows[:, start + i].astype(np.uint64) << np.uint64(8 * i)
    return out


def _sorted_postings(postings: Iterable[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(keys uint64, windows int64) of ``postings``, each (key, window) checked
    (``check_posting``: raises ValueError), once each and in sorted order."""
    pairs = set()
    for key, window in postings:
        check_posting(key, window)
        pairs.add((int(key), int(window)))
    ordered = sorted(pairs)
    keys = np.fromiter((k for k, _ in ordered), dtype=np.uint64, count=len(ordered))
    windows = np.fromiter((w for _, w in ordered), dtype=np.int64, count=len(ordered))
    return keys, windows


class RedisIndex:
    """Fingerprint index in Redis (implements :class:`fingerprint.index.base.Index`).

    Args:
        client: a ``redis.Redis`` (or ``redis.RedisCluster``) returning bytes.
        prefix: key prefix (see the module docstring); no ``{``, ``}``, ``*``, ``?``, ``[``,
            ``]``.
        max_df: stop-list limit in works (see :mod:`fingerprint.index.base`).
        version: FINGERPRINT_VERSION of the fingerprints; default: the running code's.
        groups: number of group hashes (a power of two, 1 to 64) for a new index; an existing
            index keeps the number it was created with.
        load: average postings per bucket above which this client's adds split a bucket
            (default :data:`LOAD`; small values only make tests split early).

    The layout, version and number of groups are checked against Redis at the first operation.

    Raises:
        ValueError: a bad prefix, max_df, groups or load, or a client with
            decode_responses=True.
        IndexUnavailableError: (any operation) Redis cannot be reached.
        IndexVersionError: (any operation but ``clear``) the index holds fingerprints of another
            version; IndexLayoutError (a subclass) when it is in an older layout.
    """

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "fp",
        max_df: int = DEFAULT_MAX_DF,
        version: str | None = None,
        groups: int = DEFAULT_GROUPS,
        load: int = LOAD,
    ):
        if not prefix or any(c in prefix for c in "{}*?[]"):
            raise ValueError(f"prefix must be non-empty, without {{}}*?[]: {prefix!r}")
        if max_df < 1 or load < 1:
            raise ValueError(f"max_df and load must be >= 1, got {max_df!r}, {load!r}")
        if groups < 1 or groups & (groups - 1) or groups > 64:
            raise ValueError(f"groups must be a power of two from 1 to 64, got {groups!r}")
        kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
        if kwargs.get("decode_responses"):
            raise ValueError("RedisIndex needs a client returning bytes (decode_responses=False)")
        self.client = client
        self.prefix = prefix
        self.max_df = max_df
        self.load = load
        self._version = version
        self._checked = False
        self._names: dict[int, str] = {}
        self._epoch: bytes | None = None
        self._sha: dict[str, str] = {}
        self._set_groups(groups)
        # RedisCluster (not a redis.Redis) routes each command to its node: keep its pipeline
        self._packed = isinstance(client, redis.Redis)
        self.server = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"

    def _set_groups(self, groups: int) -> None:
        """Adopt a number of groups: the derived bit widths and a fresh cache of group levels."""
        self.groups = groups
        self._gbits = groups.bit_length() - 1
        self._min_level = (MIN_BUCKETS.bit_length() - 1) - self._gbits
        # cached per group: level L, split pointer S, whether narrow keys have wide postings
        self._level = np.full(groups, self._min_level, dtype=np.int64)
        self._split = np.zeros(groups, dtype=np.int64)
        self._wide = np.zeros(groups, dtype=bool)

    @property
    def version(self) -> str:
        """FINGERPRINT_VERSION of the fingerprints this client reads and writes (str)."""
        if self._version is None:
            self._version = FINGERPRINT_VERSION
        return self._version

    def group_name(self, key: int) -> str:
        """Redis key of the hash holding fingerprint ``key``'s bucket: ``P:g:<group>``."""
        group, _ = self._address(np.array([key], dtype=np.uint64))
        return f"{self.prefix}:g:{int(group[0])}"

    def _address(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(group as int64, group-local key x as uint64) of uint64 keys (module docstring)."""
        low = 36 - self._gbits
        y = ((keys & np.uint64(_M36)) * np.uint64(_MIX)) & np.uint64(_M36)
        y ^= y >> np.uint64(18)
        group = (y >> np.uint64(low)).astype(np.int64)
        x = ((keys >> np.uint64(36)) << np.uint64(low)) | (y & np.uint64((1 << low) - 1))
        return group, x

    @_reachable
    def check(self) -> None:
        """Create the index's bookkeeping keys if it is new, or check its layout and version
        (one or two round trips).

        Raises:
            IndexLayoutError: the index under this prefix is in an older layout.
            IndexVersionError: it holds fingerprints of another FINGERPRINT_VERSION.
        """
        self._check_version(force=True)

    def _check_version(self, force: bool = False) -> None:
        """Create or check ``P:layout``, ``P:version``, ``P:groups`` and ``P:epoch``.

        Cached after the first success unless ``force``; writers force it so that an index
        lost by Redis is re-created with a new epoch before any work number is given out.
        """
        if self._checked and not force:
            return
        p = self.prefix
        pipe = self.client.pipeline(transaction=False)
        pipe.get(f"{p}:layout")
        pipe.get(f"{p}:version")
        layout, stored = pipe.execute()
        if layout is None and stored is not None:
            older = (f" and holds fingerprints of version {stored.decode()!r}"
                     if stored.decode() != self.version else "")
            raise IndexLayoutError(
                f"Redis index {p!r} at {self.server} is in the old layout (one hash field per "
                f"fingerprint, layout 1){older}; this code reads layout {LAYOUT}: rebuild it "
                f"from the work store with `manage.py reindex` (or clear() and "
                f"Engine.rebuild_index())")
        if layout is not None and layout.decode() != LAYOUT:
            raise IndexLayoutError(
                f"Redis index {p!r} at {self.server} has layout {layout.decode()!r}, this code "
                f"reads layout {LAYOUT}: rebuild it with `manage.py reindex`")
        pipe.set(f"{p}:version", self.version, nx=True)
        pipe.set(f"{p}:groups", self.groups, nx=True)
        pipe.set(f"{p}:layout", LAYOUT, nx=True)
        pipe.set(f"{p}:epoch", uuid.uuid4().hex, nx=True)
        pipe.get(f"{p}:version")
        pipe.get(f"{p}:groups")
        pipe.get(f"{p}:epoch")
        stored, groups, epoch = pipe.execute()[4:]
        self._see_epoch(epoch)
        if stored.decode() != self.version:
            raise IndexVersionError(
                f"Redis index {p!r} at {self.server} holds fingerprints of version "
                f"{stored.decode()!r}, the running code makes {self.version!r}: clear it and "
                f"rebuild it from the work store (`manage.py reindex`)"
            )
        if int(groups) != self.groups:
            self._set_groups(int(groups))
        self._checked = True

    def _see_epoch(self, epoch: bytes | None) -> None:
        """Forget cached work numbers and group levels when the index's epoch is not the one
        they came from."""
        if epoch != self._epoch:
            self._names.clear()
            self._level[:] = self._min_level
            self._split[:] = 0
            self._wide[:] = False
            self._epoch = epoch

    def _scripts(self, script: str, calls: list[tuple[int, list]]) -> list:
        """Run ``script`` once per (group, args) in one pipeline; the replies, in order."""
        sha = self._sha.get(script)
        if sha is None:
            # redis-py types its sync client's replies as Awaitable too (hence the ignore)
            sha = self._sha[script] = self.client.script_load(script)  # type: ignore[assignment]
        pipe = self.client.pipeline(transaction=False)
        for group, args in calls:
            pipe.execute_command("EVALSHA", sha, 1, f"{self.prefix}:g:{group}", *args)
        try:
            return pipe.execute()
        except NoScriptError:  # the server restarted or flushed its scripts
            del self._sha[script]
            return self._scripts(script, calls)

    def _hint_bits(self) -> int:
        """Bits of x a new work record keeps per key (removal hints): enough to name one
        bucket at the deepest level any group reaches, plus :data:`HINT_SLACK` levels of
        growth; reads every group's meta (one round trip) to know the levels."""
        pipe = self.client.pipeline(transaction=False)
        for group in range(self.groups):
            pipe.hget(f"{self.prefix}:g:{group}", "")
        deepest = self._min_level
        for meta in pipe.execute(raise_on_error=False):  # a broken group fails in the scripts
            if isinstance(meta, bytes):
                deepest = max(deepest, int(meta.split(b":", 1)[0]))
        return min(deepest + 1 + HINT_SLACK, MAX_LEVEL + 1)

    @_reachable
    def add(self, work_id: str, postings: Iterable[tuple[int, int]]) -> int:
        """Index a work's ``(key, window)`` postings, replacing its old ones; see Index.add.

        On a failure after the first write, the postings written are removed when Redis can
        still be reached; otherwise the work's record stays, and ``remove(work_id)`` or a new
        ``add`` of the same id cleans up exactly.

        Raises (besides Index.add's): RuntimeError when the index has given out
        :data:`MAX_WORK_NUMBER` work numbers (rebuild it: ``clear`` and re-index).
        """
        check_work_id(work_id)
        keys, windows = _sorted_postings(postings)
        self._check_version(force=True)
        self._remove(work_id)
        # redis-py types its sync client's replies as Awaitable too (hence the ignore)
        number = int(self.client.incr(f"{self.prefix}:seq"))  # type: ignore[arg-type]
        if number > MAX_WORK_NUMBER:
            raise RuntimeError(
                f"Redis index {self.prefix!r} has given out {MAX_WORK_NUMBER} work numbers; "
                f"rebuild it (clear, then `manage.py reindex`) to number the works again")
        group, x = self._address(keys)
        count = len(keys)
        record = self._work_record(number, group, x, windows)
        pipe = self.client.pipeline(transaction=False)
        # redis-py types hash fields and values as str; it sends bytes and int as they are
        pipe.hset(f"{self.prefix}:ids", work_id, record)  # type: ignore[arg-type]
        pipe.hset(f"{self.prefix}:names", number, work_id)  # type: ignore[arg-type]
        pipe.incrby(f"{self.prefix}:windows", count)
        pipe.execute()
        try:
            self._scripts(_ADD, self._add_calls(number, group, x, windows))
        except BaseException:
            # keep the original error; the record allows a later remove
            with contextlib.suppress(RedisError):
                self._remove(work_id)
            raise
        self._names[number] = work_id
        return count

    def _work_record(self, number: int, group: np.ndarray, x: np.ndarray,
                     windows: np.ndarray) -> bytes:
        """The ``P:ids`` record of a work numbered ``number`` whose postings have groups
        ``group``, addresses ``x`` (uint64) and windows ``windows``: varints of the number, the
        posting count and the hint bits (``_hint_bits``), then the narrow and the wide removal
        hints (group and low bits of x), each list as its length and its sorted deltas."""
        wide = ((x >> np.uint64(36 - self._gbits)) > 0) | (windows >= 1 << 24)
        bits = self._hint_bits()
        record = varint_encode([number, len(x), bits])
        for kind in (~wide, wide):  # narrow hints, then wide ones
            hints = np.unique((group[kind].astype(np.uint64) << np.uint64(bits))
                              | (x[kind] & np.uint64((1 << bits) - 1)))
            record += varint_encode([len(hints)]) + varint_encode(
                np.diff(hints, prepend=np.uint64(0)))
        return record

    def _add_calls(self, number: int, group: np.ndarray, x: np.ndarray, windows: np.ndarray
                   ) -> list[tuple[int, list]]:
        """The ``_ADD`` script calls (group, args) that write work ``number``'s postings: per
        group, at most BATCH (x high bits, x low 24 bits, window) triples after the head."""
        calls = []
        head = [self._min_level, MAX_LEVEL, self.load, 1 << (12 - self._gbits), number]
        order = np.argsort(group, kind="stable")
        cuts = np.flatnonzero(np.diff(group[order])) + 1
        for part in np.split(order, cuts) if len(order) else []:
            xs, ws = x[part], windows[part]
            args = list(chain.from_iterable(zip(
                (xs >> np.uint64(24)).tolist(), (xs & np.uint64(_M24)).tolist(), ws.tolist(),
                strict=True)))
            for i in range(0, len(args), 3 * BATCH):
                calls.append((int(group[part[0]]), head + args[i:i + 3 * BATCH]))
        return calls

    @_reachable
    def remove(self, work_id: str) -> int:
        """Remove exactly this work's postings; returns how many were removed (0 if absent)."""
        self._check_version(force=True)
        return self._remove(work_id)

    def _remove(self, work_id: str) -> int:
        """``remove`` once the index's layout, version and epoch have been checked."""
        record = self.client.hget(f"{self.prefix}:ids", work_id)
        if record is None:
            return 0
        values = varint_decode(record)
        number, windows, bits = (int(v) for v in values[:3])
        tag = number.to_bytes(3, "little")
        calls, at = [], 3
        for kind in (1, 2):  # narrow hints, then wide ones
            n = int(values[at])
            hints = np.cumsum(values[at + 1:at + 1 + n], dtype=np.uint64)
            at += 1 + n
            group = (hints >> np.uint64(bits)).astype(np.int64)
            local = (hints & np.uint64((1 << bits) - 1)).tolist()
            cuts = [0, *(np.flatnonzero(np.diff(group)) + 1).tolist(), len(local)]
            for lo, hi in zip(cuts, cuts[1:], strict=False):  # hints are sorted by group
                for i in range(lo, hi, BATCH):
                    calls.append((int(group[lo]), [bits, kind, tag, 36 - self._gbits,
                                                   *local[i:min(i + BATCH, hi)]]))
        self._scripts(_REMOVE, calls)
        pipe = self.client.pipeline(transaction=False)
        pipe.hdel(f"{self.prefix}:names", number)  # type: ignore[arg-type]  # an int field, as hset
        pipe.hdel(f"{self.prefix}:ids", work_id)
        pipe.decrby(f"{self.prefix}:windows", windows)
        pipe.execute()
        self._names.pop(number, None)
        return windows

    @_reachable
    def lookup(self, keys: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """Postings ``(work_id, window)`` per indexed, non-stop-listed key; see Index.lookup.

        One round trip of a GET of ``P:epoch`` and one HMGET per group (packed by hand on a
        plain ``redis.Redis``, a redis-py pipeline otherwise), one more for the groups whose
        buckets split since this client last read them, plus one HMGET on ``P:names`` for
        work numbers this client has not seen yet.
        """
        return self._lookup(keys)[0]

    @_reachable
    def lookup_revisions(
        self, keys: Sequence[int]
    ) -> tuple[dict[int, list[tuple[str, int]]], dict[str, str]]:
        """``(lookup(keys), {work_id: revision})`` in the same round trips as ``lookup``; see
        RevisedIndex.lookup_revisions.

        The revision is ``"<epoch>:<work number>"`` with the ``P:epoch`` read in the lookup's
        round trip: every add takes a new number from ``P:seq`` (never reused), and a Redis
        data loss or ``clear`` makes a new epoch, after which ``P:seq`` counts again (a restore
        of an older snapshot keeping the epoch would reuse numbers: the cached number -> id
        map assumes that never happens either). Of two numbers of one work in one lookup (a
        re-add racing it), the larger (later) one.
        """
        out, numbers = self._lookup(keys)
        epoch = self._epoch.decode() if self._epoch is not None else "-"
        names = self._names
        revisions = {}
        for number in sorted(numbers):  # ascending: a work's larger (later) number wins
            name = names.get(number)
            if name is not None:
                revisions[name] = f"{epoch}:{number}"
        return out, revisions

    def _plan(self, group: np.ndarray, x: np.ndarray, pending: list[int] | None):
        """The HMGETs of one lookup round, for the ``pending`` groups (None: all).

        A narrow key (x below 2**(36 - log2 groups)) asks for its bucket's narrow field, and
        for its wide field too in a group holding narrow keys' wide postings (huge windows); a
        wide key only for its bucket's wide field.

        Returns:
            (commands, narrow, wide, r): commands = [(group, field names)] in sending order;
            narrow and wide = (key positions, field numbers in the round's flattened replies)
            of the keys to match against the narrow and the wide fields; r = every key's
            remainder at its bucket's level (uint64).
        """
        one = np.uint64(1)
        level = self._level[group].astype(np.uint64)
        bucket = x & ((one << level) - one)
        level += (bucket < self._split[group].astype(np.uint64)).astype(np.uint64)
        bucket = x & ((one << level) - one)
        r = x >> level
        pos = (np.arange(len(group)) if pending is None
               else np.flatnonzero(np.isin(group, pending)))
        is_wide = (x[pos] >> np.uint64(36 - self._gbits)) > 0
        both = ~is_wide & self._wide[group[pos]]  # narrow keys in groups with huge windows
        ask_pos = np.concatenate([pos, pos[both]])
        ask_wide = np.concatenate([is_wide, np.ones(int(both.sum()), dtype=bool)])
        code = ((group[ask_pos].astype(np.uint64) << np.uint64(33))
                | (bucket[ask_pos] << one) | ask_wide.astype(np.uint64))
        uniq, field = np.unique(code, return_inverse=True)
        ugroup = (uniq >> np.uint64(33)).tolist()
        names = [("w%d" if kind else "%d") % b for b, kind in zip(
            ((uniq >> one) & np.uint64(0xFFFFFFFF)).tolist(), (uniq & one).tolist(),
            strict=True)]
        starts = [i for i in range(len(ugroup)) if i == 0 or ugroup[i] != ugroup[i - 1]]
        bounds = [*starts, len(ugroup)]
        commands = [(ugroup[lo], names[lo:hi]) for lo, hi in zip(bounds, bounds[1:],
                                                                strict=False)]
        return (commands, (ask_pos[~ask_wide], field[~ask_wide]),
                (ask_pos[ask_wide], field[ask_wide]), r)

    def _lookup(self, keys: Sequence[int]) -> tuple[dict[int, list[tuple[str, int]]], set[int]]:
        """(postings as ``lookup`` returns them, the work numbers in the postings read); the
        numbers not in ``self._names`` afterwards were removed while we looked."""
        self._check_version()
        u = sorted_distinct(np.asarray(keys, dtype=np.uint64))
        if not len(u):
            return {}, set()
        group, x = self._address(u)
        pending = None
        # (key positions, work numbers, windows) per round and kind
        hits: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for _attempt in range(LOOKUP_ROUNDS):
            commands, narrow, wide, r = self._plan(group, x, pending)
            epoch, replies = self._send(commands)
            if epoch != self._epoch:  # Redis lost the index, or it was cleared or replaced:
                self._see_epoch(epoch)  # numbers restart; check the layout again, then read
                self._check_version(force=True)  # every group again with fresh levels
                hits, pending = [], None
                continue
            retry, fresh, flat = self._read_metas(commands, replies)
            if retry:  # drop the stale groups' fields, read them again below
                ok = np.repeat(fresh, [len(names) for _, names in commands])
                narrow = tuple(a[ok[narrow[1]]] for a in narrow)
                wide = tuple(a[ok[wide[1]]] for a in wide)
            if len(narrow[0]):
                hits.append(self._match(narrow[0], narrow[1], r, flat, _NARROW, 3))
            if len(wide[0]):
                hits.append(self._match(wide[0], wide[1], r, flat, _WIDE, 7))
            if not retry:
                break
            pending = retry
        empty = np.zeros(0, dtype=np.uint64)
        hits.append((np.zeros(0, dtype=np.int64), empty, empty))
        found_keys, works, windows = (np.concatenate(parts) for parts in zip(*hits, strict=True))
        hit_key, hit_work, hit_window = self._below_max_df(found_keys, works, windows, len(u))
        numbers = set(hit_work.tolist())
        names = self._names
        # not ``numbers - names.keys()``: that iterates over every work number ever resolved
        self._resolve({n for n in numbers if n not in names})
        out: dict[int, list[tuple[str, int]]] = {}
        ukeys = u.tolist()
        for k, n, w in zip(hit_key.tolist(), hit_work.tolist(), hit_window.tolist(), strict=True):
            name = names.get(n)
            if name is not None:  # a number missing from names: removed while we looked
                out.setdefault(ukeys[k], []).append((name, w))
        return out, numbers

    def _read_metas(self, commands: list[tuple[int, list]], replies: list
                    ) -> tuple[list[int], list[bool], list]:
        """Read each group's meta (the first field of its reply: "level:split:wide:...") into
        the client's view of the groups. Returns (the groups whose view was stale, to read
        again; per command, whether its fields are fresh; the fields of every reply after the
        meta, flattened in order)."""
        retry, fresh, flat = [], [], []
        levels, splits, wides = self._level, self._split, self._wide
        for (g, _), values in zip(commands, replies, strict=True):
            meta = values[0]
            if meta is None:
                level, split, wide_here = self._min_level, 0, False
            else:
                head = meta.split(b":", 3)
                level, split, wide_here = int(head[0]), int(head[1]), head[2] != b"0"
                # wide_here: narrow keys of this group have wide postings (huge windows)
            if level != levels[g] or split != splits[g] or (wide_here and not wides[g]):
                levels[g], splits[g], wides[g] = level, split, wide_here
                retry.append(g)
                fresh.append(False)
            else:
                wides[g] = wide_here
                fresh.append(True)
            flat += values[1:]
        return retry, fresh, flat

    def _below_max_df(self, hit_key: np.ndarray, hit_work: np.ndarray, hit_window: np.ndarray,
                      n_keys: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The hits (key position, work number, window) of the keys whose document frequency
        (distinct works among its postings; ``n_keys`` keys in all) is at most ``max_df``:
        the stop-list."""
        if not len(hit_key):
            return hit_key, hit_work, hit_window
        pairs = sorted_distinct(hit_key.astype(np.uint64) << np.uint64(24) | hit_work)
        df = np.bincount((pairs >> np.uint64(24)).astype(np.int64), minlength=n_keys)
        allowed = df[hit_key] <= self.max_df
        if allowed.all():
            return hit_key, hit_work, hit_window
        return hit_key[allowed], hit_work[allowed], hit_window[allowed]

    @staticmethod
    def _match(pos: np.ndarray, field: np.ndarray, r: np.ndarray, flat: list, size: int,
               rbytes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(key position, work number, window) of every posting in the fetched fields whose r
        equals that of a query key asking for the same field.

        Args:
            pos, field: the query keys' positions and the numbers of their fields in ``flat``.
            r: every key's remainder (uint64, indexed by position). flat: the round's field
                replies (bytes or None). size, rbytes: bytes per posting and of its r.
        """
        used, slot = np.unique(field, return_inverse=True)
        values = [flat[f] or b"" for f in used.tolist()]
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        rows = np.frombuffer(b"".join(values), dtype=np.uint8).reshape(-1, size)
        if not len(rows):
            empty = np.zeros(0, dtype=np.uint64)
            return np.zeros(0, dtype=np.int64), empty, empty
        # a (field, r) pair names one key: one code per pair, the field's slot above r's bits
        # (r < 2**24 narrow, < 2**52 wide; a lookup of over 4096 wide fields goes in parts)
        rbits = 24 if rbytes == 3 else 52
        span = 1 << (64 - rbits)
        entry_slot = np.repeat(np.arange(len(values), dtype=np.int64), lengths // size)
        entry_r = _little(rows, 0, rbytes)
        outs = []
        for first in range(0, len(values), span):  # one pass unless a huge wide lookup
            if len(values) <= span:
                keys_in, rows_in = np.arange(len(pos)), np.arange(len(rows))
            else:
                keys_in = np.flatnonzero((slot >= first) & (slot < first + span))
                rows_in = np.flatnonzero((entry_slot >= first) & (entry_slot < first + span))
            key_code = ((slot[keys_in] - first).astype(np.uint64) << np.uint64(rbits)) \
                | r[pos[keys_in]]
            order = np.argsort(key_code)
            key_code = key_code[order]
            entry_code = ((entry_slot[rows_in] - first).astype(np.uint64) << np.uint64(rbits)) \
                | entry_r[rows_in]
            at = np.minimum(np.searchsorted(key_code, entry_code), len(key_code) - 1)
            sel = np.flatnonzero(key_code[at] == entry_code)
            hit_rows = rows[rows_in[sel]]
            outs.append((pos[keys_in[order[at[sel]]]], _little(hit_rows, rbytes, 3),
                         _little(hit_rows, rbytes + 3, size - rbytes - 3)))
        key, work, window = (np.concatenate(parts) for parts in zip(*outs, strict=True))
        return key, work, window

    def _send(self, commands: list[tuple[int, list[str]]]) -> tuple[bytes | None, list]:
        """(``P:epoch``, the HMGET reply of each command): one round trip."""
        if self._packed:
            epoch, *replies = self._send_packed(commands)
            return epoch, replies
        pipe = self.client.pipeline(transaction=False)
        pipe.get(f"{self.prefix}:epoch")
        for group, names in commands:
            pipe.hmget(f"{self.prefix}:g:{group}", ["", *names])
        epoch, *replies = pipe.execute()
        return epoch, replies

    def _send_packed(self, commands: list[tuple[int, list[str]]]) -> list:
        """[epoch, HMGET reply per command]: the lookup's commands written in the Redis
        protocol (RESP) here and sent on one pooled connection, their replies read by
        redis-py's parser.

        Skips redis-py's per-command pipeline work (argument encoding, command stack, reply
        callbacks): measured 0.81 instead of 1.38 ms per lookup, median, in the first layout.
        A failure closes the connection (replies may be pending on it) and is re-raised.
        """
        template = [_resp_head("GET", f"{self.prefix}:epoch", 0)]
        template += [_resp_head("HMGET", f"{self.prefix}:g:{group}", len(names) + 1)
                     for group, names in commands]
        fields = list(chain.from_iterable(["", *names] for _, names in commands))
        packed = ("".join(template) % tuple(chain.from_iterable(
            zip(map(len, fields), fields, strict=True)))).encode()
        pool = self.client.connection_pool
        conn = pool.get_connection()
        try:
            conn.send_packed_command([packed])
            return [conn.read_response() for _ in range(len(commands) + 1)]
        except BaseException:
            conn.disconnect()
            raise
        finally:
            pool.release(conn)

    def _resolve(self, numbers: set[int]) -> None:
        if not numbers:
            return
        wanted = sorted(numbers)
        # redis-py types its sync client's replies as Awaitable too (hence the ignore)
        for number, name in zip(
            wanted,
            self.client.hmget(f"{self.prefix}:names", wanted),  # type: ignore[arg-type]
            strict=True,
        ):
            if name is not None:
                self._names[number] = name.decode()

    @_reachable
    def has_work(self, work_id: str) -> bool:
        """True when the work has postings here (one HEXISTS)."""
        return bool(self.client.hexists(f"{self.prefix}:ids", work_id))

    @_reachable
    def work_ids(self) -> Iterator[str]:
        """Ids of the indexed works (HSCAN of ``P:names``; read eagerly, any order)."""
        return iter([v.decode() for _, v in
                     self.client.hscan_iter(f"{self.prefix}:names", count=1000)])

    @_reachable
    def clear(self) -> None:
        """Delete every key under the prefix (SCAN + UNLINK), in any layout, and create an empty
        index of the current layout holding ``version``."""
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
        """Counts: backend "redis", prefix, works, windows (postings), buckets (bucket fields),
        groups, layout, max_df, version (stored, or None when empty), used_memory_bytes (the
        whole Redis server's, from INFO memory)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hlen(f"{self.prefix}:ids")
        pipe.get(f"{self.prefix}:windows")
        pipe.get(f"{self.prefix}:version")
        pipe.get(f"{self.prefix}:groups")
        pipe.get(f"{self.prefix}:layout")
        works, windows, version, groups, layout = pipe.execute()
        groups = int(groups or self.groups)
        for group in range(groups):
            pipe.hlen(f"{self.prefix}:g:{group}")
        buckets = sum(max(n - 1, 0) for n in pipe.execute())  # minus the meta field
        info = self.client.info("memory")
        return {
            "backend": "redis",
            "prefix": self.prefix,
            "works": int(works),
            "windows": int(windows or 0),
            "buckets": buckets,
            "groups": groups,
            "layout": layout.decode() if layout is not None else None,
            "max_df": self.max_df,
            "version": version.decode() if version is not None else None,
            "used_memory_bytes": info.get("used_memory") if isinstance(info, dict) else None,
        }
