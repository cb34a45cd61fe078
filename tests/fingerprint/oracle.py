"""The NumPy/Python reference of the engine's compiled stages (``fingerprint.compiled``): the
oracle the property tests compare them with. Not imported by the engine."""

from __future__ import annotations

import heapq
from collections import Counter
from itertools import chain
from operator import itemgetter

import numpy as np

from fingerprint.letters import BOUNDARY, DIGIT_LETTER, LATIN, Letters
from fingerprint.verify import EMPTY, Alignment, SeedIndex
from fingerprint.windows import content_radius, kgram_codes


def seed_pairs(page_grams: np.ndarray, work: SeedIndex, max_repeats: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """All (page position, work position) pairs of equal k-grams (two int64 arrays), skipping
    k-grams that occur more than ``max_repeats`` times in the work."""
    lo = np.searchsorted(work.codes, page_grams)
    repeats = np.searchsorted(work.codes, page_grams, side="right") - lo  # equal codes
    ok = (repeats > 0) & (repeats <= max_repeats)
    i = ok.nonzero()[0]
    lo = lo[i]
    cnt = repeats[i]
    if len(i) == 0 or cnt.max() == 1:
        return i, work.positions[lo]
    first = np.repeat(np.cumsum(cnt) - cnt, cnt)
    i = np.repeat(i, cnt)
    return i, work.positions[np.repeat(lo, cnt) + np.arange(len(i)) - first]


def union_length(starts: list[int], ends: list[int]) -> int:
    """Total length of the union of intervals [starts, ends) (few intervals)."""
    total, reach = 0, None
    for s, e in sorted(zip(starts, ends, strict=True)):
        if reach is None or s >= reach:
            total += e - s
            reach = e
        elif e > reach:
            total += e - reach
            reach = e
    return total


def _runs(page: bytes, work: bytes, page_codes: np.ndarray, work_codes: np.ndarray,
          starts: list[int], ends: list[int], diagonals: list[int], reach: int, min_len: int
          ) -> list[tuple[int, int, int, int]]:
    """Extend each run [start, end) on its diagonal d by up to ``reach`` letters on either side
    while page and work letters stay equal, drop runs shorter than ``min_len`` letters, and
    count each run's matched letters (equal letters along its diagonal) -> sorted list of
    (page_start, page_end, d, matched).

    page / work: the letter codes as bytes (for cheap letter comparisons); page_codes /
    work_codes: the same as uint8 arrays (to count the equal letters of a run that is not an
    exact copy). A page has a handful of runs per candidate (median 4 on the news pages of
    ``bench.run``), so plain Python per run beats a dozen numpy calls on tiny arrays.
    """
    n_page, n_work = len(page), len(work)
    out = []
    for s, e, d in zip(starts, ends, diagonals, strict=True):
        for _ in range(reach):  # run starts at a valid seed, so s - 1 < n_page and s - 1 + d < n_work
            t = s - 1
            if t < 0 or t + d < 0 or page[t] != work[t + d]:
                break
            s = t
        for _ in range(reach):  # and its last letter is valid, so e + d >= 0
            if e >= n_page or e + d >= n_work or page[e] != work[e + d]:
                break
            e += 1
        if e - s < min_len:
            continue
        if page[s:e] == work[s + d:e + d]:
            out.append((s, e, d, e - s))
        else:
            equal = page_codes[s:e] == work_codes[s + d:e + d]
            out.append((s, e, d, int(np.count_nonzero(equal))))
    out.sort()
    return out


def align_reference(page_codes: np.ndarray, work: SeedIndex, max_gap: int = 24, max_shift: int = 12,
          min_passage: int = 24, max_repeats: int = 16, seed_stride: int = 4,
          page_grams: np.ndarray | None = None) -> Alignment:
    """The NumPy version of ``fingerprint.verify.align`` (same arguments and result), the
    oracle its compiled alignment is checked against."""
    k = work.k
    if len(work.codes) == 0:
        return EMPTY
    if page_grams is None:
        page_grams = kgram_codes(page_codes, k)[::seed_stride]
    i, j = seed_pairs(page_grams, work, max_repeats)
    if len(i) == 0:
        return EMPTY
    i = i * seed_stride
    d = j - i
    order = np.lexsort((i, d))
    i, d = i[order], d[order]
    cut = ((d[1:] != d[:-1]) | (i[1:] - i[:-1] > max_gap)).nonzero()[0] + 1
    first = np.concatenate(([0], cut))
    last = np.concatenate((cut, [len(i)])) - 1
    page_codes = page_codes.astype(np.uint8, copy=False)
    wcodes = work.letters.astype(np.uint8, copy=False)
    runs = _runs(page_codes.tobytes(), wcodes.tobytes(), page_codes, wcodes, i[first].tolist(),
                 (i[last] + k).tolist(), d[first].tolist(), seed_stride - 1, k + k // 2)
    if not runs:
        return EMPTY
    chains: list[list] = []  # [page_start, page_end, work_start, work_end, matched, runs]
    for s, e, dd, cov in runs:
        ws, we = s + dd, e + dd
        for ch in reversed(chains[-8:]):
            if -max_shift <= s - ch[1] <= max_gap and -max_shift <= ws - ch[3] <= max_gap:
                # letters already matched on either side (a repeated phrase) count once
                cov = max(0, min(cov, e - max(s, ch[1]), we - max(ws, ch[3])))
                ch[1], ch[3], ch[4] = max(ch[1], e), max(ch[3], we), ch[4] + cov
                ch[5].append((s, e, dd))
                break
        else:
            chains.append([s, e, ws, we, cov, [(s, e, dd)]])
    kept: list[list] = []
    for ch in sorted((c for c in chains if c[4] >= min_passage), key=lambda c: c[0] - c[1]):
        if all(2 * (min(ch[1], o[1]) - max(ch[0], o[0])) < ch[1] - ch[0] for o in kept):
            kept.append(ch)
    if not kept:
        return EMPTY
    kept.sort()
    matched = sum(c[4] for c in kept)
    page_cov = min(matched, union_length([c[0] for c in kept], [c[1] for c in kept]))
    work_cov = min(matched, union_length([c[2] for c in kept], [c[3] for c in kept]))
    return Alignment([(c[0], c[1], c[2], c[3]) for c in kept], [c[4] for c in kept], page_cov,
                     work_cov, [run for c in kept for run in c[5]])


def matched_masks_reference(page: np.ndarray, works: list[np.ndarray],
                            runs: list[list[tuple[int, int, int]]]) -> np.ndarray:
    """Reference of ``fingerprint.compiled.judge.matched_masks``."""
    masks = np.zeros((len(works), len(page)), dtype=bool)
    for mask, work, own in zip(masks, works, runs, strict=True):
        for s, e, d in own:
            mask[s:e] |= page[s:e] == work[s + d:e + d]
    return masks


def same_text_pairs_reference(masks: np.ndarray, sizes: np.ndarray, least: float
                              ) -> list[tuple[int, int]]:
    """Reference of ``fingerprint.compiled.judge.same_text_pairs``."""
    counts = masks.sum(axis=1)
    common = masks.astype(np.int32) @ masks.T.astype(np.int32)
    maybe = ((np.minimum.outer(sizes, sizes) >= least * np.maximum.outer(sizes, sizes))
             & (2 * common >= np.minimum.outer(counts, counts)))
    return [(int(i), int(j)) for i, j in zip(*np.triu(maybe, 1).nonzero(), strict=True)]


def dominated_reference(masks: np.ndarray, group: list[int], min_own: int) -> np.ndarray:
    """Reference of ``fingerprint.compiled.judge.dominated``."""
    counts = [int(np.count_nonzero(m)) for m in masks]
    return np.array([any(group[j] != group[i] and counts[j] > counts[i]
                         and np.count_nonzero(masks[i] & ~masks[j]) < min_own
                         for j in range(len(masks))) for i in range(len(masks))], dtype=bool)


def letter_groups_reference(masks: np.ndarray, group: list[int]) -> np.ndarray:
    """Reference of ``fingerprint.compiled.judge.letter_groups``."""
    labels = sorted(set(group))
    if len(labels) == len(group):  # a group per candidate
        return np.count_nonzero(masks, axis=0)
    return np.count_nonzero([np.any(masks[[g == label for g in group]], axis=0)
                             for label in labels], axis=0)


def known_groups_reference(pairs: list[tuple[int, int]], ids: np.ndarray, known: dict[int, bool]
                           ) -> tuple[list[int], list[tuple[int, int]]]:
    """Reference of ``fingerprint.compiled.judge.known_groups`` (labels up to renaming)."""
    labels, unknown = list(range(len(ids))), []
    for i, j in pairs:
        lo, hi = sorted((int(ids[i]), int(ids[j])))
        same = known.get(lo << 32 | hi)
        if same is None:
            unknown.append((i, j))
        elif same and labels[i] != labels[j]:  # merge j's group into i's
            old = labels[j]
            labels = [labels[i] if label == old else label for label in labels]
    return labels, unknown


def exact_codes_reference(letters, text: str) -> np.ndarray:
    """Reference of ``fingerprint.engine.exact_codes``."""
    exact = letters.codes.astype(np.int16)
    where = (letters.codes >= 26).nonzero()[0]
    if len(where):
        exact[where] = [64 + int(text[o]) for o in letters.offsets[where].tolist()]
    return exact
def numbers_reference(letters: Letters) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(starts, ends, digits, owners) of the page's numbers, maximal runs of digit letters from
    consecutive characters: starts and ends in letters (end exclusive, int64, one per number),
    the positions of all digit letters, and for each the index of its number."""
    digit = letters.codes >= DIGIT_LETTER
    if not digit.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    joined = digit[1:] & digit[:-1] & (np.diff(letters.offsets) == 1)
    edge = np.diff(np.concatenate(([0], digit.astype(np.int8), [0])))
    starts = (edge == 1).nonzero()[0]
    ends = (edge == -1).nonzero()[0]
    # split runs of digit letters at non-consecutive characters ("12 34" is two numbers)
    breaks = (digit[1:] & digit[:-1] & ~joined).nonzero()[0] + 1
    if len(breaks):
        starts = np.sort(np.concatenate((starts, breaks)))
        ends = np.sort(np.concatenate((ends, breaks)))
    digits = digit.nonzero()[0]
    return starts, ends, digits, np.searchsorted(starts, digits, side="right") - 1


def compare_numbers_reference(numbers: tuple[np.ndarray, ...], masks: np.ndarray,
                     passages: list[list[tuple[int, int, int, int]]], boundaries: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(numbers equal in the work, numbers that differ), two int arrays of shape (n_works,),
    among the page's numbers that lie wholly inside one of a work's ``passages`` (one list per
    work), next to a matched letter of the same sentence (in the middle of copied or templated
    text; ``boundaries``: ``Letters.boundaries``, the letters that start a sentence or line: a
    portal's licence number on a line of its own between two copied paragraphs is no
    template's number); a number is equal when all its digit letters are matched.
    ``masks``: bool (n_works, n_page_letters), each work's matched page letters; cleared in
    place at the digit letters of every page number that is not wholly matched: a number counts
    as shared text only when it is the same number. All works are compared at once (a
    templated page has ten candidates or more)."""
    starts, ends, digits, owners = numbers
    zero = np.zeros(len(masks), dtype=np.int64)
    if len(starts) == 0:
        return zero, zero
    # a number's letters are all digit letters, consecutive in ``digits``
    sizes = ends - starts
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    equal = np.add.reduceat(masks[:, digits], first, axis=1, dtype=np.int64) == sizes
    masks[:, digits] &= equal[:, owners]
    spans = [(w, a, b) for w, kept in enumerate(passages) for a, b, _, _ in kept]
    if not spans:
        return zero, zero
    work, a, b = np.array(spans, dtype=np.int64).T
    inside = np.zeros(equal.shape, dtype=bool)
    np.logical_or.at(inside, work, (starts > a[:, None]) & (ends < b[:, None]))
    # a number inside a passage has a letter before it and one after it, in its sentence
    last = masks.shape[1] - 1
    opens = np.zeros(last + 2, dtype=bool)
    opens[boundaries] = True
    flanked = inside & ((masks[:, np.maximum(starts - 1, 0)] & ~opens[starts])
                        | (masks[:, np.minimum(ends, last)] & ~opens[ends]))
    same = np.count_nonzero(equal & flanked, axis=1)
    return same, np.count_nonzero(flanked, axis=1) - same




def window_digits_reference(quantizer, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Reference of ``fingerprint.compiled.keys.window_digits`` (with a Quantizer's tables)."""
    counts = quantizer.counts(codes, starts)
    return quantizer.value[np.arange(counts.shape[1]), counts].sum(axis=1)


def kgram_codes_reference(codes: np.ndarray, k: int) -> np.ndarray:
    """Exact k-gram codes: letter codes (0..25, shape (n,)) -> int64 array (n - k + 1,), 5 bits
    per letter, first letter highest (k <= 12). Empty if n < k. Built by doubling (2-, 4-,
    8-grams), a few vector operations whatever k."""
    n = len(codes) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    out: np.ndarray | None = None  # the prefix of each k-gram assembled so far
    have = 0
    part, size = codes.astype(np.int64), 1
    while True:
        if k & size:
            out = part[:n] if out is None else (out << (5 * size)) | part[have: have + n]
            have += size
        if 2 * size > k:
            assert out is not None  # k >= 1: its highest bit has been added
            return out
        part = (part[:-size] << (5 * size)) | part[size:]
        size *= 2


def mix_reference(values: np.ndarray) -> np.ndarray:
    """A 64-bit mixing function (splitmix64 finaliser) over an int64/uint64 array -> uint64."""
    z = values.astype(np.uint64) * _MIX1
    z ^= z >> np.uint64(31)
    z *= _MIX2
    z ^= z >> np.uint64(29)
    return z


def winnow_reference(hashes: np.ndarray, radii: tuple[int, ...]) -> list[np.ndarray]:
    """``local_minima(hashes, r)`` for each radius r (at least 1) in ``radii``, sharing one
    padding and one doubling table (a page selects both its window starts and its short-text
    k-grams from the same hashes) -> list of int64 position arrays, in the order of radii."""
    big, n = max(radii), len(hashes)
    padded = np.empty(n + 2 * big, dtype=np.uint64)
    padded[:big] = padded[big + n:] = _MAX64
    padded[big:big + n] = hashes
    # levels[s] = minimum of padded[x:x + s] at every x (s a power of two)
    levels, span = {1: padded}, 1
    while span * 2 <= 2 * big + 1:
        levels[span * 2] = np.minimum(levels[span][:-span], levels[span][span:])
        span *= 2
    out = []
    for r in radii:
        width = 2 * r + 1
        span = 1 << (width.bit_length() - 1)
        lo = big - r  # the window of position p starts at padded[p + lo]
        level = levels[span]
        local_min = np.minimum(level[lo:lo + n], level[lo + width - span:lo + width - span + n])
        out.append((hashes == local_min).nonzero()[0])
    return out


_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_MAX64 = np.uint64(2**64 - 1)


def rank_reference(config, hits: dict[int, list[tuple[str, int]]]) -> list[tuple[str, int]]:
    """The engine's candidates from a lookup's dict of postings (key -> [(work_id, window)]):
    the most hits first, ties by work id, up to ``max_candidates`` distinct hit sets (the
    ranking before lookups returned arrays)."""
    per_work = Counter(map(itemgetter(0), chain.from_iterable(hits.values())))
    c = config
    pool = heapq.nsmallest(
        4 * c.max_candidates, [(w, n) for w, n in per_work.items() if n >= c.min_window_hits],
        key=lambda wn: (-wn[1], wn[0]))
    if len(pool) <= c.max_candidates:
        return pool
    shared = Counter(n for _, n in pool)
    tied = {w for w, n in pool if shared[n] > 1}
    windows: dict[str, list[int]] = {w: [] for w in tied}
    for w, window in chain.from_iterable(hits.values()):
        if w in tied:
            windows[w].append(window)
    return _distinct_hit_sets(
        pool, lambda w, n: (n, tuple(sorted(windows[w]))) if w in tied else w, c.max_candidates)


def _distinct_hit_sets(pool: list, hit_set, limit: int) -> list:
    """The (work, hits) of ``pool``, in order, up to ``limit`` distinct ``hit_set(work,
    hits)``: works with the same hit set take one place."""
    seen: set = set()
    best = []
    for w, n in pool:
        key = hit_set(w, n)
        if key not in seen:
            if len(seen) == limit:
                break
            seen.add(key)
        best.append((w, n))
    return best


def rank_hits_reference(config, hits) -> list[tuple[int, int]]:
    """Reference of ``fingerprint.compiled.lookup.rank`` (behind ``Engine._rank``) from a
    lookup's ``Hits``: (work position, hits) of the candidates."""
    c = config
    counts = np.bincount(hits.work, minlength=len(hits.works))
    works = hits.works
    # the works below min_window_hits come last in this order: dropped before sorting
    eligible = np.flatnonzero(counts >= c.min_window_hits).tolist()
    hit = counts.tolist()
    pool = heapq.nsmallest(4 * c.max_candidates, eligible, key=lambda w: (-hit[w], works[w]))
    if len(pool) <= c.max_candidates:
        return [(w, hit[w]) for w in pool]
    shared = Counter(hit[w] for w in pool)
    order = np.lexsort((hits.window, hits.work))  # each work's windows, sorted
    bounds = np.concatenate(([0], np.cumsum(counts)))
    windows = hits.window[order]
    # works with the same number of hits are one place when they hit the same windows
    return _distinct_hit_sets(
        [(w, hit[w]) for w in pool],
        lambda w, n: (n, windows[bounds[w]:bounds[w + 1]].tobytes()) if shared[n] > 1 else w,
        c.max_candidates)


def align_each_reference(page_codes: np.ndarray, works: list[SeedIndex], least: list[int],
                         *args) -> list[tuple[int, Alignment]]:
    """The engine's loop over its candidates before ``verify.align_each``: each work aligned
    alone (``align_reference``, ``args``: max_gap, max_shift, min_passage, max_repeats,
    seed_stride), kept when it covers at least ``least[i]`` page letters."""
    out = []
    for i, work in enumerate(works):
        aln = align_reference(page_codes, work, *args)
        if aln.page_covered >= least[i]:
            out.append((i, aln))
    return out


def short_keys_reference(grams: np.ndarray, gram_k: int, positions: np.ndarray, k: int = 10
                         ) -> np.ndarray:
    """The NumPy version of ``fingerprint.shortdoc.short_keys`` (same arguments and result)."""
    tail = k - gram_k
    p = positions[positions + tail < len(grams)]
    low = grams[p + tail] & ((1 << (5 * tail)) - 1)
    chosen = (grams[p] << (5 * tail)) | low
    return chosen.astype(np.uint64) | np.uint64(1 << 63)


def convert_reference(table, text: str) -> Letters:
    """The NumPy version of ``LetterTable.convert`` (``fingerprint.compiled.letters.convert``):
    one gather of the classes of every code point, then the letters and their sentence
    starts."""
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    cls = table.classes.take(cp)
    letter = cls & 31
    emit = letter.astype(bool)
    if cls.max(initial=0) > LATIN:  # Latin words: keep only each word's first letter
        latin = cls > LATIN
        emit[1:] &= ~(latin[1:] & latin[:-1])
    offsets = emit.nonzero()[0]
    bounds = np.searchsorted(offsets, np.flatnonzero(cls == BOUNDARY))
    keep = (bounds > 0) & (bounds < len(offsets))
    keep[1:] &= bounds[1:] != bounds[:-1]
    return Letters(letter.take(offsets) - 1, offsets, len(text), bounds[keep].astype(np.int64))


def window_starts_reference(codes: np.ndarray, window_letters: int, stride: int,
                            mode: str = "content", anchor_k: int = 5, sparsity: int = 1
                            ) -> np.ndarray:
    """Start positions (letters, int64 array, ascending) of the complete windows of a
    sequence (the starts of ``fingerprint.compiled.keys.sequence_keys``): mode "fixed": 0,
    stride, 2 * stride...; "content": the local minima of the anchor_k-gram hashes of radius
    ``content_radius(stride, sparsity)``. Raises ValueError for another mode."""
    last = len(codes) - window_letters
    if last < 0:
        return np.zeros(0, dtype=np.int64)
    if mode == "fixed":
        return np.arange(0, last + 1, stride, dtype=np.int64)
    if mode != "content":
        raise ValueError(f"unknown window mode {mode!r}")
    hashes = mix_reference(kgram_codes_reference(codes, anchor_k))
    minima = winnow_reference(hashes, (content_radius(stride, sparsity),))[0]
    return minima[minima <= last]


def sequence_keys_reference(engine, codes: np.ndarray, sparsity: int, short_radius: int
                            ) -> tuple[list[int], list[int]]:
    """(keys, window starts) of ``Engine._keys`` from the reference stages: each window's
    digits and anchor, then the short keys of radius ``short_radius`` (none when 0)."""
    c, q = engine.config, engine.quantizer
    starts = window_starts_reference(codes, c.window_letters, c.stride, c.window_mode,
                                     c.anchor_k, sparsity)
    grams = kgram_codes_reference(codes, c.anchor_k)
    hashes = mix_reference(grams)
    keys = window_digits_reference(q, codes, starts) + q.anchor_values(codes, starts, hashes)
    short: list[int] = []
    if short_radius and len(hashes):
        chosen = winnow_reference(hashes, (short_radius,))[0]
        short = short_keys_reference(grams, c.anchor_k, chosen, c.short_k).tolist()
    return [*keys.astype(np.uint64).tolist(), *short], starts.tolist()


def judge_reference(engine, letters: Letters, exact: np.ndarray | None, aligned: list,
                    known: dict[int, bool]) -> list:
    """Reference of ``Engine._judge`` (``fingerprint.compiled.judge.judge_page`` and the
    Matches built from it, by the engine's own ``matches_of``): the NumPy references of each
    step, the same-text pairs answered by ``engine._same_text.same`` and remembered in
    ``known``."""
    from fingerprint.engine import matches_of
    from fingerprint.parts import joined_pairs, name_parts

    if not aligned:
        return []
    c = engine.config
    page = letters.codes if exact is None else exact
    masks = matched_masks_reference(page, [prep.seeds.letters if exact is None else prep.exact
                                           for _, prep, _ in aligned],
                                    [aln.runs for _, _, aln in aligned])
    same_numbers, other_numbers = compare_numbers_reference(
        numbers_reference(letters), masks, [aln.passages for _, _, aln in aligned],
        letters.boundaries)
    group = list(range(len(aligned)))
    sizes = np.array([prep.seeds.n_letters for _, prep, _ in aligned], dtype=np.int64)
    pairs = same_text_pairs_reference(masks, sizes, c.same_text_share * (1 - c.same_text_frame))
    if pairs:
        ids = np.array([prep.number for _, prep, _ in aligned], dtype=np.int64)
        group, unknown = known_groups_reference(pairs, ids, known)
        for i, j in unknown:
            lo, hi = sorted((int(ids[i]), int(ids[j])))
            known[lo << 32 | hi] = engine._same_text.same(aligned[i][1].seeds,
                                                          aligned[j][1].seeds)
        group, _ = known_groups_reference(pairs, ids, known)
    # a work and a work that holds it (fingerprint.parts) are one group for these two rules
    joined = joined_pairs([(w, prep.digest, prep.relations) for w, prep, _ in aligned])
    judged = list(group)
    for i, j in joined * len(aligned):  # merged until stable
        a, b = sorted((judged[i], judged[j]))
        judged = [a if g == b else g for g in judged]
    weight = 1.0 / np.maximum(letter_groups_reference(masks, judged), 1)
    shadowed = dominated_reference(masks, judged, c.min_own_letters)
    out = []
    po, n = letters.offsets, len(letters)
    for i, (work_id, prep, aln) in enumerate(aligned):
        same, other = int(same_numbers[i]), int(other_numbers[i])
        if other > c.max_number_mismatch * (same + other) or shadowed[i]:
            continue
        distinct = float(weight[masks[i]].sum())
        if distinct + c.number_evidence_letters * same < c.min_distinct_letters:
            continue
        cp, cw = distinct / n, min(1.0, distinct / prep.seeds.n_letters)
        score = max(cp, cw)
        if score < c.min_score:
            continue
        out.append((group[i], work_id, prep, aln, score, cp, cw))
    matches = matches_of(out, po)
    name_parts(matches, [w for w, _, _ in aligned], joined)
    return matches


def may_hold_reference(presence, keys: np.ndarray) -> np.ndarray:
    """A PresenceFilter's answer for ``keys`` (uint64 array) in NumPy (the test the compiled
    lookup makes): boolean mask, False where the key was certainly never added."""
    byte, bit = presence._positions(keys)
    return (presence._bytes[byte] & bit) != 0


def held_reference(index, keys: list[int]) -> list[tuple[int, int | list[int]]]:
    """(key, packed postings as the dicts hold them) of each distinct, indexed,
    non-stop-listed key of ``keys`` (ints), in order, from a MemoryIndex in its dicts' form:
    the Python walk ``fingerprint.compiled.lookup.gather_held`` replaces (its PresenceFilter
    asked first when it has one)."""
    post, df, max_df = index._post, index._df, index.max_df
    presence = index._presence_filter()
    if presence is not None and len(keys):
        query = np.asarray(keys, dtype=np.uint64)
        keys = query[may_hold_reference(presence, query)].tolist()
    seen: set[int] = set()
    out = []
    for key in keys:
        held = post.get(key)
        if held is None or key in seen or df.get(key, 1) > max_df:
            continue
        seen.add(key)
        out.append((key, held))
    return out


def lookup_reference(index, keys: list[int]) -> dict[int, list[tuple[str, int]]]:
    """``MemoryIndex.lookup`` of the dicts' form from ``held_reference``."""
    ids = index._ids
    return {key: [(ids[p >> 32], p & 0xFFFFFFFF) for p in ([held] if isinstance(held, int)
                                                           else held)]
            for key, held in held_reference(index, keys)}


def lookup_hits_reference(index, keys: list[int]) -> tuple[list[str], list[str], list[int],
                                                             list[int]]:
    """``MemoryIndex.lookup_hits`` of the dicts' form as lists (works, revisions, work,
    window) from ``held_reference``: the postings packed key by key, their work numbers
    renumbered in order of first appearance (``np.unique``)."""
    packed = [p for _, held in held_reference(index, keys)
              for p in ([held] if isinstance(held, int) else held)]
    flat = np.array(packed, dtype=np.int64)
    numbers, windows = flat >> 32, flat & 0xFFFFFFFF
    distinct, first, work = np.unique(numbers, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the distinct numbers in order of first appearance
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order))
    numbered = distinct[order].tolist()
    return ([index._ids[n] for n in numbered], [f"{index._epoch}:{n}" for n in numbered],
            place[work.ravel()].tolist(), windows.tolist())


def shared_codes_reference(a: SeedIndex, b: SeedIndex) -> tuple[int, int]:
    """Reference of ``fingerprint.compiled.align.shared_codes``: NumPy's binary search of
    each work's codes in the other's."""
    def found(x: np.ndarray, y: np.ndarray) -> int:
        if len(x) == 0 or len(y) == 0:
            return 0
        return int(np.count_nonzero(y.take(np.searchsorted(y, x), mode="clip") == x))

    return found(a.codes, b.codes), found(b.codes, a.codes)


def sentences_reference(classes, text: str) -> list[tuple[int, int, list[int], list[int],
                                                          list[int], list[str]]]:
    """(start, end, distinct token codes ascending, distinct character codes ascending,
    distinct number codes ascending, kept words) of each sentence of ``text`` that
    ``classes.sentences`` (a SynonymClasses) cuts, word by word in Python: a sentence ends
    after a word ending in 。！？!?；;… or a line end, after a "." before a space or at the
    end, and at the end of the text; a number code is a run of digits' value modulo 2**64,
    as int64."""
    import re
    import zlib

    import rjieba

    words = rjieba.cut(re.sub(r"[\ud800-\udfff]", "\ufffd", text), False)
    out = []
    start = at = 0
    tokens: list[int] = []
    chars: list[int] = []
    kept: list[str] = []
    english = None
    for n, word in enumerate(words):
        ends = word[-1] in "。！？!?；;…\n" or word == "." and (
            n == len(words) - 1 or words[n + 1][:1].isspace())
        token = None if ends or word == "." else classes.token(word)
        if token is not None:
            tokens.append(zlib.crc32(token.encode()))
            kept.append(word)
            han = [ord(c) for c in word if re.match(r"[\u3400-\u9fff\uf900-\ufaff]", c)]
            chars += han
            if not han:
                if english is not None:
                    chars.append(zlib.crc32((english + token).encode()) | 1 << 32)
                english = token
        at += len(word)
        if ends or n == len(words) - 1:
            if kept:
                runs = re.findall(r"[0-9０-９]+", text[start:at].translate(_FULL_WIDTH))
                out.append((start, at, sorted(set(tokens)), sorted(set(chars)),
                            sorted({(int(r) + 2**63) % 2**64 - 2**63 for r in runs}), kept))
            start, english, tokens, chars, kept = at, None, [], [], []
    return out


_FULL_WIDTH = str.maketrans("０１２３４５６７８９", "0123456789")


def sentence_keys_reference(token_codes: list[list[int]], min_tokens: int, key_tokens: int
                            ) -> list[int]:
    """The rewrite keys of sentences given by their distinct token codes (ascending): each
    pair (a << 32) | b of the ``key_tokens`` smallest codes of every sentence with at least
    ``min_tokens``, then of every two adjacent sentences whose codes together are that
    many."""
    from itertools import combinations

    def pairs(codes):
        return [(a << 32) | b for a, b in combinations(sorted(codes)[:key_tokens], 2)]

    keys = [k for codes in token_codes if len(codes) >= min_tokens for k in pairs(codes)]
    for a, b in zip(token_codes, token_codes[1:], strict=False):
        if len(set(a) | set(b)) >= min_tokens:
            keys += pairs(set(a) | set(b))
    return keys


def unit_pairs_reference(work: list, page: list, limit: int, min_shared: int,
                         max_unit_ratio: float, pair_score: float
                         ) -> list[tuple[int, int, int, float]]:
    """(work sentence, first page sentence, unit size, score) of every pair that
    ``fingerprint.compiled.rewrite.unit_pairs`` finds, sorted, from (work x page) arrays of
    shared tokens and characters (``Sentence`` lists)."""
    def shared(attr):
        work_codes = np.concatenate([getattr(s, attr) for s in work])
        work_owner = np.repeat(np.arange(len(work)), [len(getattr(s, attr)) for s in work])
        page_codes = np.concatenate([getattr(s, attr) for s in page])
        page_owner = np.repeat(np.arange(len(page)), [len(getattr(s, attr)) for s in page])
        counts = np.zeros((len(work), len(page)), np.int64)
        df = np.array([np.count_nonzero(page_codes == c) for c in work_codes], np.int64)
        shown = np.bincount(work_owner[df <= limit], minlength=len(work))
        for code, row, n in zip(work_codes, work_owner, df, strict=True):
            if 0 < n <= limit:
                np.add.at(counts[row], page_owner[page_codes == code], 1)
        return counts, np.maximum(1, shown).astype(np.float64)

    tok, n_tok = shared("token_codes")
    chars, n_chr = shared("char_codes")
    m = len(page)
    most = max_unit_ratio * np.array([len(s.char_codes) for s in work], np.float64) + 4
    lengths = np.array([len(s.char_codes) for s in page], np.int64)
    shared_tok = np.concatenate([tok, tok[:, :-1] + tok[:, 1:]], axis=1)
    held = np.concatenate([chars, chars[:, :-1] + chars[:, 1:]], axis=1)
    length = np.concatenate([lengths, lengths[:-1] + lengths[1:]])
    score = (np.minimum(1.0, shared_tok / n_tok[:, None])
             + np.minimum(1.0, held / n_chr[:, None])) / 2
    ok = (shared_tok >= min_shared) & (length[None, :] <= most[:, None]) & (score >= pair_score)
    j, u = np.nonzero(ok)
    found = [(int(a), int(b if b < m else b - m), 1 if b < m else 2, float(s))
             for a, b, s in zip(j, u, score[ok], strict=True)]
    # a work sentence with numbers pairs only with a unit holding three quarters of them
    return sorted((a, first, size, s) for a, first, size, s in found
                  if 4 * len(set(work[a].number_codes.tolist()) & {
                      x for q in page[first:first + size] for x in q.number_codes.tolist()})
                  >= 3 * len(work[a].number_codes))
