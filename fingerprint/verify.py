"""Verification: align a page's letters against a work's letters and measure containment.

Seed-and-extend (the scheme of BLAST, Altschul et al. 1990, on letter k-grams): every exact
k-gram shared by page and work is a seed (i in the page, j in the work, diagonal d = j - i).
Seeds on one diagonal no more than ``max_gap`` letters apart form a run (a substituted or
homophone-changed letter only breaks the k-grams that contain it); runs whose page and work
gaps are both within [-max_shift, max_gap] chain into one passage (insertions and deletions of
up to max_gap letters). Overlapping passages on the page keep the longest. Coverage counts the
letters inside seeds, so substituted letters are not counted as matched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fingerprint.windows import kgram_codes


@dataclass(frozen=True)
class SeedIndex:
    """Sorted k-gram codes of a work's letters, prepared once per work.

    codes: sorted int64 k-gram codes (n - k + 1,); positions: their letter positions (int64);
    n_letters: letters in the work; k: k-gram length in letters.
    """

    codes: np.ndarray
    positions: np.ndarray
    n_letters: int
    k: int

    @classmethod
    def build(cls, codes: np.ndarray, k: int) -> SeedIndex:
        """Index the k-grams of letter codes (n,) -> SeedIndex."""
        grams = kgram_codes(codes, k)
        order = np.argsort(grams, kind="stable")
        return cls(grams[order], order.astype(np.int64), len(codes), k)


@dataclass(frozen=True)
class Alignment:
    """Result of aligning a page against one work.

    passages: list of (page_start, page_end, work_start, work_end) in letters, end exclusive,
    ordered by page position. page_covered / work_covered: letters inside seeds of the kept
    passages on each side.
    """

    passages: list[tuple[int, int, int, int]]
    page_covered: int
    work_covered: int


def _seed_pairs(page_grams: np.ndarray, work: SeedIndex, max_repeats: int
                ) -> tuple[np.ndarray, np.ndarray]:
    lo = np.searchsorted(work.codes, page_grams, "left")
    hi = np.searchsorted(work.codes, page_grams, "right")
    cnt = hi - lo
    ok = (cnt > 0) & (cnt <= max_repeats)
    if not ok.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    cnt, lo = cnt[ok], lo[ok]
    i = np.repeat(np.flatnonzero(ok), cnt)
    first = np.repeat(np.cumsum(cnt) - cnt, cnt)
    j = work.positions[np.repeat(lo, cnt) + np.arange(len(i)) - first]
    return i, j


def _union_length(starts: np.ndarray, ends: np.ndarray) -> int:
    """Total length of the union of intervals [starts, ends)."""
    if len(starts) == 0:
        return 0
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(ends[order])
    gaps = np.maximum(s[1:] - e[:-1], 0)
    return int(e[-1] - s[0] - gaps.sum())


def align(page_codes: np.ndarray, work: SeedIndex, max_gap: int = 24, max_shift: int = 12,
          min_passage: int = 24, max_repeats: int = 16) -> Alignment:
    """Align page letter codes (n,) against a prepared work; see the module docstring.

    Returns an Alignment (empty passages when nothing is shared). Passages shorter than
    ``min_passage`` page letters are dropped.
    """
    k = work.k
    i, j = _seed_pairs(kgram_codes(page_codes, k), work, max_repeats)
    if len(i) == 0:
        return Alignment([], 0, 0)
    d = j - i
    order = np.lexsort((i, d))
    i, d = i[order], d[order]
    brk = np.flatnonzero((np.diff(d) != 0) | (np.diff(i) > max_gap)) + 1
    run_start = np.concatenate([[0], brk])
    run_end = np.concatenate([brk, [len(i)]])
    # runs: page start/end (letters), diagonal, seed slice
    runs = sorted(zip(i[run_start].tolist(), (i[run_end - 1] + k).tolist(), d[run_start].tolist(),
                      run_start.tolist(), run_end.tolist(), strict=True))
    chains: list[list] = []  # [page_start, page_end, work_start, work_end, [(seed slices)]]
    for ps, pe, dd, a, b in runs:
        ws, we = ps + dd, pe + dd
        best = None
        for ch in reversed(chains[-8:]):
            gp, gw = ps - ch[1], ws - ch[3]
            if -max_shift <= gp <= max_gap and -max_shift <= gw <= max_gap:
                best = ch
                break
        if best is None:
            chains.append([ps, pe, ws, we, [(a, b)]])
        else:
            best[1], best[3] = max(best[1], pe), max(best[3], we)
            best[4].append((a, b))
    chains = [c for c in chains if c[1] - c[0] >= min_passage]
    chains.sort(key=lambda c: c[0] - c[1])
    kept: list[list] = []
    for ch in chains:
        if all(ch[1] <= o[0] or ch[0] >= o[1] or _overlap(ch, o) * 2 < ch[1] - ch[0] for o in kept):
            kept.append(ch)
    if not kept:
        return Alignment([], 0, 0)
    sl = np.concatenate([np.arange(a, b) for ch in kept for a, b in ch[4]])
    pi = i[sl]
    page_cov = _union_length(pi, pi + k)
    work_cov = _union_length(pi + d[sl], pi + d[sl] + k)
    kept.sort()
    return Alignment([(c[0], c[1], c[2], c[3]) for c in kept], page_cov, work_cov)


def _overlap(a: list, b: list) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))
