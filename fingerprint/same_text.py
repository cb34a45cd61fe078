"""Groups of candidate works whose texts are the same text registered more than once.

A text may be registered as several works (syndicated news, a reissued edition, a ruling
published under several case numbers, a second holder claiming it). For the template discount
of ``Engine._judge`` such works are one text: a page letter they all match is not boilerplate
shared by different works. Two works are the same text when the alignment of one whole text
with the other (``fingerprint.verify.align``) spans all but at most ``frame`` of each text's
letters (a header or footer of its own outside the span) and covers at least ``share`` of the
letters inside each span (a name or a few characters changed). Groups are the connected
components of that relation among a page's candidates. Design notes:
docs/decisions/same-text-works.md.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fingerprint.compiled.align import grams_shared
from fingerprint.compiled.judge import PairCache
from fingerprint.verify import Alignment, SeedIndex


class SameTextGroups:
    """Tells whether two works are the same text; remembers the pairs tested for the grouping
    of a page's candidates (``fingerprint.compiled.judge.judge_page``).

    ``align``: aligns letter codes (n,) against a SeedIndex (the engine's configured
    ``fingerprint.verify.align``); ``share``: least share (0..1] of the letters inside the
    aligned span of each text that the alignment covers; ``frame``: largest share [0..1) of a
    text's letters outside that span; ``cache_size``: pairs remembered, emptied when a page
    would pass it.
    """

    def __init__(self, align: Callable[[np.ndarray, SeedIndex], Alignment], share: float,
                 frame: float, cache_size: int):
        self._align = align
        self.share = share
        self.frame = frame
        #: pairs tested: min(a, b) << 32 | max(a, b) -> same text?, with a, b the numbers of two
        #: prepared works (``fingerprint.compiled.judge.known_groups``); a re-added work is
        #: prepared again under a new number, so it is compared again
        self.pairs = PairCache(cache_size)

    def same(self, a: SeedIndex, b: SeedIndex) -> bool:
        """True when works ``a`` and ``b`` (their SeedIndex) are the same text (see the module
        docstring); the k-grams the two share are counted first (``grams_shared``)."""
        return grams_shared(a, b, self.share, self.frame) and self.aligned(a, b)

    def aligned(self, a: SeedIndex, b: SeedIndex) -> bool:
        """The alignment of ``a``'s letters with ``b`` spans all but at most ``frame`` of the
        letters of each and covers ``share`` of the letters inside each span (``same`` once
        ``grams_shared`` holds)."""
        aln = self._align(a.letters, b)
        if not aln.passages:
            return False
        spans = ((aln.page_covered, max(p[1] for p in aln.passages)
                  - min(p[0] for p in aln.passages), a.n_letters),
                 (aln.work_covered, max(p[3] for p in aln.passages)
                  - min(p[2] for p in aln.passages), b.n_letters))
        return all(covered >= self.share * span and span >= (1 - self.frame) * n
                   for covered, span, n in spans)
