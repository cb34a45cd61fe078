"""KeyDirectory: where each key is in a sorted array of distinct keys, in O(1) expected.

A loaded MemoryIndex answered each query key by binary search over all its sorted keys: about
log2(n) steps, most of them cache misses once the array outgrows the CPU caches, so finding a
page's keys took 2 times longer at 1M windows and 5 times longer at 10M than at 10k (below).
The directory is direct addressing on the keys' high bits (the "hash on the leading bits" of
an extendible-hashing directory; Fagin et al., "Extendible hashing", TODS 1979): bucket
``b = key >> shift`` holds the keys ``start[b] <= i < start[b + 1]`` of the sorted array, with
about one key per bucket, so a lookup reads one directory entry and a key or two, whatever n.

Window keys are close to uniform in their high bits (1M windows of chapters, 2**20 buckets:
2.8 keys in the bucket of an average key, 31 at most), and the search inside the buckets is a
vectorized binary search whose step count is that of the largest bucket asked for, so skewed
keys cost a few steps more, never a wrong answer. Keys at or above ``limit`` (short-text k-gram
keys, with bit 63 set) would stretch the buckets over 2**64; they are few and found by plain
binary search.

Below :data:`DIRECT_MIN_KEYS` keys the directory is not built and every key is binary-searched:
while the keys fit the CPU caches, one ``np.searchsorted`` costs less than the few NumPy passes
of the bucket search. Measured on the keys of real chapters (one loaded index per size, the
query keys of 40 pages, both searches interleaved, median per page): binary search 0.045,
0.088 and 0.215 ms at 10k, 1M and 10M windows, the directory 0.084, 0.103 and 0.138 ms.
"""

from __future__ import annotations

import numpy as np

from fingerprint.compiled.lookup import find_sorted

#: Narrow keys from which the directory is built: the two searches cost the same somewhere
#: between the 1M and 10M windows (about as many keys) measured above.
DIRECT_MIN_KEYS = 1 << 21


class KeyDirectory:
    """Positions of query keys in a sorted array of distinct uint64 keys.

    Args:
        keys: distinct keys, sorted ascending (np.ndarray of uint64, any length).
        limit: keys below it are direct-addressed, the others binary-searched (int, > 0).
        direct_min: fewer keys below ``limit`` than this (default :data:`DIRECT_MIN_KEYS`): no
            directory, binary search only.

    The directory costs 4 bytes per bucket (8 beyond 2**32 keys), 1 to 2 buckets per key.
    """

    def __init__(self, keys: np.ndarray, limit: int, direct_min: int | None = None):
        self.keys = keys
        self._narrow = int(np.searchsorted(keys, np.uint64(limit)))
        if self._narrow < (DIRECT_MIN_KEYS if direct_min is None else direct_min):
            self._narrow = 0  # every key binary-searched
        top = int(keys[self._narrow - 1]) if self._narrow else 0  # the largest narrow key
        bits = max(self._narrow - 1, 1).bit_length()  # buckets: 2**bits >= narrow keys
        self._shift = max(top.bit_length() - bits, 0)
        buckets = (top >> self._shift) + 1 if self._narrow else 0
        self._end = top + 1  # query keys from here on are not direct-addressed
        bucket = np.right_shift(keys[:self._narrow], np.uint64(self._shift))
        counts = np.bincount(bucket.view(np.int64), minlength=buckets)  # keys < 2**63: same
        dtype = np.uint32 if self._narrow < 2**32 else np.int64
        self._start = np.zeros(buckets + 1, dtype=dtype)
        np.cumsum(counts, out=self._start[1:])

    def find(self, query: np.ndarray) -> np.ndarray:
        """Index in ``keys`` of each query key, -1 where it is absent.

        Args:
            query: uint64 keys (np.ndarray, any order, duplicates allowed).

        Returns:
            np.ndarray of int64, one entry per query key.
        """
        if not self._narrow:  # every key binary-searched
            return find_sorted(self.keys, np.ascontiguousarray(query, dtype=np.uint64))
        out = np.full(len(query), -1, dtype=np.int64)
        if not len(query):
            return out
        narrow = query < np.uint64(self._end if self._narrow else 0)
        at = np.flatnonzero(narrow)
        q = query[at]
        bucket = (q >> np.uint64(self._shift)).astype(np.int64)
        lo = self._start[bucket].astype(np.int64)
        end = self._start[bucket + 1].astype(np.int64)
        hi = end.copy()
        last = len(self.keys) - 1
        for _ in range(int((end - lo).max(initial=0)).bit_length()):  # lower bound in a bucket
            mid = (lo + hi) >> 1
            less = self.keys[np.minimum(mid, last)] < q
            active = lo < hi
            lo = np.where(active & less, mid + 1, lo)
            hi = np.where(active & ~less, mid, hi)
        hit = (lo < end) & (self.keys[np.minimum(lo, last)] == q)
        out[at[hit]] = lo[hit]
        wide = np.flatnonzero(~narrow)
        if len(wide):
            q = query[wide]
            pos = self._narrow + np.searchsorted(self.keys[self._narrow:], q)
            hit = (pos <= last) & (self.keys[np.minimum(pos, last)] == q)
            out[wide[hit]] = pos[hit]
        return out
