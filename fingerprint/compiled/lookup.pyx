# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""A loaded MemoryIndex's lookup, compiled: where the query keys are among its sorted distinct
keys, and their postings, grouped by key (see ``fingerprint.index.memory``)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t

ctypedef fused packed_t:
    uint16_t
    uint32_t
    uint64_t


def find_sorted(const uint64_t[::1] keys, const uint64_t[::1] query):
    """Index in ``keys`` (distinct, ascending) of each query key, -1 where absent (int64
    array), by binary search."""
    cdef Py_ssize_t n = keys.shape[0], m = query.shape[0], t, lo, hi, mid
    out = np.full(m, -1, dtype=np.int64)
    cdef int64_t[::1] position = out
    cdef uint64_t q
    with nogil:
        for t in range(m):
            q = query[t]
            lo, hi = 0, n
            while lo < hi:
                mid = (lo + hi) >> 1
                if keys[mid] < q:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < n and keys[lo] == q:
                position[t] = lo
    return out


def gather_postings(const int64_t[::1] position, const int64_t[::1] bounds,
                    const packed_t[::1] postings, int window_bits, int64_t max_df):
    """(at, work, window): three int64 arrays, one entry per posting of the query keys found
    (``position`` >= 0, their distinct key's number), in query order: ``at`` the query key's
    place in ``position``, ``work`` and ``window`` unpacked from ``postings[bounds[p]:bounds[p
    + 1]]`` of distinct key p, each ``work << window_bits | window`` (sorted by work within a
    key, as ``MemoryIndex.save`` writes them), skipping keys held by more than ``max_df``
    works."""
    cdef Py_ssize_t m = position.shape[0], t, i, lo, hi, n = 0
    cdef int64_t df, work, last
    cdef uint64_t packed, low = (<uint64_t>1 << window_bits) - 1
    keep = np.zeros(m, dtype=np.uint8)
    cdef uint8_t[::1] kept = keep
    for t in range(m):  # each key's document frequency: its distinct works
        if position[t] < 0:
            continue
        lo, hi = bounds[position[t]], bounds[position[t] + 1]
        df, last = 0, -1
        for i in range(lo, hi):
            work = <int64_t>(<uint64_t>postings[i] >> window_bits)
            if work != last:
                df += 1
                last = work
        if df <= max_df:
            kept[t] = 1
            n += hi - lo
    at_out = np.empty(n, dtype=np.int64)
    work_out = np.empty(n, dtype=np.int64)
    window_out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] at = at_out, works = work_out, windows = window_out
    n = 0
    for t in range(m):
        if not kept[t]:
            continue
        for i in range(bounds[position[t]], bounds[position[t] + 1]):
            packed = <uint64_t>postings[i]
            at[n] = t
            works[n] = <int64_t>(packed >> window_bits)
            windows[n] = <int64_t>(packed & low)
            n += 1
    return at_out, work_out, window_out
