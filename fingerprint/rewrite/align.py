"""Sentence alignment of a page with a work, allowing swapped, split and merged sentences.

Each work sentence is compared with every page *unit* that shares a token with it: one page
sentence, or two adjacent ones (the work sentence split in two on the page). Its score against
a unit is its containment there: the mean of the share of its tokens (synonym classes and
words, ``fingerprint.rewrite.classes``) and the share of its characters found in the unit.
A unit much longer than the sentence (more than ``max_unit_ratio`` times its characters) is no
candidate, so a long page sentence holding two work sentences (a merge) pairs with both while
a long page does not pair with everything. Pairs are taken best first; a page sentence serves
at most two work sentences. A page token found in more than ``max_token_sentences`` page
sentences is ignored (a page of one repeated sentence pairs with nothing), and the shares are
of the tokens and characters left. Ties go to one sentence before two, then to the unit
nearest the work sentence's place. A work sentence
with numbers pairs only with a unit holding at least three quarters of them (a template filled in with
other dates, amounts and case numbers is not a rewrite of it).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fingerprint.compiled.rewrite import unit_pairs
from fingerprint.rewrite.classes import Codes, Sentence, codes_of


class SentencePair(NamedTuple):
    """A work sentence paired with one or two page sentences: ``work`` (its number among the
    work's sentences), ``page`` (numbers of the page sentences, one or two), ``score``
    (containment, 0..1) and ``moved`` (True when the pair is out of the work's order on the
    page: not on the longest run of pairs whose page order follows the work's)."""

    work: int
    page: tuple[int, ...]
    score: float
    moved: bool = False


@dataclass(frozen=True)
class AlignLimits:
    """Bounds of ``align_sentences``: ``pair_score`` (least containment of a pair, 0..1),
    ``min_shared`` (tokens a pair shares, at least), ``max_unit_ratio`` (page unit characters
    per work sentence character, at most), ``max_token_sentences`` (page sentences a token
    may occur in and still count)."""

    pair_score: float = 0.5
    min_shared: int = 2
    max_unit_ratio: float = 2.5
    max_token_sentences: int = 8


def align_sentences(work: list[Sentence], page: list[Sentence],
                    limits: AlignLimits = AlignLimits()) -> list[SentencePair]:
    """The pairs of ``work``'s sentences with ``page``'s (lists of ``Sentence``), in work
    order, each with at least ``limits.pair_score``; work sentences without a pair are left
    out (``align_codes`` of their Codes)."""
    if not work or not page:
        return []
    return align_codes(codes_of(work), codes_of(page), limits)


def align_codes(work: Codes, page: Codes, limits: AlignLimits = AlignLimits(),
                work_numbers: list[int] | None = None) -> list[SentencePair]:
    """``align_sentences`` of the sentences whose Codes are ``work`` and ``page`` (each at
    least one sentence); a pair's ``work`` is its sentence's place in ``work``, or that place's
    entry in ``work_numbers`` when given. The units that reach ``pair_score`` come from
    ``fingerprint.compiled.rewrite.unit_pairs`` (the page's codes in a hash table, one row of
    counts per work sentence). Time: the work's tokens and characters times at most
    ``max_token_sentences`` page sentences each, plus the pairs that reach ``pair_score``;
    memory: the page's codes."""
    n, m = len(work.token_sizes), len(page.token_sizes)
    j, first, size, score = unit_pairs(*work, *page, limits.max_token_sentences,
                                       limits.min_shared, limits.max_unit_ratio,
                                       limits.pair_score)
    # best first; ties: one sentence before two, then the unit nearest the work's place
    distance = np.abs(first - j * (m / n))
    order = np.lexsort((-first, -j, distance, size, -score))
    taken: dict[int, tuple[int, int, float]] = {}
    used = [0] * (m + 1)  # pairs each page sentence serves
    for jj, i, k, value in zip(j[order].tolist(), first[order].tolist(), size[order].tolist(),
                               score[order].tolist(), strict=True):
        if jj in taken or used[i] >= 2 or used[i + k - 1] >= 2:
            continue
        taken[jj] = (i, k, value)
        used[i] += 1
        used[i + 1] += k - 1
    chosen = [(jj, *taken[jj]) for jj in sorted(taken)]  # (work sentence, i, k, score)
    in_order = _in_order([i for _, i, _, _ in chosen])
    return [SentencePair(jj if work_numbers is None else work_numbers[jj],
                         (i,) if k == 1 else (i, i + 1), round(value, 4), x not in in_order)
            for x, (jj, i, k, value) in enumerate(chosen)]


def _in_order(firsts: list[int]) -> set[int]:
    """Indexes of the longest run of ``firsts`` (the first page sentence of each pair, in work
    order) that does not decrease: the pairs not moved (O(n log n) longest non-decreasing
    subsequence)."""
    tails: list[int] = []  # page number ending the best run of each length
    ends: list[int] = []  # index of that pair
    parent = [-1] * len(firsts)
    for idx, first in enumerate(firsts):
        at = bisect.bisect_right(tails, first)
        if at:
            parent[idx] = ends[at - 1]
        if at == len(tails):
            tails.append(first)
            ends.append(idx)
        else:
            tails[at], ends[at] = first, idx
    kept, idx = set(), ends[-1] if ends else -1
    while idx >= 0:
        kept.add(idx)
        idx = parent[idx]
    return kept
