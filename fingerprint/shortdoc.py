"""Extra keys for short texts: winnowed letter k-grams.

A text of 150 to 500 characters has only a handful of letter-count windows, and substitutions
break a large share of them, so short works are also indexed under exact letter k-grams
selected by winnowing (Schleimer, Wilkerson, Aiken, SIGMOD 2003): the k-gram at each position
whose hash is the minimum within ``radius`` positions on either side. Every page computes the
same selection, so a short work embedded anywhere in a page is found through any k-gram that
survived the edits (a k-gram of first letters is unchanged by homophones and by traditional
script). This plays the part of design.md's short-document method (its "15 longest words" need
a word segmenter; letter k-grams need none).

Keys live in their own range (bit 63 set), so they never collide with window keys (< 2**63).
"""

from __future__ import annotations

import numpy as np

from fingerprint.windows import kgram_codes, local_minima, mix

SHORT_KEY_BIT = np.uint64(1 << 63)


def short_keys(codes: np.ndarray, k: int = 10, radius: int = 3) -> np.ndarray:
    """Winnowed k-gram keys of letter codes (n,) -> sorted unique uint64 array (bit 63 set).

    k: letters per k-gram (<= 12). radius: selection radius (density about 1 / (2*radius + 1));
    works use a small radius and pages a larger one (a page's selection inside a copied
    passage is then a subset of the work's).
    Empty when the text has fewer than k letters.
    """
    grams = kgram_codes(codes, k)
    if len(grams) == 0:
        return np.zeros(0, dtype=np.uint64)
    h = mix(grams)
    chosen = h[local_minima(h, radius)]
    return np.unique((chosen >> np.uint64(1)) | SHORT_KEY_BIT)
