# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""A MemoryIndex's lookup, compiled: the postings of the query keys, from its dicts or, when
loaded, from its sorted arrays; the renumbering of their work numbers; the ranking of the hits
(see ``fingerprint.index.memory``)."""

import numpy as np

from cpython.dict cimport PyDict_GetItemWithError
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, memset

from fingerprint.compiled.mixing cimport splitmix64

ctypedef fused packed_t:
    uint16_t
    uint32_t
    uint64_t


def find_sorted(const uint64_t[::1] keys, const uint64_t[::1] query):
    """Index in ``keys`` (distinct, ascending) of each query key, -1 where absent (int64
    array), by binary search without branches (a conditional move per halving: a query key's
    place among the index keys is unpredictable)."""
    cdef Py_ssize_t n = keys.shape[0], m = query.shape[0], t, lo, size, half
    if n == 0:
        return np.full(m, -1, dtype=np.int64)
    out = np.empty(m, dtype=np.int64)  # not np.full: a Python call's cost on every page
    cdef int64_t[::1] position = out
    cdef const uint64_t *at
    cdef uint64_t q
    with nogil:
        for t in range(m):
            q = query[t]
            at = &keys[0]
            size = n
            while size > 1:
                half = size >> 1
                at = at + half if at[half] < q else at
                size -= half
            lo = (at - &keys[0]) + (at[0] < q)
            position[t] = lo if lo < n and keys[lo] == q else -1
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


cdef Py_ssize_t _renumber(int64_t *numbers, Py_ssize_t n, int64_t[::1] scratch,
                         int64_t *distinct) except -1:
    """Replace each of ``numbers`` (each in [0, len(scratch))) by its place among the distinct
    ones in order of first appearance, written to ``distinct``; returns how many. ``scratch``:
    all -1 on entry and again on return."""
    cdef Py_ssize_t i, k = 0, limit = scratch.shape[0]
    cdef int64_t number
    for i in range(n):
        number = numbers[i]
        if not 0 <= number < limit:
            for i in range(k):
                scratch[distinct[i]] = -1
            raise ValueError(f"work number {number} outside the scratch array ({limit})")
        if scratch[number] < 0:
            scratch[number] = k
            distinct[k] = number
            k += 1
        numbers[i] = scratch[number]
    for i in range(k):
        scratch[distinct[i]] = -1
    return k


cdef class Revisions:
    """The index revision ``"<epoch>:<number>"`` of each work of a lookup (a sequence of str),
    made when asked: a page asks for its few candidates' revisions only."""

    cdef int64_t epoch
    cdef int64_t *numbers
    cdef Py_ssize_t size

    def __cinit__(self):
        self.numbers = NULL
        self.size = 0

    def __dealloc__(self):
        free(self.numbers)

    def __len__(self):
        return self.size

    def __getitem__(self, Py_ssize_t i):
        if not 0 <= i < self.size:
            raise IndexError(i)
        return f"{self.epoch}:{self.numbers[i]}"


cdef tuple _name_works(const int64_t *distinct, Py_ssize_t k, list ids, int64_t epoch):
    """(work ids, Revisions) of the work numbers ``distinct[:k]``; ``ids``: id of each number."""
    cdef Revisions revisions = Revisions.__new__(Revisions)
    revisions.numbers = <int64_t *>malloc((k + 1) * sizeof(int64_t))
    if revisions.numbers == NULL:
        raise MemoryError()
    memcpy(revisions.numbers, distinct, k * sizeof(int64_t))
    revisions.size, revisions.epoch = k, epoch
    cdef list works = []
    cdef Py_ssize_t i
    for i in range(k):
        if distinct[i] >= PyList_GET_SIZE(ids):
            raise ValueError(f"work number {distinct[i]} has no id ({len(ids)} ids)")
        works.append(ids[distinct[i]])
    return works, revisions


def name_works(const int64_t[::1] numbers, int64_t[::1] scratch, list ids, int64_t epoch):
    """(works, revisions, work) of a lookup's postings given by their index work numbers
    (int64): the distinct works' ids in order of first appearance (list of ``ids[number]``),
    their ``Revisions`` under ``epoch``, and each posting's work as a place in that list
    (int64 array). ``scratch``: int64, all -1, longer than the largest number (all -1 again
    on return). Raises ValueError for a number outside ``scratch``."""
    cdef Py_ssize_t n = numbers.shape[0], k
    work_out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] work = work_out
    cdef int64_t *distinct = <int64_t *>malloc((n + 1) * sizeof(int64_t))
    if distinct == NULL:
        raise MemoryError()
    try:
        if n:
            memcpy(&work[0], &numbers[0], n * sizeof(int64_t))
            k = _renumber(&work[0], n, scratch, distinct)
        else:
            k = 0
        return (*_name_works(distinct, k, ids, epoch), work_out)
    finally:
        free(distinct)


cdef struct Packed:
    int64_t *data
    Py_ssize_t size, capacity


