"""Pairs of adjacent Han characters of a text: a cheap, vectorised test of how much of a page's
wording a set of texts shares, made before the costly word segmentation of the rewrite stage
(crawler.rematch). A rewrite (洗稿) swaps words for synonyms and moves sentences, but keeps
names and most words without a synonym, so most of its character pairs stay those of its source.
"""

from __future__ import annotations

import numpy as np


def han_pairs(text: str) -> np.ndarray:
    """The distinct pairs of adjacent Han characters (U+3400-U+9FFF) of ``text``, each as
    (first code point << 21) | second, in a sorted uint64 array."""
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    han = (points >= 0x3400) & (points <= 0x9FFF)
    both = han[:-1] & han[1:]
    return np.unique((points[:-1][both] << np.uint64(21)) | points[1:][both])


def share_known(pairs: np.ndarray, known: np.ndarray) -> float:
    """Share (0..1) of ``pairs`` (``han_pairs`` of a text) found in ``known`` (sorted uint64
    array, e.g. the union of several texts' pairs); 0.0 for a text without pairs."""
    if not len(pairs) or not len(known):
        return 0.0
    at = np.minimum(np.searchsorted(known, pairs), len(known) - 1)
    return float(np.count_nonzero(known[at] == pairs)) / len(pairs)
