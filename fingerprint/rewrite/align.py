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
from collections import defaultdict
from dataclasses import dataclass

from fingerprint.rewrite.classes import Sentence


@dataclass(frozen=True)
class SentencePair:
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


def _postings(items: list[frozenset[str]], limit: int) -> tuple[dict[str, list[int]], set[str]]:
    """(item -> numbers of the page sentences holding it, items in more than ``limit``)."""
    held: dict[str, list[int]] = defaultdict(list)
    for i, sentence in enumerate(items):
        for item in sentence:
            held[item].append(i)
    dropped = {item for item, at in held.items() if len(at) > limit}
    return {item: at for item, at in held.items() if item not in dropped}, dropped


def _counts(items: frozenset[str], postings: dict) -> dict[int, int]:
    counts: dict[int, int] = defaultdict(int)
    for item in items:
        for i in postings.get(item, ()):
            counts[i] += 1
    return counts


def align_sentences(work: list[Sentence], page: list[Sentence],
                    limits: AlignLimits = AlignLimits()) -> list[SentencePair]:
    """The pairs of ``work``'s sentences with ``page``'s (lists of ``Sentence``), in work
    order, each with at least ``limits.pair_score``; work sentences without a pair are left
    out. Time: the work's tokens times at most ``max_token_sentences`` page sentences each."""
    tok_post, tok_dropped = _postings([s.tokens for s in page], limits.max_token_sentences)
    chr_post, chr_dropped = _postings([s.chars for s in page], limits.max_token_sentences)
    lengths = [len(s.chars) for s in page]
    options = []
    scale = len(page) / max(1, len(work))
    for j, sentence in enumerate(work):
        tok, chars = _counts(sentence.tokens, tok_post), _counts(sentence.chars, chr_post)
        # shares of what the page can show: its too frequent tokens and characters left out
        n_tok = len(sentence.tokens - tok_dropped)
        n_chr = max(1, len(sentence.chars - chr_dropped))
        most = limits.max_unit_ratio * len(sentence.chars) + 4
        for i in tok:
            units: list[tuple[int, ...]] = [(i,)]
            if i + 1 < len(page):
                units.append((i, i + 1))
            if i > 0:
                units.append((i - 1, i))
            for unit in units:
                shared = sum(tok.get(k, 0) for k in unit)
                if shared < limits.min_shared or sum(lengths[k] for k in unit) > most:
                    continue
                held = frozenset().union(*(page[k].numbers for k in unit))
                if 4 * len(sentence.numbers & held) < 3 * len(sentence.numbers):
                    continue
                score = (min(1.0, shared / n_tok)
                         + min(1.0, sum(chars.get(k, 0) for k in unit) / n_chr)) / 2
                if score >= limits.pair_score:
                    # ties: one sentence before two, then the unit nearest the work's place
                    options.append((score, -len(unit), -abs(unit[0] - j * scale), j, unit))
    options.sort(reverse=True)
    taken: dict[int, SentencePair] = {}
    used: dict[int, int] = defaultdict(int)
    for score, _, _, j, unit in options:
        if j in taken or any(used[k] >= 2 for k in unit):
            continue
        taken[j] = SentencePair(j, unit, round(score, 4))
        for k in unit:
            used[k] += 1
    pairs = [taken[j] for j in sorted(taken)]
    kept = _in_order(pairs)
    return [p if i in kept else SentencePair(p.work, p.page, p.score, True)
            for i, p in enumerate(pairs)]


def _in_order(pairs: list[SentencePair]) -> set[int]:
    """Indexes of the longest run of ``pairs`` (in work order) whose first page sentences
    do not decrease: the pairs not moved (O(n log n) longest non-decreasing subsequence)."""
    tails: list[int] = []  # page number ending the best run of each length
    ends: list[int] = []  # index of that pair
    parent = [-1] * len(pairs)
    for idx, pair in enumerate(pairs):
        at = bisect.bisect_right(tails, pair.page[0])
        if at:
            parent[idx] = ends[at - 1]
        if at == len(tails):
            tails.append(pair.page[0])
            ends.append(idx)
        else:
            tails[at], ends[at] = pair.page[0], idx
    kept, idx = set(), ends[-1] if ends else -1
    while idx >= 0:
        kept.add(idx)
        idx = parent[idx]
    return kept