cdef int _append(Packed *out, int64_t value) except -1:
    cdef int64_t *grown
    if out.size == out.capacity:
        grown = <int64_t *>realloc(out.data, 2 * out.capacity * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        out.data, out.capacity = grown, 2 * out.capacity
    out.data[out.size] = value
    out.size += 1
    return 0


def gather_held(const uint64_t[::1] keys, const uint8_t[::1] presence, int presence_shift,
                dict post, dict df, int64_t max_df, int64_t[::1] scratch, list ids,
                int64_t epoch):
    """The lookup of ``keys`` (uint64) in a MemoryIndex's dicts -> (works, revisions, work,
    window, at), as ``name_works`` gives the first three; per posting (int64 arrays): its
    window and its key's first place in ``keys``. Postings come
    key by key, each distinct key at its first place, each key's as ``post`` holds them (one
    packed ``number << 32 | window`` int, or a list of them); skipped: keys absent from ``post``, held by more than
    ``max_df`` works (``df``, absent: 1), or absent from ``presence`` when it is not None: a
    PresenceFilter's bytes, where key k is bit ``h & 7`` of byte ``h >> 3``, h being
    ``splitmix64(k) >> presence_shift`` (``fingerprint.index.presence``). Raises ValueError
    for a work number outside ``scratch`` or a ``presence`` shorter than its shift implies."""
    cdef Py_ssize_t m = keys.shape[0], t, i, slot, size = 8, k = 0, n
    cdef int shift = 61
    cdef uint64_t key
    cdef int64_t window_mask = 0xFFFFFFFF, value
    cdef uint64_t bit
    cdef PyObject *held
    cdef PyObject *count
    cdef Packed packed, at
    cdef int64_t[::1] work_view, window_view, at_view
    if presence is not None and not (0 < presence_shift < 64 and presence.shape[0] << 3 >= (
            <uint64_t>1 << (64 - presence_shift))):
        raise ValueError(f"{presence.shape[0]} presence bytes, shift {presence_shift}")
    while size < 2 * m:
        size <<= 1
        shift -= 1
    # the keys met so far: an open-addressing table of places in ``keys`` (-1: empty slot)
    cdef int64_t *table = <int64_t *>malloc(size * sizeof(int64_t))
    packed.data, packed.size, packed.capacity = <int64_t *>malloc(64 * sizeof(int64_t)), 0, 64
    at.data, at.size, at.capacity = <int64_t *>malloc(64 * sizeof(int64_t)), 0, 64
    cdef int64_t *distinct = NULL
    try:
        if table == NULL or packed.data == NULL or at.data == NULL:
            raise MemoryError()
        memset(table, 0xFF, size * sizeof(int64_t))
        for t in range(m):
            key = keys[t]
            if presence is not None:
                bit = splitmix64(key) >> presence_shift
                if not (presence[bit >> 3] >> (bit & 7)) & 1:
                    continue
            slot = <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> shift)
            while table[slot] >= 0 and keys[table[slot]] != key:
                slot = (slot + 1) & (size - 1)
            if table[slot] >= 0:
                continue  # a repeated key
            table[slot] = t
            key_object = PyLong_FromUnsignedLongLong(key)
            held = PyDict_GetItemWithError(post, key_object)  # raises on an error
            if held == NULL:
                continue
            if type(<object>held) is list:
                # only a key of several postings may be held by several works (in ``df``)
                count = PyDict_GetItemWithError(df, key_object)
                if count != NULL and <int64_t><object>count > max_df:
                    continue
                for i in range(PyList_GET_SIZE(<object>held)):
                    _append(&packed, <int64_t><object>PyList_GET_ITEM(<object>held, i))
                    _append(&at, t)
            else:
                _append(&packed, <int64_t><object>held)
                _append(&at, t)
        n = packed.size
        work_out = np.empty(n, dtype=np.int64)
        window_out = np.empty(n, dtype=np.int64)
        at_out = np.empty(n, dtype=np.int64)
        distinct = <int64_t *>malloc((n + 1) * sizeof(int64_t))
        if distinct == NULL:
            raise MemoryError()
        if n:
            work_view, window_view = work_out, window_out
            for i in range(n):
                value = packed.data[i]
                work_view[i] = value >> 32
                window_view[i] = value & window_mask
            at_view = at_out
            memcpy(&at_view[0], at.data, n * sizeof(int64_t))
            k = _renumber(&work_view[0], n, scratch, distinct)
        return (*_name_works(distinct, k, ids, epoch), work_out, window_out, at_out)
    finally:
        free(table)
        free(packed.data)
        free(at.data)
        free(distinct)


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
    cdef Py_ssize_t seen = 0, k, lo, hi, mid, group = 0
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
        # the first pool_max works in rank order: insertion into a sorted pool, the place
        # found by binary search (a tie is a str comparison of the ids)
        for w in range(n_works):
            if count[w] < min_hits:
                continue
            lo, hi = 0, size
            while lo < hi:
                mid = (lo + hi) >> 1
                if _before(w, pool[mid], count, works):
                    hi = mid
                else:
                    lo = mid + 1
            if lo == pool_max:
                continue
            i = size if size < pool_max else size - 1
            while i > lo:
                pool[i] = pool[i - 1]
                i -= 1
            pool[lo] = w
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
            if i == 0 or count[pool[i - 1]] != count[w]:
                group = i  # the pool's first work with this count (the pool is by count)
            for j in range(group, i):  # an earlier work with the same hits on the same windows?
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


