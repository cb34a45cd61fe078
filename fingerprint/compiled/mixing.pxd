# cython: language_level=3
"""splitmix64's finaliser as an inline C function, for the compiled modules that hash keys."""

from libc.stdint cimport uint64_t


cdef inline uint64_t splitmix64(uint64_t z) noexcept nogil:
    """splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
    generators", OOPSLA 2014) of z, as ``fingerprint.windows.mix``."""
    z *= 0x9E3779B97F4A7C15ULL
    z ^= z >> 31
    z *= 0xBF58476D1CE4E5B9ULL
    z ^= z >> 29
    return z
