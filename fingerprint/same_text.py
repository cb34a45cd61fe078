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

from collections.abc import Callable, Sequence

import numpy as np

from fingerprint.compiled.judge import known_groups, same_text_pairs
from fingerprint.verify import Alignment, SeedIndex


class SameTextGroups:
    """Finds groups of same-text works among a page's candidates; remembers the pairs tested.

    ``align``: aligns letter codes (n,) against a SeedIndex (the engine's configured
    ``fingerprint.verify.align``); ``share``: least share (0..1] of the letters inside the
    aligned span of each text that the alignment covers; ``frame``: largest share [0..1) of a
    text's letters outside that span; ``cache_size``: pairs (and works) remembered, emptied when a
    page would pass it; a pair is remembered under both works' revisions so that a re-added
    work is compared again.
    """

    def __init__(self, align: Callable[[np.ndarray, SeedIndex], Alignment], share: float,
                 frame: float, cache_size: int):
        self._align = align
        self.share = share
        self.frame = frame
        # pairs tested: {key of the two (work, revision) numbers (see known_groups): same?}
        self._pairs: dict[int, bool] = {}
        self._numbers: dict[tuple[str, tuple[str, str]], int] = {}  # (work, revision): number
        self._cache_size = cache_size

    def groups(self, works: Sequence[tuple[str, tuple[str, str], SeedIndex]],
               masks: np.ndarray) -> list[int]:
        """Group label of each candidate (equal labels: one group), in order.

        ``works``: (work_id, revision, seeds) of each candidate; ``masks``: bool
        (n_candidates, n_page_letters), the page letters each matched. Only pairs that could be
        the same text are aligned: letter counts within ``share`` of each other and matched
        page letters mostly shared (half of the smaller set at least); the others cost nothing.
        """
        labels = list(range(len(works)))
        if len(works) < 2:
            return labels
        sizes = np.array([seeds.n_letters for _, _, seeds in works], dtype=np.int64)
        least = self.share * (1 - self.frame)  # of the longer text's letters, in the shorter
        pairs = same_text_pairs(masks.view(np.uint8), sizes, least)
        if not pairs:
            return labels
        if (len(self._pairs) + len(pairs) > self._cache_size
                or len(self._numbers) + len(works) > self._cache_size):
            self._pairs.clear()
            self._numbers.clear()
        numbers = self._numbers
        ids = np.array([numbers.setdefault((work_id, revision), len(numbers))
                        for work_id, revision, _ in works], dtype=np.int64)
        labels, unknown = known_groups(pairs, ids, self._pairs)
        if unknown:
            for i, j in unknown:
                lo, hi = sorted((int(ids[i]), int(ids[j])))
                self._pairs[lo << 32 | hi] = self.same(works[i][2], works[j][2])
            labels, _ = known_groups(pairs, ids, self._pairs)
        return labels

    def same(self, a: SeedIndex, b: SeedIndex) -> bool:
        """True when works ``a`` and ``b`` (their SeedIndex) are the same text (see the module
        docstring)."""
        return self._grams_shared(a, b) and self._grams_shared(b, a) and self._aligned(a, b)

    def _grams_shared(self, a: SeedIndex, b: SeedIndex) -> bool:
        """A necessary condition of ``_aligned``, ten times cheaper: enough of ``a``'s seed
        k-grams occur in ``b``. Each letter outside the aligned part of ``a`` (at most
        ``frame`` of it, then ``1 - share`` of the span) breaks at most k of its k-grams."""
        if len(a.codes) == 0 or len(b.codes) == 0:
            return False
        found = b.codes.take(np.searchsorted(b.codes, a.codes), mode="clip") == a.codes
        least = (1 - self.frame) * (1 - a.k * (1 - self.share)) * a.n_letters - a.k
        return int(np.count_nonzero(found)) >= least

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
