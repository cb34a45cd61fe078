# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""A loaded MemoryIndex's lookup, compiled: where the query keys are among its sorted distinct
keys, and their postings, grouped by key (see ``fingerprint.index.memory``)."""

import numpy as np

from libc.stdint cimport int64_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort

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


cdef struct Found:
    int64_t position, at


cdef int _cmp_found(const void *a, const void *b) noexcept nogil:
    cdef const Found *x = <const Found *>a
    cdef const Found *y = <const Found *>b
    if x.position != y.position:
        return (x.position > y.position) - (x.position < y.position)
    return (x.at > y.at) - (x.at < y.at)


def gather_postings(const int64_t[::1] position, const int64_t[::1] bounds,
                    const packed_t[::1] postings, int window_bits, int64_t max_df):
    """(at, work, window): three int64 arrays, one entry per posting of the distinct query
    keys found (``position`` >= 0: their distinct key's number; duplicates allowed), in key
    order: ``at`` the first place of the key in ``position``, ``work`` and ``window``
    unpacked from ``postings[bounds[p]:bounds[p + 1]]`` of distinct key p, each
    ``work << window_bits | window`` (sorted by work within a key, as ``MemoryIndex.save``
    writes them), skipping keys held by more than ``max_df`` works."""
    cdef Py_ssize_t m = position.shape[0], t, i, lo, hi, n = 0, n_found = 0, f
    cdef int64_t df, work, last
    cdef uint64_t packed, low = (<uint64_t>1 << window_bits) - 1
    cdef int64_t[::1] at, works, windows
    cdef Found *found = <Found *>malloc((m + 1) * sizeof(Found))
    if found == NULL:
        raise MemoryError()
    try:
        for t in range(m):
            if position[t] >= 0:
                found[n_found].position, found[n_found].at = position[t], t
                n_found += 1
        qsort(found, n_found, sizeof(Found), _cmp_found)
        f = 0
        for t in range(n_found):  # the distinct keys within max_df, in key order
            if t and found[t].position == found[t - 1].position:
                continue
            lo, hi = bounds[found[t].position], bounds[found[t].position + 1]
            df, last = 0, -1
            for i in range(lo, hi):
                work = <int64_t>(<uint64_t>postings[i] >> window_bits)
                if work != last:
                    df += 1
                    last = work
            if df <= max_df:
                found[f] = found[t]
                f += 1
                n += hi - lo
        at_out = np.empty(n, dtype=np.int64)
        work_out = np.empty(n, dtype=np.int64)
        window_out = np.empty(n, dtype=np.int64)
        at, works, windows = at_out, work_out, window_out
        n = 0
        for t in range(f):
            for i in range(bounds[found[t].position], bounds[found[t].position + 1]):
                packed = <uint64_t>postings[i]
                at[n] = found[t].at
                works[n] = <int64_t>(packed >> window_bits)
                windows[n] = <int64_t>(packed & low)
                n += 1
        return at_out, work_out, window_out
    finally:
        free(found)


def renumber(const int64_t[::1] numbers, int64_t[::1] scratch):
    """(distinct, inverse): the distinct values of ``numbers`` (int64, each in [0,
    len(scratch))) in order of first appearance, and each number's place among them (two int64
    arrays), so that ``distinct[inverse] == numbers``. ``scratch``: int64, all -1 on entry and
    again on return (O(len(numbers)), whatever its length)."""
    cdef Py_ssize_t n = numbers.shape[0], i, k = 0
    distinct_out = np.empty(n, dtype=np.int64)
    inverse_out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] distinct = distinct_out, inverse = inverse_out
    for i in range(n):
        if scratch[numbers[i]] < 0:
            scratch[numbers[i]] = k
            distinct[k] = numbers[i]
            k += 1
        inverse[i] = scratch[numbers[i]]
    for i in range(k):
        scratch[distinct[i]] = -1
    return distinct_out[:k], inverse_out


cdef bint _before(Py_ssize_t a, Py_ssize_t b, const int64_t *count, list works) except -1:
    """Work a ranks before work b: more hits, then the smaller id."""
    if count[a] != count[b]:
        return count[a] > count[b]
    return works[a] < works[b]


def rank(const int64_t[::1] work, const int64_t[::1] window, list works, int64_t min_hits,
         Py_ssize_t max_candidates):
    """The candidates of a lookup's postings -> list of (work, hits), work as a position in
    ``works``: the works with at least ``min_hits`` postings, most hits first, ties by id
    (``works``: the distinct work ids, str), among the first ``4 * max_candidates``, up to
    ``max_candidates`` distinct hit sets (works with the same number of hits on the same sorted
    ``window`` numbers take one place, each listed). work, window: int64 (n_postings,), each
    posting's work (a position in ``works``) and window."""
    cdef Py_ssize_t n_works = len(works), n = work.shape[0], w, i, j, size = 0, pool_max
    cdef Py_ssize_t seen = 0, k
    cdef bint new
    pool_max = 4 * max_candidates
    cdef int64_t *count = <int64_t *>malloc((3 * n_works + pool_max + n + 1) * sizeof(int64_t))
    if count == NULL:
        raise MemoryError()
    cdef int64_t *start = count + n_works  # each work's first posting in ``sorted_windows``
    cdef int64_t *fill = start + n_works
    cdef int64_t *pool = fill + n_works
    cdef int64_t *sorted_windows = pool + pool_max
    cdef int64_t t, a, b, value
    cdef list best = []
    try:
        for w in range(n_works):
            count[w] = 0
        for i in range(n):
            count[work[i]] += 1
        # the first pool_max works in rank order: insertion into a sorted pool
        for w in range(n_works):
            if count[w] < min_hits:
                continue
            if size == pool_max and not _before(w, pool[size - 1], count, works):
                continue
            i = size if size < pool_max else size - 1
            while i > 0 and _before(w, pool[i - 1], count, works):
                pool[i] = pool[i - 1]
                i -= 1
            pool[i] = w
            if size < pool_max:
                size += 1
        if size <= max_candidates:
            return [(pool[i], count[pool[i]]) for i in range(size)]
        # each work's windows, sorted (a work's windows are a handful: insertion sort)
        t = 0
        for w in range(n_works):
            start[w] = t
            fill[w] = t
            t += count[w]
        for i in range(n):
            sorted_windows[fill[work[i]]] = window[i]
            fill[work[i]] += 1
        for w in range(n_works):
            for a in range(start[w] + 1, start[w] + count[w]):
                value = sorted_windows[a]
                b = a
                while b > start[w] and sorted_windows[b - 1] > value:
                    sorted_windows[b] = sorted_windows[b - 1]
                    b -= 1
                sorted_windows[b] = value
        for i in range(size):
            w = pool[i]
            new = True
            for j in range(i):  # an earlier work with the same hits on the same windows?
                if count[pool[j]] == count[w]:
                    for k in range(count[w]):
                        if sorted_windows[start[pool[j]] + k] != sorted_windows[start[w] + k]:
                            break
                    else:
                        new = False
                        break
            if new:
                if seen == max_candidates:
                    break
                seen += 1
            best.append((w, count[w]))
        return best
    finally:
        free(count)
