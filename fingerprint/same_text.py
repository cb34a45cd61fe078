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

from fingerprint.compiled.judge import same_text_pairs
from fingerprint.verify import Alignment, SeedIndex


class SameTextGroups:
    """Finds groups of same-text works among a page's candidates; remembers the pairs tested.

    ``align``: aligns letter codes (n,) against a SeedIndex (the engine's configured
    ``fingerprint.verify.align``); ``share``: least share (0..1] of the letters inside the
    aligned span of each text that the alignment covers; ``frame``: largest share [0..1) of a
    text's letters outside that span; ``cache_size``: pairs remembered (emptied when full), each
    under both works' revisions so that a re-added work is compared again.
    """

    def __init__(self, align: Callable[[np.ndarray, SeedIndex], Alignment], share: float,
                 frame: float, cache_size: int):
        self._align = align
        self.share = share
        self.frame = frame
        self._pairs: dict[tuple[str, str], bool] = {}  # (work, revision) names of a pair
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
        names = [f"{work_id}\0{revision[0]}\0{revision[1]}" for work_id, revision, _ in works]
        pairs_known = self._pairs
        for i, j in pairs:
            if labels[i] == labels[j]:  # already one group: the pair changes nothing
                continue
            a, b = names[i], names[j]
            same = pairs_known.get((a, b) if a < b else (b, a))
            if same is None:
                same = self.same(works[i], works[j])
            if same:  # merge j's group into i's
                old = labels[j]
                labels = [labels[i] if label == old else label for label in labels]
        return labels

    def same(self, a: tuple[str, tuple[str, str], SeedIndex],
             b: tuple[str, tuple[str, str], SeedIndex]) -> bool:
        """True when works ``a`` and ``b`` ((work_id, revision, seeds)) are the same text (see
        the module docstring); remembered for the pair of revisions."""
        names = sorted(f"{work_id}\0{revision[0]}\0{revision[1]}" for work_id, revision, _ in (a, b))
        key = (names[0], names[1])
        known = self._pairs.get(key)
        if known is None:
            known = (self._grams_shared(a[2], b[2]) and self._grams_shared(b[2], a[2])
                     and self._aligned(a[2], b[2]))
            if len(self._pairs) >= self._cache_size:
                self._pairs.clear()
            self._pairs[key] = known
        return known

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
