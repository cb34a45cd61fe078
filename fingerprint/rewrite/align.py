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

import numpy as np

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


_CHAR_SPACE = 1 << 34  # added to character codes (below 2**33): apart from token codes (2**32)


def _codes(sentences: list[Sentence]) -> tuple[np.ndarray, np.ndarray]:
    """(the token codes of every sentence, then their character codes plus ``_CHAR_SPACE``,
    one array; the number of the sentence of each code)."""
    arrays = [s.token_codes for s in sentences]
    tokens = sum(map(len, arrays))
    arrays += [s.char_codes for s in sentences]
    codes = np.concatenate(arrays)
    codes[tokens:] += _CHAR_SPACE
    return codes, np.repeat(np.tile(np.arange(len(sentences)), 2), list(map(len, arrays)))


def _shared(work: list[Sentence], page: list[Sentence], limit: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """((work sentences x page sentences) counts of the tokens each pair shares, the same of
    the characters; the tokens, and the characters, of each work sentence that the page can
    show: those in at most ``limit`` page sentences, or in none). A token or character in
    more than ``limit`` page sentences counts for no pair."""
    n, m = len(work), len(page)
    work_codes, work_owner = _codes(work)
    work_owner[int(sum(len(s.token_codes) for s in work)):] += n  # a character's row: n + j
    page_codes, page_owner = _codes(page)
    order = np.argsort(page_codes, kind="stable")
    codes, owners = page_codes[order], page_owner[order]
    lo = np.searchsorted(codes, work_codes, "left")
    df = np.searchsorted(codes, work_codes, "right") - lo
    shown = np.bincount(work_owner[df <= limit], minlength=2 * n)
    use = (df > 0) & (df <= limit)
    lo, df = lo[use], df[use]
    at = np.arange(int(df.sum())) + np.repeat(lo - np.cumsum(df) + df, df)
    rows = np.repeat(work_owner[use], df)
    flat = np.bincount(rows * m + owners[at], minlength=2 * n * m).reshape(2 * n, m)
    return flat[:n], flat[n:], shown[:n], shown[n:]


def align_sentences(work: list[Sentence], page: list[Sentence],
                    limits: AlignLimits = AlignLimits()) -> list[SentencePair]:
    """The pairs of ``work``'s sentences with ``page``'s (lists of ``Sentence``), in work
    order, each with at least ``limits.pair_score``; work sentences without a pair are left
    out. The shared tokens and characters of every (work sentence, page sentence) are counted
    at once in two (work x page) arrays; a unit of two page sentences sums two columns. Time:
    the work's tokens times at most ``max_token_sentences`` page sentences each, plus the
    pairs that reach ``pair_score``."""
    if not work or not page:
        return []
    m = len(page)
    tok, chars, tok_shown, chr_shown = _shared(work, page, limits.max_token_sentences)
    # shares of what the page can show: its too frequent tokens and characters left out
    n_tok = np.maximum(1, tok_shown).astype(np.float64)
    n_chr = np.maximum(1, chr_shown).astype(np.float64)
    most = limits.max_unit_ratio * np.array([len(s.char_codes) for s in work], dtype=np.float64) + 4
    lengths = np.array([len(s.char_codes) for s in page], dtype=np.int64)
    # units: each page sentence alone, then each two adjacent ones (a work sentence split)
    shared = np.concatenate([tok, tok[:, :-1] + tok[:, 1:]], axis=1)
    held = np.concatenate([chars, chars[:, :-1] + chars[:, 1:]], axis=1)
    length = np.concatenate([lengths, lengths[:-1] + lengths[1:]])
    score = (np.minimum(1.0, shared / n_tok[:, None]) + np.minimum(1.0, held / n_chr[:, None])) / 2
    ok = (shared >= limits.min_shared) & (length[None, :] <= most[:, None]) & \
        (score >= limits.pair_score)
    j, u = np.nonzero(ok)
    first = np.where(u < m, u, u - m)
    size = np.where(u < m, 1, 2)
    score = score[ok]
    work_numbers, page_numbers = _Numbers(work), _Numbers(page)
    rows = j.tolist()
    unheld = [n for n, (jj, i, k) in enumerate(zip(rows, first.tolist(), size.tolist(),
                                                   strict=True))
              if work_numbers[jj] and not _numbers_held(
                  work_numbers[jj], [page_numbers[x] for x in range(i, i + k)])]
    if unheld:
        kept = np.ones(len(rows), bool)
        kept[unheld] = False
        j, first, size, score = j[kept], first[kept], size[kept], score[kept]
    # best first; ties: one sentence before two, then the unit nearest the work's place
    distance = np.abs(first - j * (m / len(work)))
    order = np.lexsort((-first, -j, distance, size, -score))
    taken: dict[int, SentencePair] = {}
    used = [0] * (m + 1)  # pairs each page sentence serves
    for jj, i, k, value in zip(j[order].tolist(), first[order].tolist(), size[order].tolist(),
                               score[order].tolist(), strict=True):
        if jj in taken or used[i] >= 2 or used[i + k - 1] >= 2:
            continue
        taken[jj] = SentencePair(jj, (i,) if k == 1 else (i, i + 1), round(value, 4))
        used[i] += 1
        used[i + 1] += k - 1
    pairs = [taken[jj] for jj in sorted(taken)]
    in_order = _in_order(pairs)
    return [p if i in in_order else SentencePair(p.work, p.page, p.score, True)
            for i, p in enumerate(pairs)]


class _Numbers(dict):
    """Sentence number -> that sentence's ``numbers``, each derived once, when first asked."""

    def __init__(self, sentences: list[Sentence]):
        super().__init__()
        self._sentences = sentences

    def __missing__(self, n: int) -> frozenset[str]:
        found = self[n] = self._sentences[n].numbers
        return found


def _numbers_held(needed: frozenset[str], unit: list[frozenset[str]]) -> bool:
    """Whether the numbers of a unit's page sentences (``unit``) hold at least three quarters
    of the ``needed`` numbers of a work sentence."""
    held = frozenset().union(*unit)
    return 4 * len(needed & held) >= 3 * len(needed)


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
