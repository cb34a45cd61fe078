# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Text -> letters, compiled: one pass over a str's code points (see ``fingerprint.letters``
for the rules and the classes)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


def convert(str text, const uint8_t[::1] classes, int boundary, int latin):
    """(codes uint8, offsets int64, sentence starts int64) of ``text``.

    classes: code point -> class (one entry per code point): ``class & 31`` is the letter
    (1..31, 0 for none); classes above ``latin`` are Latin letters, of which a run gives one
    letter, its first; ``boundary`` marks sentence punctuation. codes: each letter - 1;
    offsets: each letter's character (index into text); sentence starts: for each boundary
    character, the number of letters before it, ascending and distinct, except 0 and
    len(codes)."""
    cdef Py_ssize_t n = len(text), i = 0, found = 0, n_bounds = 0
    cdef Py_UCS4 ch
    cdef uint8_t cls, letter
    cdef bint was_latin = False, is_latin
    cdef int64_t last = 0
    cdef uint8_t *codes = <uint8_t *>malloc(max(n, 1))
    cdef int64_t *scratch = <int64_t *>malloc(2 * max(n, 1) * sizeof(int64_t))
    cdef int64_t *offsets = scratch
    cdef int64_t *bounds = scratch + n
    cdef uint8_t[::1] codes_view
    cdef int64_t[::1] view
    try:
        if codes == NULL or scratch == NULL:
            raise MemoryError()
        for ch in text:
            cls = classes[ch]
            letter = cls & 31
            is_latin = cls > latin
            if letter and not (is_latin and was_latin):
                codes[found] = letter - 1
                offsets[found] = i
                found += 1
            elif cls == boundary and found > last:
                bounds[n_bounds] = found
                n_bounds += 1
                last = found
            was_latin = is_latin
            i += 1
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
