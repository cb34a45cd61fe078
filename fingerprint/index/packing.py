"""Vectorized varint (LEB128) coding of unsigned integers, for the compact index layouts.

A varint holds 7 bits per byte, low bits first; the high bit of a byte is set when another byte
of the same value follows (the encoding of Protocol Buffers and of Lucene's VInt). A value below
2**7 takes 1 byte, below 2**14 2 bytes, below 2**21 3 bytes, below 2**64 at most 10 bytes.
Both directions run as a few NumPy passes over the whole buffer, no Python loop per value.
"""

from __future__ import annotations

import numpy as np

_SEVEN = np.uint64(7)


def varint_encode(values) -> bytes:
    """Concatenated varints of ``values``.

    Args:
        values: a 1-D sequence or array of ints in 0..2**64-1.

    Returns:
        bytes: the varints in order (1 to 10 bytes each).
    """
    v = np.asarray(values, dtype=np.uint64).ravel()
    if not len(v):
        return b""
    sizes = np.ones(len(v), dtype=np.int64)
    rest = v >> _SEVEN
    while rest.any():
        sizes += rest > 0
        rest >>= _SEVEN
    starts = np.cumsum(sizes) - sizes
    position = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(starts, sizes)
    out = (np.repeat(v, sizes) >> (position.astype(np.uint64) * _SEVEN)) & np.uint64(0x7F)
    out |= (position < np.repeat(sizes, sizes) - 1).astype(np.uint64) << _SEVEN
    return out.astype(np.uint8).tobytes()


def varint_decode(data) -> np.ndarray:
    """Inverse of :func:`varint_encode`.

    Args:
        data: bytes-like (or a uint8 array) holding whole varints.

    Returns:
        np.ndarray: uint64 values, in order.

    Raises:
        ValueError: the data ends inside a varint, or a varint is longer than 10 bytes.
    """
    b = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    if not len(b):
        return np.zeros(0, dtype=np.uint64)
    if b[-1] & 0x80:
        raise ValueError("varint data ends inside a value")
    ends = np.flatnonzero(b < 0x80)
    starts = np.empty(len(ends), dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    sizes = ends - starts + 1
    if sizes.max() > 10:
        raise ValueError("varint longer than 10 bytes")
    position = np.arange(len(b), dtype=np.int64) - np.repeat(starts, sizes)
    parts = (b & 0x7F).astype(np.uint64) << (position.astype(np.uint64) * _SEVEN)
    return np.add.reduceat(parts, starts)
