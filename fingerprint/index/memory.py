"""MemoryIndex: the in-process fingerprint index, saved to and loaded from a directory.

Layout in memory while it is being changed (CPython heap, ``python -m bench.index_measure``):
  - ``_post``: key -> its packed posting ``work_number << 32 | window`` (an int) when it has
    one, else the list of them: most keys have one posting, and a bare int saves the list;
  - ``_df``: key -> document frequency, only for keys held by two works or more;
  - ``_keys_of``: work number -> the distinct keys it used (``array('Q')``), so removal is exact;
  - ``_presence``: from ``PRESENCE_MIN_KEYS`` keys on, a PresenceFilter
    (:mod:`fingerprint.index.presence`) that a lookup asks first, so that the dict is read only
    for the query keys it may hold.

On disk (``save(dir)``, format 2), postings sorted by key (bytes per window measured by
``python -m bench.scaling``, bench/README.md):
  - ``lows.npy``, ``uppers.npy``: the keys below 2**40 (every window key of the default
    configuration) in Elias-Fano form (Elias, JACM 1974; Fano, MIT 1971; as in Vigna,
    "Quasi-succinct indices", WSDM 2013): the low ``low_bits`` bits of each key in an array of
    that width (0, 8, 16, 24 or 32 bits, whichever makes the files smallest), the rest in unary in
    a bit vector (one set bit per key at ``high + rank``), about 2 bits per key;
  - ``wide_keys.npy``: the other keys (uint64, e.g. short-text keys with bit 63 set);
  - ``postings.npy``: per posting ``work << window_bits | window`` (uint16, uint32 or uint64,
    the narrowest that holds the widest work number and window), in key order, narrow keys
    first;
  - ``ids.json`` (work number -> id) and ``manifest.json`` (format, FINGERPRINT_VERSION, bit
    widths, counts, max_df), written last.

``load`` maps ``postings.npy`` into memory (``np.load(mmap_mode="r")``: a page decodes only the
postings it hits, and the pages of the file are shared by every process that loads it), reads
the key files with one array read each and rebuilds the sorted key array (a few NumPy
passes, about 0.1 s per million windows) and a directory on the keys' high bits
(:class:`fingerprint.index.directory.KeyDirectory`, not saved; with the distinct keys and
each one's first posting, 16 to 20 bytes per distinct key in memory): lookups then run on the
arrays, a key or two read per query key at any size, with no per-key Python object, so
``python -m fingerprint query`` starts quickly on a large index. The first ``add``, ``remove`` or ``clear`` on a loaded index turns the arrays into the dicts
above (seconds per million windows) and changes those.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import count
from pathlib import Path

import numpy as np

from fingerprint.arrays import sorted_distinct
from fingerprint.compiled.lookup import gather_held, gather_postings, name_works
from fingerprint.index.base import (
    DEFAULT_MAX_DF,
    MAX_KEY,
    MAX_WINDOW,
    IndexLayoutError,
    IndexVersionError,
    check_posting,
    check_work_id,
)
from fingerprint.index.directory import KeyDirectory
from fingerprint.index.files import read_manifest, write_atomic, write_manifest
from fingerprint.index.hits import Hits
from fingerprint.index.presence import PresenceFilter
from fingerprint.version import FINGERPRINT_VERSION

FORMAT = "fingerprint-memory-index"
FORMAT_VERSION = 2
#: Keys below this are stored in Elias-Fano form on disk, the others as plain uint64.
NARROW_KEYS = 1 << 40
_LOW = 0xFFFFFFFF
_LOW_BITS = (0, 8, 16, 24, 32)
_ARRAYS = ("lows", "uppers", "wide_keys", "postings")
#: Distinct keys from which a lookup on the dicts first tests its keys with a PresenceFilter.
#: Tested in the compiled lookup (a hash and a bit read per key), the filter pays from a few
#: thousand keys on: CPU µs per page of ``lookup_hits``, filter on / off, on the indexes of
#: ``bench.stages`` (2,901 keys, dailies; 6,561, judgments): 3.25 / 3.8 and 4.95 / 5.5.
PRESENCE_MIN_KEYS = 1 << 11
#: Process-wide serial of index instances (and of their ``clear``): the first part of revisions.
_EPOCHS = count()


class MemoryIndex:
    """In-process fingerprint index (implements :class:`fingerprint.index.base.Index`).

    Args:
        max_df: stop-list limit in works (see :mod:`fingerprint.index.base`).
        version: FINGERPRINT_VERSION of the fingerprints; default: the running code's.

    Not thread-safe: one writer, or readers only. See the module docstring for the two forms
    it keeps its postings in (dicts while changed, sorted arrays after ``load``).
    """

    def __init__(self, max_df: int = DEFAULT_MAX_DF, version: str | None = None):
        if max_df < 1:
            raise ValueError(f"max_df must be >= 1, got {max_df!r}")
        self.max_df = max_df
        self._version = version
        self._post: dict[int, int | list[int]] = {}
        self._df: dict[int, int] = {}
        self._keys_of: dict[int, array] = {}
        self._ids: list[str | None] = []
        self._number: dict[str, int] = {}
        self._windows = 0
        # after load: (sorted keys per posting, packed postings as saved (a read-only memory
        # map), window bits of the packing), until the first change
        self._arrays: tuple[np.ndarray, np.ndarray, int] | None = None
        # after load: the distinct keys' directory, and the first posting of each distinct key
        # then the number of postings (int64, distinct keys + 1)
        self._directory: tuple[KeyDirectory, np.ndarray] | None = None
        # work numbers are never reused within an epoch (``_ids`` only grows); ``clear`` starts
        # a new one, so "epoch:number" is a revision no other add in this process had
        self._epoch = next(_EPOCHS)
        # the dicts' PresenceFilter from PRESENCE_MIN_KEYS keys on, built at the first lookup
        # that needs it and dropped when it is full (rebuilt larger at the next lookup)
        self._presence: PresenceFilter | None = None
        self._scratch = np.zeros(0, dtype=np.int64)  # _found's (see lookup.name_works)

    @property
    def version(self) -> str:
        """FINGERPRINT_VERSION of the indexed fingerprints (str)."""
        if self._version is None:
            self._version = FINGERPRINT_VERSION
        return self._version

    def add(self, work_id: str, postings: Iterable[tuple[int, int]]) -> int:
        """Index a work's ``(key, window)`` postings, replacing its old ones; see Index.add."""
        check_work_id(work_id)
        by_key: dict[int, list[int]] = {}
        seen = dict.fromkeys((key, window) for key, window in postings)  # distinct, in order
        for key, window in seen:
            if not (0 <= key <= MAX_KEY and 0 <= window <= MAX_WINDOW):
                check_posting(key, window)  # raises
            by_key.setdefault(int(key), []).append(int(window))
        self._thaw()
        number = self._number.get(work_id)
        if number is not None:
            self.remove(work_id)
        number = len(self._ids)
        self._ids.append(work_id)
        self._number[work_id] = number
        base = number << 32
        post, df = self._post, self._df
        fresh = []
        for key, windows in by_key.items():
            held = post.get(key)
            if held is None:  # most keys of a new work: one window, no list built
                post[key] = base | windows[0] if len(windows) == 1 else [base | w for w in windows]
                fresh.append(key)
                continue
            df[key] = df.get(key, 1) + 1
            packed = [base | w for w in windows]
            if isinstance(held, int):
                post[key] = [held, *packed]
            else:
                held.extend(packed)
        self._keys_of[number] = array("Q", by_key)
        self._windows += len(seen)
        if self._presence is not None:
            self._presence.add(np.array(fresh, dtype=np.uint64))
            if self._presence.full:
                self._presence = None
        return len(seen)

    def remove(self, work_id: str) -> int:
        """Remove exactly this work's postings; returns how many were removed (0 if absent)."""
        if work_id not in self._number:
            return 0
        self._thaw()
        number = self._number.pop(work_id)
        self._ids[number] = None
        removed = 0
        post, df = self._post, self._df
        for key in self._keys_of.pop(number):
            held = _as_list(post[key])
            kept = [p for p in held if p >> 32 != number]
            removed += len(held) - len(kept)
            if kept:
                post[key] = kept[0] if len(kept) == 1 else kept
                left = df.pop(key) - 1
                if left > 1:
                    df[key] = left
            else:
                del post[key]
        self._windows -= removed
        return removed

    def lookup(self, keys: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """Postings ``(work_id, window)`` per indexed, non-stop-listed key; see Index.lookup."""
        query, hits = self._found(keys)
        out: dict[int, list[tuple[str, int]]] = {}
        works = hits.works
        for key, work, window in zip(query[hits.place].tolist(), hits.work.tolist(),
                                     hits.window.tolist(), strict=True):
            out.setdefault(key, []).append((works[work], window))
        return out

    def lookup_hits(self, keys: Sequence[int] | np.ndarray) -> Hits:
        """``lookup_revisions(keys)`` as arrays (``fingerprint.index.hits.Hits``, with
        revisions and each posting's key as its first place in ``keys``): the same postings,
        without a tuple per posting. ``keys``: ints, or a uint64 array."""
        return self._found(keys)[1]

    def _found(self, keys: Sequence[int] | np.ndarray) -> tuple[np.ndarray, Hits]:
        """(query keys (uint64), the postings as Hits, each posting's key as its first place
        among them) of the
        distinct, indexed, non-stop-listed keys of ``keys``: in the dicts' form, key by key in
        their order of first appearance (each key's postings in the order added); loaded, in
        key order (a KeyDirectory finds each key)."""
        query = np.ascontiguousarray(keys, dtype=np.uint64)
        if len(self._scratch) < len(self._ids):
            self._scratch = np.full(2 * len(self._ids), -1, dtype=np.int64)
        if self._arrays is None:
            presence = self._presence_filter()
            bits, shift = (None, 0) if presence is None else presence.bits
            works, revisions, work, window, at = gather_held(
                query, bits, shift, self._post, self._df, self.max_df, self._scratch, self._ids,
                self._epoch)
            return query, Hits(works, revisions, work, window, at)
        assert self._directory is not None  # set by load, with the arrays
        directory, bounds = self._directory
        _, postings, window_bits = self._arrays
        at, numbers, window = gather_postings(directory.find(query), bounds, postings,
                                              window_bits, self.max_df)
        works, revisions, work = name_works(numbers, self._scratch, self._ids, self._epoch)
        return query, Hits(works, revisions, work, window, at)

    def _presence_filter(self) -> PresenceFilter | None:
        """The dicts' PresenceFilter (built now when missing), or None below PRESENCE_MIN_KEYS
        distinct keys."""
        if self._presence is None and len(self._post) >= PRESENCE_MIN_KEYS:
            self._presence = PresenceFilter(2 * len(self._post))
            self._presence.add(np.fromiter(self._post, dtype=np.uint64, count=len(self._post)))
        return self._presence

    def _unpack(self, at: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(work numbers, windows), int64, of the loaded postings at positions ``at`` (all when
        None), read from the saved packed array."""
        assert self._arrays is not None  # set by load
        _, postings, window_bits = self._arrays
        packed = (postings if at is None else postings[at]).astype(np.uint64)
        shift = np.uint64(window_bits)
        return ((packed >> shift).astype(np.int64),
                (packed & ((np.uint64(1) << shift) - np.uint64(1))).astype(np.int64))

    def lookup_revisions(
        self, keys: Sequence[int]
    ) -> tuple[dict[int, list[tuple[str, int]]], dict[str, str]]:
        """``(lookup(keys), {work_id: revision})`` for the works in those postings; see
        RevisedIndex.lookup_revisions. The revision is ``"<epoch>:<work number>"``: the work
        number is new at every add, the epoch is new for every instance and every ``clear``
        (a process-wide serial)."""
        out = self.lookup(keys)
        number, epoch = self._number, self._epoch
        works = {w for hits in out.values() for w, _ in hits}
        return out, {w: f"{epoch}:{number[w]}" for w in works}

    def has_work(self, work_id: str) -> bool:
        """True when the work has postings here."""
        return work_id in self._number

    def work_ids(self) -> Iterator[str]:
        """Ids of the indexed works, in the order they were added."""
        return iter(list(self._number))

    def clear(self) -> None:
        """Drop every work and posting (the version stays ``self.version``)."""
        type(self).__init__(self, self.max_df, self._version)

    def stats(self) -> dict:
        """Counts: backend "memory", works, windows, keys (distinct), stop_listed (keys with
        df > max_df), max_df, version."""
        if self._arrays is not None:
            keys, stop_listed = self._array_key_counts()
        else:
            keys = len(self._post)
            stop_listed = sum(1 for d in self._df.values() if d > self.max_df)
        return {
            "backend": "memory",
            "works": len(self._number),
            "windows": self._windows,
            "keys": keys,
            "stop_listed": stop_listed,
            "max_df": self.max_df,
            "version": self.version,
        }

    def _array_key_counts(self) -> tuple[int, int]:
        """(distinct keys, keys with df > max_df) of the loaded arrays."""
        assert self._arrays is not None  # set by load
        sorted_keys = self._arrays[0]
        works, _ = self._unpack()
        if not len(sorted_keys):
            return 0, 0
        starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
        key_no = np.cumsum(np.concatenate(([False], sorted_keys[1:] != sorted_keys[:-1])))
        pairs = sorted_distinct(key_no * (len(self._ids) + 1) + works)
        df = np.bincount(pairs // (len(self._ids) + 1), minlength=len(starts))
        return len(starts), int((df > self.max_df).sum())

    def _postings_sorted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys, work numbers, windows) of every posting, sorted by key then work, window."""
        if self._arrays is not None:
            return (self._arrays[0], *self._unpack())
        keys = np.fromiter(sorted(self._post), dtype=np.uint64, count=len(self._post))
        counts = np.fromiter(
            (len(_as_list(self._post[k])) for k in keys.tolist()), dtype=np.int64,
            count=len(keys))
        packed = np.fromiter(
            (p for k in keys.tolist() for p in sorted(_as_list(self._post[k]))),
            dtype=np.uint64, count=self._windows)
        return (np.repeat(keys, counts), (packed >> np.uint64(32)).astype(np.int64),
                (packed & np.uint64(_LOW)).astype(np.int64))

    def save(self, directory: str | os.PathLike) -> None:
        """Write the index to ``directory`` (created if missing), replacing a previous save.

        Each file is written under a temporary name and renamed; the manifest goes last, and
        ``load`` checks the counts it records, so an interrupted save is detected on load.

        Raises:
            OSError: the directory cannot be written.
        """
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        keys, works, windows = self._postings_sorted()
        live = sorted(self._number.values())  # compact the work numbers: 0..works-1
        remap = np.zeros(len(self._ids) or 1, dtype=np.int64)
        remap[live] = np.arange(len(live))
        works = remap[works]
        window_bits = int(windows.max()).bit_length() if len(windows) else 0
        work_bits = max(len(live) - 1, 0).bit_length()
        dtype = next(t for t, bits in ((np.uint16, 16), (np.uint32, 32), (np.uint64, 64))
                     if window_bits + work_bits <= bits)
        narrow = int(np.searchsorted(keys, np.uint64(NARROW_KEYS)))
        low_bits, lows, uppers = _elias_fano(keys[:narrow])
        arrays = {
            "lows": lows,
            "uppers": uppers,
            "wide_keys": keys[narrow:],
            "postings": ((works.astype(np.uint64) << np.uint64(window_bits))
                         | windows.astype(np.uint64)).astype(dtype),
        }
        for name, data in arrays.items():
            write_atomic(path / f"{name}.npy", partial(np.save, arr=data, allow_pickle=False))
        ids = [self._ids[n] for n in live]
        write_atomic(path / "ids.json",
                     lambda f: f.write(json.dumps(ids, ensure_ascii=False).encode()))
        distinct, _ = _distinct_keys(keys)
        write_manifest(path, FORMAT, FORMAT_VERSION, fingerprint_version=self.version,
                       works=len(ids), windows=len(keys), keys=distinct, narrow=narrow,
                       low_bits=low_bits, window_bits=window_bits, max_df=self.max_df)

    @classmethod
    def load(
        cls, directory: str | os.PathLike, max_df: int | None = None, version: str | None = None
    ) -> MemoryIndex:
        """Read an index written by :meth:`save`.

        Args:
            directory: the folder given to ``save``.
            max_df: stop-list limit; default: the one saved.
            version: the FINGERPRINT_VERSION expected; default: the running code's.

        Returns:
            MemoryIndex, answering lookups from the saved arrays until it is changed.

        Raises:
            FileNotFoundError: no index in ``directory``.
            IndexLayoutError: the index was saved in an older format (run ``python -m
                fingerprint index`` again to rebuild it from the saved works).
            IndexVersionError: the index holds fingerprints of another FINGERPRINT_VERSION.
            ValueError: the files are not a complete index of this format.
        """
        path = Path(directory)
        _check_format(path)
        manifest = read_manifest(path, FORMAT, FORMAT_VERSION, "fingerprint index")
        expected = version or FINGERPRINT_VERSION
        if manifest["fingerprint_version"] != expected:
            raise IndexVersionError(
                f"index in {path} holds fingerprints of version {manifest['fingerprint_version']!r}"
                f", the running code makes {expected!r}: rebuild the index from the work store"
            )
        index = cls(max_df or manifest["max_df"], version=expected)
        # the postings are used where they lie on disk: pages read the few they hit
        data = {n: np.load(path / f"{n}.npy", allow_pickle=False,
                           mmap_mode="r" if n == "postings" else None) for n in _ARRAYS}
        ids = json.loads((path / "ids.json").read_text())
        narrow = manifest["narrow"]
        if (len(data["postings"]), narrow + len(data["wide_keys"]), len(ids)) != (
            manifest["windows"], manifest["windows"], manifest["works"]
        ):
            raise ValueError(f"{path}: index files do not match manifest.json (interrupted save?)")
        keys = np.concatenate([
            _elias_fano_decode(manifest["low_bits"], data["lows"], data["uppers"], narrow),
            data["wide_keys"].astype(np.uint64)])
        index._ids = list(ids)
        index._number = {w: i for i, w in enumerate(ids)}
        index._windows = len(keys)
        index._arrays = (keys, data["postings"], manifest["window_bits"])
        _, starts = _distinct_keys(keys)
        bounds = np.empty(len(starts) + 1, dtype=np.int64)
        bounds[:-1], bounds[-1] = starts, len(keys)
        index._directory = (KeyDirectory(keys[starts], NARROW_KEYS), bounds)
        return index

    def _thaw(self) -> None:
        """Turn the arrays of a loaded index into the dicts that ``add`` and ``remove`` change
        (see the module docstring); no-op when there are none."""
        if self._arrays is None:
            return
        keys, (works, windows) = self._arrays[0], self._unpack()
        self._arrays = self._directory = self._presence = None
        packed = ((works.astype(np.uint64) << np.uint64(32)) | windows.astype(np.uint64)).tolist()
        distinct, starts = _distinct_keys(keys)
        bounds = [*starts.tolist(), len(keys)]
        key_list = keys[starts].tolist()
        self._post = {
            k: packed[bounds[i]] if bounds[i + 1] - bounds[i] == 1 else packed[bounds[i]:bounds[i + 1]]
            for i, k in enumerate(key_list)
        }
        # distinct (key, work) pairs give the document frequencies and each work's keys
        key_of_posting = np.repeat(np.arange(distinct), np.diff(bounds))
        pairs = sorted_distinct(works * max(distinct, 1) + key_of_posting)
        pair_work, pair_key = np.divmod(pairs, max(distinct, 1))
        df = np.bincount(pair_key, minlength=distinct)
        self._df = {key_list[i]: int(df[i]) for i in np.flatnonzero(df > 1).tolist()}
        cuts = np.searchsorted(pair_work, np.arange(len(self._ids) + 1))
        work_keys = keys[starts][pair_key]
        self._keys_of = {n: array("Q", work_keys[cuts[n]:cuts[n + 1]].tobytes())
                         for n in self._number.values()}


def _distinct_keys(keys: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of distinct keys, index of each one's first posting) of sorted uint64 keys."""
    if not len(keys):
        return 0, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return len(starts), starts


def _elias_fano(keys: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Elias-Fano form of sorted uint64 keys (module docstring): (low bits, lows, uppers).

    The low width is the one of 0, 8, 16, 24, 32 bits that makes lows + uppers smallest; lows
    is a uint8 array of low_bits / 8 little-endian bytes per key, uppers a little-endian bit
    vector (uint8) with bit ``(key >> low_bits) + rank`` set per key.
    """
    n = len(keys)
    top = int(keys[-1]) if n else 0
    low_bits = min(_LOW_BITS, key=lambda b: n * b + n + (top >> b) + 1)
    # the low bits of each key as low_bits / 8 little-endian bytes (a uint8 row per key)
    lows = (keys & np.uint64((1 << low_bits) - 1)).view(np.uint8).reshape(-1, 8)[
        :, :low_bits // 8].copy()
    bits = np.zeros((top >> low_bits) + n + 1 if n else 0, dtype=np.uint8)
    bits[(keys >> np.uint64(low_bits)).astype(np.int64) + np.arange(n)] = 1
    return low_bits, lows, np.packbits(bits, bitorder="little")


def _elias_fano_decode(low_bits: int, lows: np.ndarray, uppers: np.ndarray, n: int
                       ) -> np.ndarray:
    """Inverse of :func:`_elias_fano`: the n sorted keys (uint64).

    Raises:
        ValueError: the arrays do not hold n keys.
    """
    ones = np.flatnonzero(np.unpackbits(uppers, bitorder="little"))
    if len(ones) != n or lows.shape != (n, low_bits // 8):
        raise ValueError("index files do not match manifest.json (interrupted save?)")
    keys = (ones - np.arange(n)).astype(np.uint64) << np.uint64(low_bits)
    wide = np.zeros((n, 8), dtype=np.uint8)
    wide[:, :low_bits // 8] = lows
    return keys | wide.view(np.uint64).ravel()


def _check_format(path: Path) -> None:
    """Raise IndexLayoutError when ``path`` holds a MemoryIndex of an older format."""
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # missing or unreadable: read_manifest says so
    if manifest.get("format") == FORMAT and manifest.get("format_version", 0) < FORMAT_VERSION:
        raise IndexLayoutError(
            f"fingerprint index in {path} was saved in format {manifest.get('format_version')}, "
            f"this code reads format {FORMAT_VERSION}: run `python -m fingerprint index` again "
            f"to rebuild it from the saved works")


def _as_list(held: int | list[int]) -> list[int]:
    """The packed postings of one key as a list (a key with one posting holds a bare int)."""
    return [held] if isinstance(held, int) else held
