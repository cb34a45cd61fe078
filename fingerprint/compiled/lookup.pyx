# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The last step of a loaded index's lookup, compiled: the postings found, grouped by key."""

from libc.stdint cimport int64_t


def group_postings(list keys, const int64_t[::1] which, const int64_t[::1] works,
                   const int64_t[::1] windows, list ids):
    """{key: [(work_id, window), ...]} of the postings found: posting p belongs to
    ``keys[which[p]]``, names work ``ids[works[p]]`` and window ``windows[p]`` (postings in
    the order given, each key's list in that order)."""
    cdef dict out = {}
    cdef Py_ssize_t p, n = which.shape[0]
    cdef int64_t last = -1
    cdef list held = None
    for p in range(n):
        if which[p] != last:
            last = which[p]
            held = out.get(keys[last])
            if held is None:
                held = []
                out[keys[last]] = held
        held.append((ids[works[p]], windows[p]))
    return out
