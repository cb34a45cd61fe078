"""Overlapping windows over a letter sequence: fixed offsets (Daguan) or content-defined starts.

Content-defined starts follow winnowing (Schleimer, Wilkerson, Aiken, "Winnowing: local
algorithms for document fingerprinting", SIGMOD 2003): hash every k-gram of letters and start
a window at each position whose hash is the minimum of the hashes within ``radius`` positions on
either side. Whether a position is a start depends only on the 2*radius + k letters around it,
so an insertion, deletion or reordering moves only the starts near the edit, and a copied
passage keeps its starts wherever it is placed (measured in design.md: about 98% of windows
survive any prefix insertion, against about 2% with fixed offsets).

The engine takes a sequence's window starts and keys in one compiled call
(``fingerprint.compiled.keys.sequence_keys``); the functions here are its steps, one by one.
"""

from __future__ import annotations

import numpy as np

from fingerprint.compiled import keys as compiled


def kgram_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """Exact k-gram codes: letter codes (0..31, shape (n,)) -> int64 array (n - k + 1,), 5 bits
    per letter, first letter highest (1 <= k <= 12). Empty if n < k."""
    return compiled.kgram_codes(np.ascontiguousarray(codes, dtype=np.uint8), k)


def mix(values: np.ndarray) -> np.ndarray:
    """A 64-bit mixing function (splitmix64 finaliser) over an int64/uint64 array -> uint64."""
    values = np.ascontiguousarray(values)
    return compiled.mix(values.view(np.int64) if values.dtype == np.uint64
                        else values.astype(np.int64, copy=False))


def local_minima(hashes: np.ndarray, radius: int) -> np.ndarray:
    """Positions (int64, ascending) whose hash (uint64 array) is the minimum of the hashes
    within ``radius`` (at least 1) positions on either side (winnowing selection, density
    about 1 / (2 * radius + 1)). A position selected with radius R is also selected with any
    radius r < R, so a sparser selection on the query side is a subset of a denser one on the
    index side."""
    return compiled.local_minima(np.ascontiguousarray(hashes, dtype=np.uint64), radius)


def content_radius(stride: int, sparsity: int = 1) -> int:
    """Winnowing radius (letters) giving about one content-defined start per sparsity * stride
    letters."""
    return sparsity * max(1, (stride - 1) // 2)
