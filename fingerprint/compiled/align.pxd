# Declarations shared with judge.pyx (which reads alignments and seed indexes in C) and
# rewrite.pyx (which sorts with the alignment's sort).
from libc.stdint cimport int64_t, uint8_t


cdef class SeedIndex:
    cdef readonly object seeds, letters
    cdef readonly int k
    cdef const int64_t *_seeds  # (code, position) pairs, by code then position
    cdef const uint8_t *_letters
    cdef Py_ssize_t _n_codes, _n_letters


cdef class Alignment:
    # one malloc'ed block: passages (n_passages x 4), matched (n_passages), runs (n_runs x 3)
    cdef int64_t *_passages
    cdef int64_t *_matched
    cdef int64_t *_runs
    cdef readonly Py_ssize_t n_passages, n_runs
    cdef readonly int64_t page_covered, work_covered
    cdef int _allocate(self, Py_ssize_t n_passages, Py_ssize_t n_runs) except -1


cdef bint _grams_shared(SeedIndex a, SeedIndex b, double share, double frame) noexcept nogil


cdef void _sort_i64(int64_t *a, Py_ssize_t n, int depth) noexcept nogil
cdef int _log2(Py_ssize_t n) noexcept nogil
