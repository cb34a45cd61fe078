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

from fingerprint.compiled.align import shared_codes
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
        docstring)."""
        return self._grams_shared(a, b) and self._aligned(a, b)

    def _grams_shared(self, a: SeedIndex, b: SeedIndex) -> bool:
        """A necessary condition of ``_aligned``, ten times cheaper: enough of each work's
        seed k-grams occur in the other. Each letter outside the aligned part of a work (at
        most ``frame`` of it, then ``1 - share`` of the span) breaks at most k of its
        k-grams."""
        if len(a.seeds) == 0 or len(b.seeds) == 0:
            return False
        a_in_b, b_in_a = shared_codes(a, b)
        return a_in_b >= self._least(a) and b_in_a >= self._least(b)

    def _least(self, work: SeedIndex) -> float:
        return (1 - self.frame) * (1 - work.k * (1 - self.share)) * work.n_letters - work.k

    def _aligned(self, a: SeedIndex, b: SeedIndex) -> bool:
        """The alignment of ``a``'s letters with ``b`` spans all but at most ``frame`` of the
        letters of each and covers ``share`` of the letters inside each span."""
        aln = self._align(a.letters, b)
        if not aln.passages:
            return False
        spans = ((aln.page_covered, max(p[1] for p in aln.passages)
                  - min(p[0] for p in aln.passages), a.n_letters),
                 (aln.work_covered, max(p[3] for p in aln.passages)
                  - min(p[2] for p in aln.passages), b.n_letters))
        return all(covered >= self.share * span and span >= (1 - self.frame) * n
                   for covered, span, n in spans)
