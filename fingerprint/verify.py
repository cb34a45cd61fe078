"""Verification: align a page's letters against a work's letters and measure containment.

Seed-and-extend (the scheme of BLAST, Altschul et al. 1990, on letter k-grams): every exact
k-gram shared by page and work is a seed (i in the page, j in the work, diagonal d = j - i);
the page is sampled every ``seed_stride`` positions, the work completely.
Seeds on one diagonal no more than ``max_gap`` letters apart form a run (a substituted letter
only breaks the k-grams that contain it); runs shorter than 1.5 k letters are dropped as chance
seeds (repeated names, stock phrases); runs whose page and work gaps are both within
[-max_shift, max_gap] chain into one passage (insertions and deletions of up to max_gap
letters); letters a run shares with its chain on either side (a phrase repeated in the page or
the work) count once. Overlapping passages on the page keep the longest. Matched letters are
the equal letters along each run's diagonal, so substituted letters are not counted.
The alignment itself runs compiled (``fingerprint.compiled.align``).
"""

from __future__ import annotations

import numpy as np

from fingerprint.compiled.align import Alignment, SeedIndex, align_core, align_many
from fingerprint.windows import kgram_codes

EMPTY = Alignment()


def align(page_codes: np.ndarray, work: SeedIndex, max_gap: int = 24, max_shift: int = 12,
          min_passage: int = 24, max_repeats: int = 16, seed_stride: int = 4,
          page_grams: np.ndarray | None = None) -> Alignment:
    """Align page letter codes (n,) against a prepared work; see the module docstring.

    Seeds are taken at every ``seed_stride``-th page position only (every work k-gram is
    indexed, so any exact match of k + seed_stride - 1 letters still has a seed); runs are then
    extended letter by letter to their true ends, and a run's matched letters are counted by
    comparing page and work letters along its diagonal.
    ``page_grams``: the page's sampled seed k-grams, ``kgram_codes(page_codes, k)[::seed_stride]``,
    when already computed (a page aligned with several works computes them once).
    Returns an Alignment (empty passages when nothing is shared). Passages with fewer than
    ``min_passage`` matched letters are dropped.
    """
    if len(work.codes) == 0:
        return EMPTY
    if page_grams is None:
        page_grams = kgram_codes(page_codes, work.k)[::seed_stride]
    found = align_core(np.ascontiguousarray(page_codes, dtype=np.uint8), page_grams, work,
                       max_gap, max_shift, min_passage, max_repeats, seed_stride)
    return EMPTY if found is None else found


def align_each(page_codes: np.ndarray, works: list[SeedIndex], least: list[int],
               max_gap: int, max_shift: int, min_passage: int, max_repeats: int,
               seed_stride: int, page_grams: np.ndarray) -> list[tuple[int, Alignment]]:
    """``align`` of the page with each work, in one compiled call: [(i, alignment)] for the
    works ``works[i]`` whose alignment covers at least ``least[i]`` (>= 1) page letters
    (``Alignment.page_covered``), in order. ``page_grams`` as ``align``'s."""
    return align_many(np.ascontiguousarray(page_codes, dtype=np.uint8), page_grams, works, least,
                      max_gap, max_shift, min_passage, max_repeats, seed_stride)