cdef int _cmp_int64(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<const int64_t *>a)[0], y = (<const int64_t *>b)[0]
    return (x > y) - (x < y)


def template_siblings(const int64_t[::1] work, const int64_t[::1] place, Py_ssize_t n_works,
                      Py_ssize_t n_places, list ranked, Py_ssize_t min_own_keys,
                      double same_text_least):
    """The candidates that only share keys of better candidates -> list of their places in
    ``ranked`` (ascending).

    work, place: int64 (n_postings,), each posting's work (a position among the lookup's
    ``n_works`` works) and its key (a number below ``n_places``, one per distinct page key);
    ranked: the candidates in rank order, as ``rank`` gives them ((work position, hits)
    tuples). A candidate's *keys* are the distinct keys of its postings; candidates with the
    very same keys (one text registered as several works) count as one, and a candidate's
    *own keys* are those no other counts.
    Going down the ranks, a candidate is a sibling when every key of it is a key of a better
    candidate that is not a sibling and has at least ``min_own_keys`` own keys (a *holder*),
    unless its keys are exactly those of a better non-sibling, or they number at least
    ``same_text_least`` times the keys of the holder with the fewest (it may be the same text
    as that one, but for a name or a header: ``fingerprint.same_text`` decides). The first
    candidate is never one; none is when no candidate has ``min_own_keys`` own keys (a page of
    template text alone)."""
    cdef Py_ssize_t m = len(ranked), n = work.shape[0], i, c, j, t, size
    cdef list out = []
    if m < 2 or min_own_keys < 1:
        return out
    cdef int64_t *cand_of = <int64_t *>malloc((n_works + 3 * (m + 1) + n) * sizeof(int64_t))
    cdef uint8_t *covered = <uint8_t *>malloc(n_places + 1)
    cdef int32_t *holders = <int32_t *>malloc((n_places + 1) * sizeof(int32_t))
    cdef uint8_t *kept = <uint8_t *>malloc(m)
    if cand_of == NULL or covered == NULL or holders == NULL or kept == NULL:
        free(cand_of)
        free(covered)
        free(holders)
        free(kept)
        raise MemoryError()
    cdef int64_t *start = cand_of + n_works  # each candidate's keys in ``keys``
    cdef int64_t *length = start + m + 1
    cdef int64_t *same_as = length + m + 1  # the first candidate with the very same keys
    cdef int64_t *keys = same_as + m + 1
    cdef int64_t own, p, fewest = -1
    cdef bint inside
    try:
        for i in range(n_works):
            cand_of[i] = -1
        for c in range(m):
            cand_of[<int64_t>ranked[c][0]] = c
            length[c] = 0
        for i in range(n):
            c = cand_of[work[i]]
            if c >= 0:
                length[c] += 1
        t = 0
        for c in range(m):
            start[c] = t
            t += length[c]
            length[c] = 0
        for i in range(n):
            c = cand_of[work[i]]
            if c >= 0:
                keys[start[c] + length[c]] = place[i]
                length[c] += 1
        memset(holders, 0, (n_places + 1) * sizeof(int32_t))
        memset(covered, 0, n_places)
        for c in range(m):  # each candidate's keys sorted, each once
            qsort(keys + start[c], length[c], sizeof(int64_t), _cmp_int64)
            size = 0
            for t in range(length[c]):
                p = keys[start[c] + t]
                if size == 0 or keys[start[c] + size - 1] != p:
                    keys[start[c] + size] = p
                    size += 1
            length[c] = size
            same_as[c] = c
            for j in range(c):
                if same_as[j] == j and length[j] == size and memcmp(
                        keys + start[j], keys + start[c], size * sizeof(int64_t)) == 0:
                    same_as[c] = j
                    break
            if same_as[c] == c:  # how many distinct key sets hold each key
                for t in range(size):
                    holders[keys[start[c] + t]] += 1
        for c in range(m):
            if same_as[c] != c:
                kept[c] = kept[same_as[c]]
                if not kept[c]:
                    out.append(c)
                continue
            inside = fewest > 0 and length[c] < same_text_least * fewest
            for t in range(length[c]):
                if not covered[keys[start[c] + t]]:
                    inside = False
                    break
            if inside:
                kept[c] = 0
                out.append(c)
                continue
            kept[c] = 1
            own = 0
            for t in range(length[c]):
                if holders[keys[start[c] + t]] == 1:
                    own += 1
            if own >= min_own_keys:
                if fewest < 0 or length[c] < fewest:
                    fewest = length[c]
                for t in range(length[c]):
                    covered[keys[start[c] + t]] = 1
        return out
    finally:
        free(cand_of)
        free(covered)
        free(holders)
        free(kept)
