# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The key stages of fingerprinting, compiled: letter k-gram codes, their splitmix64 hashes,
winnowing's local minima, the digit part of window keys and short-text k-gram keys (see
``fingerprint.windows``, ``fingerprint.fingerprints`` and ``fingerprint.shortdoc`` for what
each computes and its source), one by one or all of a letter sequence's keys in one call
(``sequence_keys``)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy

from fingerprint.compiled.mixing cimport splitmix64

cdef uint64_t MAX64 = 0xFFFFFFFFFFFFFFFFULL
cdef uint64_t SHORT_BIT = (<uint64_t>1) << 63


cdef void _kgrams(const uint8_t *codes, Py_ssize_t n, int k, int64_t *grams) noexcept nogil:
    """The n k-gram codes of codes[:n + k - 1] into grams[:n] (n >= 1)."""
    cdef int64_t g = 0, mask = (<int64_t>1 << (5 * k)) - 1
    cdef Py_ssize_t p
    for p in range(k - 1):
        g = (g << 5) | codes[p]
    for p in range(n):
        g = ((g << 5) | codes[p + k - 1]) & mask
        grams[p] = g


cdef void _mix(const int64_t *values, Py_ssize_t n, uint64_t *h) noexcept nogil:
    cdef Py_ssize_t p
    for p in range(n):
        h[p] = splitmix64(<uint64_t>values[p])


