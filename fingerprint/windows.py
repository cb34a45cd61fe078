"""Overlapping windows over a letter sequence: fixed offsets (Daguan) or content-defined starts.

Content-defined starts follow winnowing (Schleimer, Wilkerson, Aiken, "Winnowing: local
algorithms for document fingerprinting", SIGMOD 2003): hash every k-gram of letters and start
a window at each position whose hash is the minimum of the hashes within ``radius`` positions on
either side. Whether a position is a start depends only on the 2*radius + k letters around it,
so an insertion, deletion or reordering moves only the starts near the edit, and a copied
passage keeps its starts wherever it is placed (measured in design.md: about 98% of windows
survive any prefix insertion, against about 2% with fixed offsets).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)


def kgram_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """Exact k-gram codes: letter codes (0..25, shape (n,)) -> int64 array (n - k + 1,), 5 bits
    per letter (k <= 12). Empty if n < k."""
    n = len(codes) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    c = codes.astype(np.int64)
    out = c[:n].copy()
    for i in range(1, k):
        out <<= 5
        out |= c[i : i + n]
    return out


def mix(values: np.ndarray) -> np.ndarray:
    """A 64-bit mixing function (splitmix64 finaliser) over an int64/uint64 array -> uint64."""
    z = values.astype(np.uint64) * _MIX1
    z ^= z >> np.uint64(31)
    z *= _MIX2
    z ^= z >> np.uint64(29)
    return z


def window_starts(codes: np.ndarray, window_letters: int, stride: int, mode: str = "content",
                  anchor_k: int = 5) -> np.ndarray:
    """Start positions (letters, int64 array, ascending) of the complete windows of a sequence.

    codes: letter codes (n,). A window is [start, start + window_letters); only complete windows
    are returned, so a sequence shorter than window_letters has none.
    mode "fixed": starts 0, stride, 2*stride, ... (Daguan's overlapping windows).
    mode "content": local minima of the k-gram hash with radius (stride - 1) // 2, which gives on
    average one start per stride letters (density 1 / (2 * radius + 1)).
    Raises ValueError for an unknown mode.
    """
    n = len(codes)
    last = n - window_letters
    if last < 0:
        return np.zeros(0, dtype=np.int64)
    if mode == "fixed":
        return np.arange(0, last + 1, stride, dtype=np.int64)
    if mode != "content":
        raise ValueError(f"unknown window mode {mode!r}")
    h = mix(kgram_codes(codes, anchor_k))
    radius = max(1, (stride - 1) // 2)
    pad = np.full(radius, np.iinfo(np.uint64).max, dtype=np.uint64)
    local_min = sliding_window_view(np.concatenate([pad, h, pad]), 2 * radius + 1).min(axis=1)
    starts = np.flatnonzero(h == local_min)
    return starts[starts <= last].astype(np.int64)
