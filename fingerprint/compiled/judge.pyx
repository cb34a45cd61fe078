# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The per-candidate work of ``Engine._judge`` and ``fingerprint.same_text``, compiled: which
page letters each candidate matched, and which pairs of candidates may be the same text."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc


def matched_masks(const uint8_t[::1] page, list works, list runs):
    """Boolean array (n_candidates, n_page_letters): page letter p is set for candidate c when
    one of its runs (page_start, page_end, diagonal) covers p and ``page[p]`` equals
    ``works[c][p + diagonal]``. page, works[c]: letter codes (uint8; or exact codes as uint8)."""
    cdef Py_ssize_t n = page.shape[0], c, p
    cdef int64_t s, e, d
    out = np.zeros((len(works), n), dtype=np.bool_)
    cdef uint8_t[:, ::1] mask = out.view(np.uint8)
    cdef const uint8_t[::1] work
    for c in range(len(works)):
        work = works[c]
        for s, e, d in runs[c]:
            for p in range(s, e):
                if page[p] == work[p + d]:
                    mask[c, p] = 1
    return out


cdef uint64_t *_pack(const uint8_t[:, ::1] masks, int64_t *counts, Py_ssize_t words) except NULL:
    """The rows of 0/1 ``masks`` as bit rows of ``words`` uint64 each (malloc'ed: the caller
    frees it); ``counts``: filled with each row's set bits."""
    cdef Py_ssize_t m = masks.shape[0], n = masks.shape[1], i, p, w
    cdef uint64_t *bits = <uint64_t *>malloc(m * words * sizeof(uint64_t) + 1)
    if bits == NULL:
        raise MemoryError()
    with nogil:
        for i in range(m):
            counts[i] = 0
            for w in range(words):
                bits[i * words + w] = 0
            for p in range(n):
                if masks[i, p]:
                    bits[i * words + p // 64] |= (<uint64_t>1) << (p % 64)
                    counts[i] += 1
    return bits


def same_text_pairs(const uint8_t[:, ::1] masks, const int64_t[::1] sizes, double least):
    """Pairs (i, j), i < j, of candidates that may be the same text: letter counts ``sizes``
    within ``least`` of each other (the shorter at least ``least`` times the longer) and
    matched page letters mostly shared (2 * common >= the smaller count).
    masks: (n_candidates, n_page_letters) 0/1 bytes, each candidate's matched page letters."""
    cdef Py_ssize_t m = masks.shape[0], words = (masks.shape[1] + 63) // 64, i, j, w
    cdef int64_t common, lo, hi
    pairs = []
    if m < 2:
        return pairs
    cdef int64_t *counts = <int64_t *>malloc(m * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    cdef uint64_t *bits = NULL
    try:
        bits = _pack(masks, counts, words)
        for i in range(m):
            for j in range(i + 1, m):
                lo, hi = min(sizes[i], sizes[j]), max(sizes[i], sizes[j])
                if lo < least * hi:
                    continue
                common = 0
                for w in range(words):
                    common += __builtin_popcountll(bits[i * words + w] & bits[j * words + w])
                if 2 * common >= min(counts[i], counts[j]):
                    pairs.append((i, j))
        return pairs
    finally:
        free(bits); free(counts)


def dominated(const uint8_t[:, ::1] masks, const int64_t[::1] group, int64_t min_own):
    """Boolean array (n_candidates,): candidate i is dominated when a candidate j of another
    ``group`` matched more page letters and leaves fewer than ``min_own`` of i's matched
    letters uncovered. masks: (n_candidates, n_page_letters) 0/1 bytes."""
    cdef Py_ssize_t m = masks.shape[0], words = (masks.shape[1] + 63) // 64, i, j, w
    cdef int64_t own
    out = np.zeros(m, dtype=np.bool_)
    cdef uint8_t[::1] flag = out.view(np.uint8)
    if m < 2:
        return out
    cdef int64_t *counts = <int64_t *>malloc(m * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    cdef uint64_t *bits = NULL
    try:
        bits = _pack(masks, counts, words)
        with nogil:
            for i in range(m):
                for j in range(m):
                    if group[j] == group[i] or counts[j] <= counts[i]:
                        continue
                    own = 0
                    for w in range(words):
                        own += __builtin_popcountll(bits[i * words + w] & ~bits[j * words + w])
                    if own < min_own:
                        flag[i] = 1
                        break
        return out
    finally:
        free(bits); free(counts)


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