cdef int _compare(const void *a, const void *b) noexcept nogil:
    cdef uint64_t x = (<const uint64_t *>a)[0], y = (<const uint64_t *>b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t _distinct(uint64_t *keys, Py_ssize_t n) noexcept nogil:
    """Sort keys[:n] and keep each value once at the front; returns how many."""
    cdef Py_ssize_t t, found = 0
    if n == 0:
        return 0
    qsort(keys, n, sizeof(uint64_t), _compare)
    for t in range(1, n):
        if keys[t] != keys[found]:
            found += 1
            keys[found] = keys[t]
    return found + 1


cdef inline Py_ssize_t _pad_size(Py_ssize_t n, Py_ssize_t radius) noexcept nogil:
    """Length of each of _minima's three scratch rows: n + 2 * radius, rounded up to a
    multiple of the window's width (so ``3 * _pad_size`` values of scratch)."""
    cdef Py_ssize_t width = 2 * radius + 1, size = n + 2 * radius
    return size + width - size % width


cdef Py_ssize_t _minima(const uint64_t *hashes, Py_ssize_t n, Py_ssize_t radius, uint64_t *pad,
                        int64_t *picked) noexcept nogil:
    """Winnowing's selection of hashes[:n] into picked (ascending); returns how many. pad:
    3 * _pad_size(n, radius) values of scratch."""
    cdef Py_ssize_t width = 2 * radius + 1, size = _pad_size(n, radius), p, x, b, found = 0
    cdef uint64_t *left = pad + size
    cdef uint64_t *right = pad + 2 * size
    cdef uint64_t low
    # van Herk / Gil-Werman: minima of blocks of ``width`` from the left and from the right
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
    return found


cdef void _digits(const uint8_t *codes, const int64_t *starts, Py_ssize_t n, int window,
                  const int64_t *column, const int64_t *value, Py_ssize_t m, Py_ssize_t row,
                  int64_t *counts, int64_t *keys) noexcept nogil:
    """The digit part of the key of each window [starts[w], starts[w] + window) into keys[w]:
    the sum over the m letters l of value[l * row + count of l]. A window that overlaps the
    one before it (ascending starts) updates that one's counts with the letters that left and
    entered it. counts: m + 1 values of scratch."""
    cdef Py_ssize_t w, l, p
    cdef int64_t total, s, before = 0
    for w in range(n):
        s = starts[w]
        if w and before <= s < before + window:
            for p in range(before, s):
                counts[column[codes[p]]] -= 1
            for p in range(before + window, s + window):
                counts[column[codes[p]]] += 1
        else:
            for l in range(m + 1):
                counts[l] = 0
            for p in range(s, s + window):
                counts[column[codes[p]]] += 1
        before = s
        total = 0
        for l in range(m):
            total += value[l * row + counts[l]]
        keys[w] = total


cdef Py_ssize_t _narrow(const uint64_t *hashes, Py_ssize_t n, const int64_t *picked,
                        Py_ssize_t n_picked, Py_ssize_t radius, Py_ssize_t wider,
                        int64_t *out) noexcept nogil:
    """Winnowing's selection of radius ``wider`` from the one of a smaller ``radius``
    (picked[:n_picked]) into out; returns how many. A position is the minimum within
    ``wider`` when it is the minimum within ``radius`` and no hash between the two radii is
    smaller."""
    cdef Py_ssize_t t, x, found = 0
    cdef int64_t p
    cdef uint64_t h
    cdef bint low
    for t in range(n_picked):
        p = picked[t]
        h = hashes[p]
        low = True
        for x in range(max(p - wider, 0), max(p - radius, 0)):
            if hashes[x] < h:
                low = False
                break
        if low:
            for x in range(min(p + radius + 1, n), min(p + wider + 1, n)):
                if hashes[x] < h:
                    low = False
                    break
        if low:
            out[found] = p
            found += 1
    return found


cdef Py_ssize_t _short(const int64_t *grams, Py_ssize_t n_grams, int gram_k,
                       const int64_t *positions, Py_ssize_t n, int k,
                       uint64_t *keys) noexcept nogil:
    """The short keys of the k-grams at positions[:n] into keys; returns how many."""
    cdef int tail = k - gram_k
    cdef int64_t p, low_mask = (<int64_t>1 << (5 * tail)) - 1
    cdef Py_ssize_t t, found = 0
    for t in range(n):
        p = positions[t]
        if p + tail < n_grams:
            keys[found] = (<uint64_t>((grams[p] << (5 * tail)) | (grams[p + tail] & low_mask))
                           | SHORT_BIT)
            found += 1
    return found


def kgram_codes(const uint8_t[::1] codes, int k):
    """Exact k-gram codes of letter codes (n,) -> int64 (n - k + 1,), 5 bits per letter, first
    letter highest (1 <= k <= 12); empty when n < k."""
    cdef Py_ssize_t n = codes.shape[0] - k + 1
    out = np.zeros(max(n, 0), dtype=np.int64)
    if n <= 0:
        return out
    cdef int64_t[::1] grams = out
    with nogil:
        _kgrams(&codes[0], n, k, &grams[0])
    return out


def mix(const int64_t[::1] values):
    """splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
    generators", OOPSLA 2014) of each int64 value (taken as uint64) -> uint64 array."""
    cdef Py_ssize_t n = values.shape[0]
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out
    cdef uint64_t[::1] h = out
    with nogil:
        _mix(&values[0], n, &h[0])
    return out


def local_minima(const uint64_t[::1] hashes, int radius):
    """Positions (int64, ascending) whose hash is the minimum of the hashes within ``radius``
    (>= 1) positions on either side, positions outside the array counting as 2**64 - 1."""
    cdef Py_ssize_t n = hashes.shape[0], found
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    cdef uint64_t *pad = <uint64_t *>malloc(3 * _pad_size(n, radius) * sizeof(uint64_t))
    cdef int64_t *picked = <int64_t *>malloc(n * sizeof(int64_t))
    cdef int64_t[::1] positions
    try:
        if pad == NULL or picked == NULL:
            raise MemoryError()
        with nogil:
            found = _minima(&hashes[0], n, radius, pad, picked)
        out = np.empty(found, dtype=np.int64)
        if found:
            positions = out
            memcpy(&positions[0], picked, found * sizeof(int64_t))
        return out
    finally:
        free(pad); free(picked)


def window_digits(const uint8_t[::1] codes, const int64_t[::1] starts, int window,
                  const int64_t[::1] column, const int64_t[:, ::1] value):
    """The digit part of each window's key -> int64 (n_windows,): for window [s, s + window)
    of letter codes, the sum over the letters l of the subset of ``value[l, count of l]``.
    column: letter code (0..31) -> its row in value, or value's row count for the others."""
    cdef Py_ssize_t n_windows = starts.shape[0], m = value.shape[0]
    out = np.zeros(n_windows, dtype=np.int64)
    if n_windows == 0:
        return out
    cdef int64_t[::1] keys = out
    cdef int64_t *counts = <int64_t *>malloc((m + 1) * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    with nogil:
        _digits(&codes[0], &starts[0], n_windows, window, &column[0], &value[0, 0], m,
                value.shape[1], counts, &keys[0])
    free(counts)
    return out


def short_keys(const int64_t[::1] grams, int gram_k, const int64_t[::1] positions, int k):
    """Keys of the exact k-grams starting at ``positions`` -> uint64 array, in position order
    (see ``fingerprint.shortdoc.short_keys``, which checks gram_k <= k <= 2 * gram_k): each
    assembled from the gram_k-grams at p and p + k - gram_k, with bit 63 set; positions with
    no whole k-gram before the end are skipped."""
    cdef Py_ssize_t n = positions.shape[0], found = 0
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = out
    if n:
        found = _short(&grams[0] if grams.shape[0] else NULL, grams.shape[0], gram_k,
                       &positions[0], n, k, &keys[0])
    return out[:found]


def sequence_keys(const uint8_t[::1] codes, int k, int window_radius, int fixed_stride,
                  int short_radius, int short_k, int window, const int64_t[::1] column,
                  const int64_t[:, ::1] value, int anchor_bits, int digit_bits,
                  bint distinct_short=False):
    """Every key of one letter sequence (codes (n,), 0..31) -> (keys, starts): keys uint64,
    the window keys (one per start) then the short-text k-gram keys (repeats kept, position
    order; sorted and each once when ``distinct_short``); starts int64, the window starts
    (letters, ascending).

    Window starts: every ``fixed_stride`` letters when it is > 0, else winnowing's selection
    of radius ``window_radius`` over the k-gram hashes (``mix(kgram_codes(codes, k))``);
    only complete windows of ``window`` letters (window >= k). A window's key is
    ``window_digits`` (column, value: ``Quantizer``'s tables) plus the low ``anchor_bits`` bits
    (< 64) of its first k-gram's hash shifted by ``digit_bits``. Short keys: ``short_keys`` of
    the selection of radius ``short_radius`` with ``short_k``; none when short_radius is 0.
    When both selections are wanted and their radii are close, the wider one is narrowed from
    the other (``_narrow``) instead of a second pass.
    """
    cdef Py_ssize_t n = codes.shape[0], n_grams = max(n - k + 1, 0), last = n - window
    cdef Py_ssize_t m = value.shape[0], n_starts = 0, n_short = 0, n_chosen = 0, w
    cdef Py_ssize_t small = min(window_radius, short_radius), wide = max(window_radius, short_radius)
    cdef bint content = fixed_stride <= 0
    cdef bint narrow = content and short_radius > 0 and wide - small <= small + 1
    cdef uint64_t mask = ((<uint64_t>1) << anchor_bits) - 1
    cdef Py_ssize_t size = 3 * max(_pad_size(n_grams, window_radius),
                                   _pad_size(n_grams, short_radius))  # _minima's scratch
    cdef int64_t *buffer = <int64_t *>malloc((4 * n_grams + size + m + 1) * sizeof(int64_t))
    if buffer == NULL:
        raise MemoryError()
    cdef int64_t *grams = buffer
    cdef uint64_t *hashes = <uint64_t *>(buffer + n_grams)
    cdef int64_t *picked = buffer + 2 * n_grams  # window starts (content mode)
    cdef int64_t *chosen = buffer + 3 * n_grams  # short k-gram positions
    cdef uint64_t *pad = <uint64_t *>(buffer + 4 * n_grams)
    cdef int64_t *counts = buffer + 4 * n_grams + size
    cdef uint64_t[::1] keys
    cdef int64_t[::1] at
    try:
        with nogil:
            if n_grams:
                _kgrams(&codes[0], n_grams, k, grams)
                _mix(grams, n_grams, hashes)
            if not content:
                n_starts = last // fixed_stride + 1 if last >= 0 else 0
            if n_grams == 0:
                pass
            elif narrow and window_radius <= short_radius:
                n_starts = _minima(hashes, n_grams, window_radius, pad, picked)
                n_chosen = _narrow(hashes, n_grams, picked, n_starts, small, wide, chosen)
            elif narrow:
                n_chosen = _minima(hashes, n_grams, short_radius, pad, chosen)
                n_starts = _narrow(hashes, n_grams, chosen, n_chosen, small, wide, picked)
            else:
                if content:
                    n_starts = _minima(hashes, n_grams, window_radius, pad, picked)
                if short_radius > 0:
                    n_chosen = _minima(hashes, n_grams, short_radius, pad, chosen)
            while content and n_starts and picked[n_starts - 1] > last:
                n_starts -= 1
        starts_out = np.empty(n_starts, dtype=np.int64)
        out = np.empty(n_starts + n_chosen, dtype=np.uint64)
        if n_starts + n_chosen == 0:
            return out, starts_out
        keys = out
        if n_starts:
            at = starts_out
            with nogil:
                for w in range(n_starts):
                    at[w] = picked[w] if content else w * fixed_stride
                _digits(&codes[0], &at[0], n_starts, window, &column[0], &value[0, 0], m,
                        value.shape[1], counts, <int64_t *>&keys[0])
                for w in range(n_starts):
                    keys[w] += (hashes[at[w]] & mask) << digit_bits
        if n_chosen:
            n_short = _short(grams, n_grams, k, chosen, n_chosen, short_k, &keys[n_starts])
            if distinct_short:
                n_short = _distinct(&keys[n_starts], n_short)
        if n_short == n_chosen:
            return out, starts_out
        return out[:n_starts + n_short], starts_out
    finally:
        free(buffer)
