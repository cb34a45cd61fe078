# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The key stages of fingerprinting, compiled: letter k-gram codes, their splitmix64 hashes,
winnowing's local minima, and the digit part of window keys (see ``fingerprint.windows`` and
``fingerprint.fingerprints`` for what each computes and its source)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

cdef uint64_t MIX1 = 0x9E3779B97F4A7C15ULL
cdef uint64_t MIX2 = 0xBF58476D1CE4E5B9ULL
cdef uint64_t MAX64 = 0xFFFFFFFFFFFFFFFFULL


def kgram_codes(const uint8_t[::1] codes, int k):
    """Exact k-gram codes of letter codes (n,) -> int64 (n - k + 1,), 5 bits per letter, first
    letter highest (1 <= k <= 12); empty when n < k."""
    cdef Py_ssize_t n = codes.shape[0] - k + 1, p
    out = np.zeros(max(n, 0), dtype=np.int64)
    if n <= 0:
        return out
    cdef int64_t[::1] grams = out
    cdef int64_t g = 0, mask = (<int64_t>1 << (5 * k)) - 1
    with nogil:
        for p in range(k - 1):
            g = (g << 5) | codes[p]
        for p in range(n):
            g = ((g << 5) | codes[p + k - 1]) & mask
            grams[p] = g
    return out


def mix(const int64_t[::1] values):
    """splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
    generators", OOPSLA 2014) of each int64 value (taken as uint64) -> uint64 array."""
    cdef Py_ssize_t n = values.shape[0], p
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] h = out
    cdef uint64_t z
    with nogil:
        for p in range(n):
            z = (<uint64_t>values[p]) * MIX1
            z ^= z >> 31
            z *= MIX2
            z ^= z >> 29
            h[p] = z
    return out


def local_minima(const uint64_t[::1] hashes, int radius):
    """Positions (int64, ascending) whose hash is the minimum of the hashes within ``radius``
    (>= 1) positions on either side, positions outside the array counting as 2**64 - 1."""
    cdef Py_ssize_t n = hashes.shape[0], width = 2 * radius + 1, size, p, x, b, found = 0
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # van Herk / Gil-Werman: minima of blocks of ``width`` from the left and from the right
    size = n + 2 * radius
    size += width - size % width
    cdef uint64_t *pad = <uint64_t *>malloc(3 * size * sizeof(uint64_t))
    cdef int64_t *picked = <int64_t *>malloc(n * sizeof(int64_t))
    if pad == NULL or picked == NULL:
        free(pad); free(picked)
        raise MemoryError()
    cdef uint64_t *left = pad + size
    cdef uint64_t *right = pad + 2 * size
    cdef uint64_t low
    cdef int64_t[::1] positions
    try:
        with nogil:
            for x in range(size):
                pad[x] = MAX64
            for p in range(n):
                pad[p + radius] = hashes[p]
            b = 0
            while b < size:  # blocks of width letters (size is a multiple of width)
                left[b] = pad[b]
                for x in range(b + 1, b + width):
                    left[x] = min(left[x - 1], pad[x])
                right[b + width - 1] = pad[b + width - 1]
                for x in range(b + width - 2, b - 1, -1):
                    right[x] = min(right[x + 1], pad[x])
                b += width
            for p in range(n):  # window of position p: pad[p : p + width]
                low = min(right[p], left[p + width - 1])
                if hashes[p] == low:
                    picked[found] = p
                    found += 1
        out = np.empty(found, dtype=np.int64)
        positions = out
        for p in range(found):
            positions[p] = picked[p]
        return out
    finally:
        free(pad); free(picked)


def window_digits(const uint8_t[::1] codes, const int64_t[::1] starts, int window,
                  const int64_t[::1] column, const int64_t[:, ::1] value):
    """The digit part of each window's key -> int64 (n_windows,): for window [s, s + window)
    of letter codes, the sum over the letters l of the subset of ``value[l, count of l]``.
    column: letter code (0..31) -> its row in value, or value's row count for the others."""
    cdef Py_ssize_t n_windows = starts.shape[0], m = value.shape[0], w, p, l
    cdef int64_t total, s
    out = np.zeros(n_windows, dtype=np.int64)
    if n_windows == 0:
        return out
    cdef int64_t[::1] keys = out
    cdef int64_t *counts = <int64_t *>malloc((m + 1) * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    with nogil:
        for w in range(n_windows):
            for l in range(m + 1):
                counts[l] = 0
            s = starts[w]
            for p in range(s, s + window):
                counts[column[codes[p]]] += 1
            total = 0
            for l in range(m):
                total += value[l, counts[l]]
            keys[w] = total
    free(counts)
    return out


def short_keys(const int64_t[::1] grams, int gram_k, const int64_t[::1] positions, int k):
    """Keys of the exact k-grams starting at ``positions`` -> uint64 array, in position order
    (see ``fingerprint.shortdoc.short_keys``, which checks gram_k <= k <= 2 * gram_k): each
    assembled from the gram_k-grams at p and p + k - gram_k, with bit 63 set; positions with
    no whole k-gram before the end are skipped."""
    cdef Py_ssize_t n = positions.shape[0], n_grams = grams.shape[0], t, found = 0
    cdef int tail = k - gram_k
    cdef int64_t p, low_mask = (<int64_t>1 << (5 * tail)) - 1
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = out
    for t in range(n):
        p = positions[t]
        if p + tail < n_grams:
            keys[found] = (<uint64_t>((grams[p] << (5 * tail)) | (grams[p + tail] & low_mask))
                           | (<uint64_t>1 << 63))
            found += 1
    return out[:found]
