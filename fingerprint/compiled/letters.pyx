# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Text -> letters, compiled: one pass over a str's code points (see ``fingerprint.letters``
for the rules and the classes)."""

import numpy as np

from cpython.unicode cimport PyUnicode_1BYTE_KIND, PyUnicode_2BYTE_KIND, PyUnicode_DATA, PyUnicode_KIND
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


ctypedef fused code_unit:  # a str's storage: 1, 2 or 4 bytes a code point (PEP 393)
    uint8_t
    uint16_t
    uint32_t


cdef Py_ssize_t _scan(const code_unit *text, Py_ssize_t n, const uint8_t *classes,
                      uint8_t boundary, uint8_t latin, uint8_t *codes, int64_t *offsets,
                      int64_t *bounds, Py_ssize_t *n_bounds) noexcept nogil:
    """The letters of text[:n] into codes and offsets, their sentence starts into bounds
    (``n_bounds`` of them, before dropping one at the end); returns the letters found."""
    cdef Py_ssize_t i, found = 0, kept = 0
    cdef uint8_t cls, letter
    cdef bint was_latin = False, is_latin
    cdef int64_t last = 0
    for i in range(n):  # branch-free but for sentence punctuation
        cls = classes[text[i]]
        letter = cls & 31
        is_latin = cls > latin
        codes[found] = letter - 1
        offsets[found] = i
        found += (letter != 0) & (1 - (is_latin & was_latin))  # a letter, not inside a word
        if cls == boundary and found > last:
            bounds[kept] = found
            kept += 1
            last = found
        was_latin = is_latin
    n_bounds[0] = kept
    return found


def convert(str text, const uint8_t[::1] classes, int boundary, int latin):
    """(codes uint8, offsets int64, sentence starts int64) of ``text``.

    classes: code point -> class (one entry per code point): ``class & 31`` is the letter
    (1..31, 0 for none); classes above ``latin`` are Latin letters, of which a run gives one
    letter, its first; ``boundary`` marks sentence punctuation. codes: each letter - 1;
    offsets: each letter's character (index into text); sentence starts: for each boundary
    character, the number of letters before it, ascending and distinct, except 0 and
    len(codes)."""
    cdef Py_ssize_t n = len(text), found = 0, n_bounds = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef uint8_t *codes = <uint8_t *>malloc(max(n, 1))
    cdef int64_t *scratch = <int64_t *>malloc(2 * max(n, 1) * sizeof(int64_t))
    cdef int64_t *offsets = scratch
    cdef int64_t *bounds = scratch + n
    cdef uint8_t[::1] codes_view
    cdef int64_t[::1] view
    try:
        if codes == NULL or scratch == NULL:
            raise MemoryError()
        with nogil:
            if kind == PyUnicode_1BYTE_KIND:
                found = _scan(<const uint8_t *>data, n, &classes[0], boundary, latin, codes,
                              offsets, bounds, &n_bounds)
            elif kind == PyUnicode_2BYTE_KIND:
                found = _scan(<const uint16_t *>data, n, &classes[0], boundary, latin, codes,
                              offsets, bounds, &n_bounds)
            else:
                found = _scan(<const uint32_t *>data, n, &classes[0], boundary, latin, codes,
                              offsets, bounds, &n_bounds)
        if n_bounds and bounds[n_bounds - 1] == found:
            n_bounds -= 1
        codes_out = np.empty(found, dtype=np.uint8)
        offsets_out = np.empty(found, dtype=np.int64)
        bounds_out = np.empty(n_bounds, dtype=np.int64)
        if found:
            codes_view = codes_out
            memcpy(&codes_view[0], codes, found)
            view = offsets_out
            memcpy(&view[0], offsets, found * sizeof(int64_t))
        if n_bounds:
            view = bounds_out
            memcpy(&view[0], bounds, n_bounds * sizeof(int64_t))
        return codes_out, offsets_out, bounds_out
    finally:
        free(codes); free(scratch)
