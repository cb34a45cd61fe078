"""Extra keys for short texts: winnowed letter k-grams.

A text of 150 to 500 characters has only a handful of letter-count windows, and substitutions
break a large share of them, so short works are also indexed under exact letter k-grams
selected by winnowing (Schleimer, Wilkerson, Aiken, SIGMOD 2003): the k-gram starting at each
position whose anchor hash (the same rolling hash that places content-defined windows) is the
minimum within a radius on either side; works use a small radius, pages a larger one, so the
page's selection inside a copied passage is a subset of the work's. Every page computes the
same selection, so a short work embedded anywhere in a page is found through any k-gram that
survived the edits (a k-gram of first letters is unchanged by homophones and by traditional
script). This plays the part of design.md's short-document method (its "15 longest words" need
a word segmenter; letter k-grams need none).

Keys live in their own range (bit 63 set), so they never collide with window keys (< 2**63).

Measured (``bench/tune_engine.py --lengths``: People's Daily texts cut to each length, 60 per
length, copied inside a portal page, exact / 3% substituted / 5% homophones + traditional):
150 characters and more 1.00 on all three, 120: 0.98-1.00, 80: 0.73-0.92, 50: 0.38-0.52, and
no false match at any length. Below min_text_letters (40 letters, about 45 characters) the
engine does nothing: such a page gets no match and such a work is refused (EmptyTextError):
too few letters to tell a copy from a stock phrase. Known miss: verse whose short lines are
shuffled (each line under the 24-letter minimum passage).
"""

from __future__ import annotations

import numpy as np

from fingerprint.compiled.keys import short_keys as compiled_short_keys

SHORT_KEY_BIT = np.uint64(1 << 63)


def short_keys(grams: np.ndarray, gram_k: int, positions: np.ndarray, k: int = 10
               ) -> np.ndarray:
    """Keys of the exact k-grams starting at ``positions`` (winnowing selections, see
    ``fingerprint.windows.local_minima``) -> uint64 array (in position order, repeats kept):
    the k-gram's 5-bit letter codes (so under 2**60) with bit 63 set.

    grams: the sequence's gram_k-gram codes (``kgram_codes(codes, gram_k)``); each k-gram
    (gram_k <= k <= 2 * gram_k) is assembled from two overlapping gram_k-grams at the selected
    positions only. Positions too close to the end for a whole k-gram are skipped.
    Raises ValueError unless gram_k <= k <= 2 * gram_k.
    """
    if not gram_k <= k <= 2 * gram_k:
        raise ValueError(f"k must be in [{gram_k}, {2 * gram_k}], got {k}")
    return compiled_short_keys(np.ascontiguousarray(grams, dtype=np.int64), gram_k,
                               np.ascontiguousarray(positions, dtype=np.int64), k)
