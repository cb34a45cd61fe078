"""Pairs of adjacent Han characters of a text: a cheap, vectorised test of how much of a page's
wording one of a set of texts shares, made before the costly word segmentation of the rewrite
stage (crawler.rematch). A rewrite (洗稿) swaps words for synonyms and moves sentences, but
keeps names and most words without a synonym, so most of its character pairs stay its source's.
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


class PairIndex:
    """The ``han_pairs`` of several texts, to tell how much of a page's pairs one of them holds.

    ``pairs``: the ``han_pairs`` of each text; ``max_texts``: a pair held by more texts than
    this is common wording (何时, 说道 in a batch of novels) and left out of every share.
    """

    def __init__(self, pairs: list[np.ndarray], max_texts: int):
        keys = np.concatenate([np.zeros(0, np.uint64), *pairs])
        owner = np.repeat(np.arange(len(pairs)), [len(p) for p in pairs])
        order = np.argsort(keys, kind="stable")
        keys, owner = keys[order], owner[order]
        distinct, counts = np.unique(keys, return_counts=True)
        kept = np.repeat(counts <= max_texts, counts)
        self._keys, self._owner, self._texts = keys[kept], owner[kept], len(pairs)
        self._common = distinct[counts > max_texts]

    def best_share(self, pairs: np.ndarray) -> float:
        """The largest share (0..1) of ``pairs`` (``han_pairs`` of a page, common pairs left
        out) that one of the texts holds; 0.0 when none is left."""
        if len(self._common):
            pairs = pairs[~np.isin(pairs, self._common, assume_unique=True)]
        if not len(pairs) or not len(self._keys):
            return 0.0
        low = np.searchsorted(self._keys, pairs, "left")
        found = np.searchsorted(self._keys, pairs, "right") - low
        held = found > 0
        low, found = low[held], found[held]
        if not len(found):
            return 0.0
        at = np.repeat(low, found) + np.arange(found.sum()) - np.repeat(np.cumsum(found) - found,
                                                                        found)
        return float(np.bincount(self._owner[at], minlength=self._texts).max()) / len(pairs)
