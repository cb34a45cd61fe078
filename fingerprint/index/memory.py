"""MemoryIndex: the in-process fingerprint index, saved to and loaded from a directory.

Layout in memory (CPython heap, ``python -m fingerprint.index.measure``):
  - ``_post``: key -> its packed posting ``work_number << 32 | window`` (an int) when it has
    one, else the list of them: most keys have one posting, and a bare int saves the list
    (about 64 of the 170 bytes per window a list costs);
  - ``_df``: key -> document frequency, only for keys held by two works or more;
  - ``_keys_of``: work number -> the distinct keys it used (``array('Q')``), so removal is exact.

On disk (``save(dir)``): a CSR layout in NumPy ``.npy`` files, 16 bytes per window plus 16
bytes per distinct key: ``keys.npy`` (uint64, sorted), ``offsets.npy`` (int64, len keys + 1),
``works.npy`` and ``windows.npy`` (uint32 per posting), ``ids.json`` (work number -> id) and
``manifest.json`` (format, FINGERPRINT_VERSION, counts, max_df), written last.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import count
from pathlib import Path

import numpy as np

from fingerprint.index.base import (
    DEFAULT_MAX_DF,
    IndexVersionError,
    check_posting,
    check_work_id,
    current_version,
)
from fingerprint.index.files import read_manifest, write_atomic, write_manifest

FORMAT = "fingerprint-memory-index"
FORMAT_VERSION = 1
_LOW = 0xFFFFFFFF
#: Process-wide serial of index instances (and of their ``clear``): the first part of revisions.
_EPOCHS = count()


class MemoryIndex:
    """Dict-based fingerprint index (implements :class:`fingerprint.index.base.Index`).

    Args:
        max_df: stop-list limit in works (see :mod:`fingerprint.index.base`).
        version: FINGERPRINT_VERSION of the fingerprints; default: the running code's.

    Not thread-safe: one writer, or readers only.
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
        # work numbers are never reused within an epoch (``_ids`` only grows); ``clear`` starts
        # a new one, so "epoch:number" is a revision no other add in this process had
        self._epoch = next(_EPOCHS)

    @property
    def version(self) -> str:
        """FINGERPRINT_VERSION of the indexed fingerprints (str)."""
        if self._version is None:
            self._version = current_version()
        return self._version

    def add(self, work_id: str, postings: Iterable[tuple[int, int]]) -> int:
        """Index a work's ``(key, window)`` postings, replacing its old ones; see Index.add."""
        check_work_id(work_id)
        by_key: dict[int, list[int]] = {}
        seen: set[tuple[int, int]] = set()
        for key, window in postings:
            check_posting(key, window)
            if (key, window) not in seen:
                seen.add((key, window))
                by_key.setdefault(int(key), []).append(int(window))
        number = self._number.get(work_id)
        if number is not None:
            self.remove(work_id)
        number = len(self._ids)
        self._ids.append(work_id)
        self._number[work_id] = number
        base = number << 32
        post, df = self._post, self._df
        for key, windows in by_key.items():
            packed = [base | w for w in windows]
            held = post.get(key)
            if held is None:
                post[key] = packed[0] if len(packed) == 1 else packed
            else:
                df[key] = df.get(key, 1) + 1
                if type(held) is int:
                    post[key] = [held, *packed]
                else:
                    held.extend(packed)
        self._keys_of[number] = array("Q", by_key)
        self._windows += len(seen)
        return len(seen)

    def remove(self, work_id: str) -> int:
        """Remove exactly this work's postings; returns how many were removed (0 if absent)."""
        number = self._number.pop(work_id, None)
        if number is None:
            return 0
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
        out: dict[int, list[tuple[str, int]]] = {}
        post, df, ids, max_df = self._post, self._df, self._ids, self.max_df
        for key in keys:
            held = post.get(key)
            if held is None or key in out or df.get(key, 1) > max_df:
                continue
            if type(held) is int:
                out[key] = [(ids[held >> 32], held & _LOW)]
            else:
                out[key] = [(ids[p >> 32], p & _LOW) for p in held]
        return out

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
        self.__init__(self.max_df, self._version)

    def stats(self) -> dict:
        """Counts: backend "memory", works, windows, keys (distinct), stop_listed (keys with
        df > max_df), max_df, version."""
        return {
            "backend": "memory",
            "works": len(self._number),
            "windows": self._windows,
            "keys": len(self._post),
            "stop_listed": sum(1 for d in self._df.values() if d > self.max_df),
            "max_df": self.max_df,
            "version": self.version,
        }

    def save(self, directory: str | os.PathLike) -> None:
        """Write the index to ``directory`` (created if missing), replacing a previous save.

        Each file is written under a temporary name and renamed; the manifest goes last, and
        ``load`` checks the counts it records, so an interrupted save is detected on load.

        Raises:
            OSError: the directory cannot be written.
        """
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        live = {n: i for i, n in enumerate(sorted(self._keys_of))}  # compact work numbers
        keys = np.fromiter(sorted(self._post), dtype=np.uint64, count=len(self._post))
        counts = np.fromiter(
            (len(_as_list(self._post[k])) for k in keys.tolist()), dtype=np.int64,
            count=len(keys)
        )
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        packed = np.fromiter(
            (p for k in keys.tolist() for p in _as_list(self._post[k])), dtype=np.uint64,
            count=self._windows
        )
        remap = np.zeros(len(self._ids) or 1, dtype=np.uint32)
        for old, new in live.items():
            remap[old] = new
        arrays = {
            "keys": keys,
            "offsets": offsets,
            "works": remap[(packed >> np.uint64(32)).astype(np.int64)],
            "windows": (packed & np.uint64(_LOW)).astype(np.uint32),
        }
        for name, data in arrays.items():
            write_atomic(path / f"{name}.npy", lambda f, d=data: np.save(f, d, allow_pickle=False))
        ids = [self._ids[n] for n in live]
        write_atomic(path / "ids.json",
                     lambda f: f.write(json.dumps(ids, ensure_ascii=False).encode()))
        write_manifest(path, FORMAT, FORMAT_VERSION, fingerprint_version=self.version,
                       works=len(ids), windows=self._windows, keys=len(keys), max_df=self.max_df)

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
            MemoryIndex.

        Raises:
            FileNotFoundError: no index in ``directory``.
            IndexVersionError: the index holds fingerprints of another FINGERPRINT_VERSION.
            ValueError: the files are not a complete index of this format.
        """
        path = Path(directory)
        manifest = read_manifest(path, FORMAT, FORMAT_VERSION, "fingerprint index")
        expected = version or current_version()
        if manifest["fingerprint_version"] != expected:
            raise IndexVersionError(
                f"index in {path} holds fingerprints of version {manifest['fingerprint_version']!r}"
                f", the running code makes {expected!r}: rebuild the index from the work store"
            )
        index = cls(max_df or manifest["max_df"], version=expected)
        data = {n: np.load(path / f"{n}.npy", allow_pickle=False) for n in
                ("keys", "offsets", "works", "windows")}
        ids = json.loads((path / "ids.json").read_text())
        if (len(data["keys"]), len(data["works"]), len(ids)) != (
            manifest["keys"], manifest["windows"], manifest["works"]
        ):
            raise ValueError(f"{path}: index files do not match manifest.json (interrupted save?)")
        index._fill(ids, data)
        return index

    def _fill(self, ids: list[str], data: dict[str, np.ndarray]) -> None:
        keys, offsets, works = data["keys"], data["offsets"], data["works"]
        self._ids = list(ids)
        self._number = {w: i for i, w in enumerate(ids)}
        packed = ((works.astype(np.uint64) << np.uint64(32)) | data["windows"]).tolist()
        bounds = offsets.tolist()
        key_list = keys.tolist()
        self._post = {
            k: packed[bounds[i]] if bounds[i + 1] - bounds[i] == 1 else packed[bounds[i]:bounds[i + 1]]
            for i, k in enumerate(key_list)
        }
        self._windows = len(packed)
        # distinct (key, work) pairs give the document frequencies and each work's keys
        key_of_posting = np.repeat(np.arange(len(keys)), np.diff(offsets))
        pairs = np.unique(works.astype(np.int64) * max(len(keys), 1) + key_of_posting)
        pair_work, pair_key = np.divmod(pairs, max(len(keys), 1))
        df = np.bincount(pair_key, minlength=len(keys))
        self._df = {key_list[i]: int(df[i]) for i in np.flatnonzero(df > 1).tolist()}
        cuts = np.searchsorted(pair_work, np.arange(len(ids) + 1))
        work_keys = keys[pair_key]
        self._keys_of = {
            n: array("Q", work_keys[cuts[n]:cuts[n + 1]].tobytes()) for n in range(len(ids))
        }


def _as_list(held: int | list[int]) -> list[int]:
    """The packed postings of one key as a list (a key with one posting holds a bare int)."""
    return [held] if type(held) is int else held
