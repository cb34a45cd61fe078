"""The compiled stages (``fingerprint.compiled``) give what their NumPy/Python reference
(``tests/fingerprint/oracle.py``) gives, on random texts built to share passages, repeats and
edits."""

from __future__ import annotations

import zlib
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fingerprint import Engine
from fingerprint.arrays import sorted_distinct
from fingerprint.compiled.align import shared_codes, sort_int64
from fingerprint.compiled.judge import (
    PairCache,
    compare_numbers,
    dominated,
    known_groups,
    letter_groups,
    matched_masks,
    same_text_pairs,
)
from fingerprint.compiled.lookup import name_works, template_siblings
from fingerprint.compiled.rewrite import (
    WordCodes,
    key_evidence,
    page_keys,
    unit_pairs,
    window_keys,
)
from fingerprint.config import EngineConfig
from fingerprint.engine import exact_codes
from fingerprint.fingerprints import Quantizer
from fingerprint.index import MemoryIndex, memory
from fingerprint.index.hits import hits_from_lookup, key_hits
from fingerprint.letters import DIGIT_LETTER, Letters, default_table, to_letters
from fingerprint.rewrite import Sentence, default_classes
from fingerprint.shortdoc import short_keys
from fingerprint.store import MemoryWorkStore
from fingerprint.verify import SeedIndex, align, align_each
from fingerprint.windows import content_radius, kgram_codes, local_minima, mix
from tests.examples import examples
from tests.fingerprint.oracle import (
    align_each_reference,
    align_reference,
    compare_numbers_reference,
    convert_reference,
    dominated_reference,
    exact_codes_reference,
    judge_reference,
    kgram_codes_reference,
    known_groups_reference,
    letter_groups_reference,
    lookup_hits_reference,
    lookup_reference,
    matched_masks_reference,
    mix_reference,
    numbers_reference,
    rank_hits_reference,
    rank_reference,
    same_text_pairs_reference,
    sentence_keys_reference,
    sentences_reference,
    sequence_keys_reference,
    shared_codes_reference,
    short_keys_reference,
    unit_pairs_reference,
    window_digits_reference,
    winnow_reference,
)


@st.composite
def page_and_work(draw):
    """(page codes, work codes): a work of random letters (a small alphabet gives repeated
    k-grams, a tiny one repeats within a page), and a page assembled from pieces of it, some
    with substituted, inserted or deleted letters, and random filler between them."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    alphabet = draw(st.sampled_from([2, 4, 12, 26]))
    work = rng.integers(0, alphabet, draw(st.integers(0, 1500))).astype(np.uint8)
    pieces = []
    for _ in range(draw(st.integers(0, 8))):
        if len(work) and draw(st.integers(0, 3)):
            a = int(rng.integers(0, len(work)))
            piece = work[a:a + int(rng.integers(1, 400))].copy()
            for _ in range(draw(st.integers(0, 6))):
                at = int(rng.integers(0, len(piece) + 1))
                edit = draw(st.sampled_from(["sub", "ins", "del"]))
                size = int(rng.integers(1, 30))
                if edit == "sub" and at < len(piece):
                    piece[at] = rng.integers(0, 26)
                elif edit == "ins":
                    piece = np.concatenate((piece[:at], rng.integers(0, 26, size), piece[at:]))
                else:
                    piece = np.concatenate((piece[:at], piece[at + size:]))
            pieces.append(piece.astype(np.uint8))
        else:
            pieces.append(rng.integers(0, 26, int(rng.integers(0, 80))).astype(np.uint8))
    page = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8)
    return page, work


@settings(max_examples=examples(400), deadline=None)
@given(page_and_work(), st.sampled_from([(8, 4, 24, 12, 24, 16), (4, 1, 6, 3, 8, 2),
                                         (6, 3, 10, 0, 12, 40)]))
def test_compiled_alignment_gives_the_reference_passages(texts, params):
    page, work = texts
    k, stride, max_gap, max_shift, min_passage, max_repeats = params
    seeds = SeedIndex.build(work, k)
    args = (max_gap, max_shift, min_passage, max_repeats, stride)
    assert align(page, seeds, *args) == align_reference(page, seeds, *args)


@settings(max_examples=examples(200), deadline=None)
@given(page_and_work(), st.integers(0, 2**32))
def test_an_alignments_passages_in_characters_are_its_letters_characters(texts, seed):
    # a letter's character: any increasing offsets (a character may make no letter)
    rng = np.random.default_rng(seed)
    page, work = texts
    found = align(page, SeedIndex.build(work, 4), 24, 12, 8, 16, 1)
    po, wo = (np.cumsum(rng.integers(1, 4, len(codes))) for codes in (page, work))
    assert found.characters(po, wo) == [
        (int(po[a]), int(po[b - 1]) + 1, int(wo[s]), int(wo[e - 1]) + 1)
        for a, b, s, e in found.passages]
    if found.passages:
        with pytest.raises(IndexError):
            found.characters(po[:found.passages[-1][1] - 1], wo)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.integers(-2**62, 2**62), max_size=300), st.sampled_from([-1, 0, 1, 3]),
       st.integers(1, 2**20))
def test_the_alignments_sort_orders_as_numpy(values, depth, spread):
    # few distinct values (spread) give long runs of equal seeds; depth 0 sorts by heapsort
    values = np.array([v % spread - spread // 2 for v in values], dtype=np.int64)
    expected = np.sort(values)
    sort_int64(values, depth)
    assert np.array_equal(values, expected)


@settings(max_examples=examples(300), deadline=None)
@given(page_and_work(), st.sampled_from([2, 4, 8]))
def test_shared_codes_count_what_numpy_finds(texts, k):
    # small alphabets repeat codes within a work; pages share pieces of the work
    page, work = (SeedIndex.build(codes, k) for codes in texts)
    assert shared_codes(page, work) == shared_codes_reference(page, work)
    assert shared_codes(work, page) == shared_codes_reference(work, page)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(page_and_work(), min_size=1, max_size=6), st.integers(0, 2**32))
def test_aligning_every_candidate_in_one_call_gives_the_reference_alignments(texts, seed):
    # one page (the first text's) against several works, each with its own least coverage
    rng = np.random.default_rng(seed)
    page = texts[0][0]
    k, stride, args = 8, 4, (24, 12, 24, 16, 4)
    works = [SeedIndex.build(work, k) for _, work in texts]
    least = rng.integers(1, 200, len(works)).tolist()
    found = align_each(page, works, least, *args, kgram_codes(page, k)[::stride])
    assert found == align_each_reference(page, works, least, *args)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(page_and_work(), min_size=1, max_size=6), st.integers(0, 2**32))
def test_compiled_masks_and_same_text_pairs_give_the_reference_ones(texts, seed):
    # candidates: works aligned with one page (the first text's), some of them near-copies
    rng = np.random.default_rng(seed)
    page = texts[0][0]
    works = [work for _, work in texts]
    works += [np.where(rng.random(len(w)) < 0.02, 0, w).astype(np.uint8) for w in works]
    runs = [align(page, SeedIndex.build(w, 8)).runs for w in works]
    masks = matched_masks(page, works, runs)
    assert np.array_equal(masks, matched_masks_reference(page, works, runs))
    sizes = np.array([len(w) for w in works], dtype=np.int64)
    for least in (0.7, 0.95):
        assert same_text_pairs(masks.view(np.uint8), sizes, least) \
            == same_text_pairs_reference(masks, sizes, least)
    group = rng.integers(0, 3, len(works)).tolist()
    for min_own in (1, 8, 40):
        assert np.array_equal(dominated(masks.view(np.uint8), np.array(group), min_own),
                              dominated_reference(masks, group, min_own))
    # letter_groups takes labels below the number of candidates, as known_groups gives them
    for labels in ([g % len(works) for g in group], list(range(len(works))),
                   rng.integers(0, len(works), len(works)).tolist()):
        assert np.array_equal(letter_groups(masks.view(np.uint8), np.array(labels)),
                              letter_groups_reference(masks, labels))


def partition(labels: list[int]) -> list[int]:
    """Labels renamed to the first candidate of each group."""
    first: dict[int, int] = {}
    return [first.setdefault(label, i) for i, label in enumerate(labels)]


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, 12).flatmap(lambda m: st.tuples(
    st.just(m), st.lists(st.integers(0, 2**31 - 1), min_size=m, max_size=m, unique=True),
    st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=40),
    st.lists(st.sampled_from([True, False, None]), min_size=200, max_size=200))))
def test_compiled_known_groups_give_the_reference_groups(drawn):
    m, numbers, drawn_pairs, answers = drawn
    ids = np.array(numbers, dtype=np.int64)
    pairs = sorted({(min(i, j), max(i, j)) for i, j in drawn_pairs if i != j})
    # the answers: half of them in a PairCache that holds only those, half in a dict beside it
    known, cache, more = {}, PairCache(len(pairs) // 2), {}
    for (i, j), same in zip(pairs, answers, strict=False):
        if same is not None:
            lo, hi = sorted((numbers[i], numbers[j]))
            known[lo << 32 | hi] = same
            if not cache.put(lo << 32 | hi, same):
                more[lo << 32 | hi] = same
    assert len(cache) + len(more) == len(known) and len(cache) <= max(len(pairs) // 2, 1)
    assert all((cache.get(key) if key not in more else more[key]) == same
               for key, same in known.items())
    labels, unknown = known_groups(pairs, ids, cache, more)
    want_labels, want_unknown = known_groups_reference(pairs, ids, known)
    assert partition(labels) == partition(want_labels)
    assert labels == partition(labels)  # each group labelled by its first candidate
    assert unknown == want_unknown


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="0123456789０１２３４５６７８９天地玄黄 ab.。", max_size=200))
def test_exact_codes_give_each_digit_its_value(text):
    letters = to_letters(text)
    assert exact_codes(letters, text).tolist() == exact_codes_reference(letters, text).tolist()


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="0123456789天地玄黄 ab,.。！？\n|", max_size=120))
def test_compiled_sentence_starts_are_the_reference_boundaries(text):
    # boundaries at the start and the end, runs of them, none: only letters 1..n-1, distinct
    letters = to_letters(text)
    assert letters.boundaries.tolist() == convert_reference(default_table(), text).boundaries.tolist()


# Han (simplified, traditional, compatibility), Latin words with accents and full-width forms,
# ASCII and full-width digits, sentence punctuation, symbols, astral characters (emoji, CJK
# extension B) and lone surrogates: every class of the letter table
TEXT = st.text(alphabet=st.one_of(
    st.sampled_from("天地玄黄宇宙洪荒國際豈㍿ＡＢｃéÉçøßabcXYZ 0123456789０１２３"
                    "。！？；…!?;.\n,，、“”-_|😀𠀀\ud800\udfff"),
    st.characters()), max_size=400)


@settings(max_examples=examples(400), deadline=None)
@given(TEXT)
def test_compiled_letters_are_the_reference_letters(text):
    got, expected = to_letters(text), convert_reference(default_table(), text)
    assert got.codes.dtype == np.uint8 and got.offsets.dtype == np.int64
    assert got.codes.tolist() == expected.codes.tolist()
    assert got.offsets.tolist() == expected.offsets.tolist()
    assert got.boundaries.tolist() == expected.boundaries.tolist()
    assert got.text_length == len(text)


KEY_CONFIGS = [EngineConfig(), EngineConfig(window_mode="fixed"),
               EngineConfig(anchor_k=4, short_k=7, window_letters=16, overlap=0.25,
                            anchor_bits=0, short_radius=2)]


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0, 3, 9, 20, 31, 33, 200, 999, 1000, 3000]),
       st.sampled_from([2, 5, 26, 31]), st.sampled_from(KEY_CONFIGS), st.integers(1, 3),
       st.integers(0, 12))
def test_a_sequences_keys_in_one_call_are_the_reference_keys(seed, n, alphabet, config,
                                                               sparsity, short_radius):
    # random letters around the sizes that matter: empty, shorter than a k-gram or a window,
    # about dense_page_letters, long; few letters (ties of hashes) or all 31 codes (digits)
    rng = np.random.default_rng(seed)
    engine = Engine(MemoryIndex(), MemoryWorkStore(), config)
    letters = Letters(rng.integers(0, alphabet, n).astype(np.uint8), np.arange(n), n)
    keys, starts = engine._keys(letters, sparsity, short_radius)
    assert keys.dtype == np.uint64 and starts.dtype == np.int64
    assert (keys.tolist(), starts.tolist()) == sequence_keys_reference(
        engine, letters.codes, sparsity, short_radius)


def query_keys_of_reference(engine, letters) -> list[int]:
    """``Engine._query_key_array`` from the reference stages (any configuration)."""
    c = engine.config
    sparsity = c.query_sparsity if len(letters) >= c.dense_page_letters else 1
    keys, starts = sequence_keys_reference(engine, letters.codes, sparsity,
                                           c.short_radius * sparsity)
    if not c.probe:
        return keys
    probed = engine.quantizer.probe_keys(letters.codes, np.array(starts, dtype=np.int64), c.probe)
    return [*probed.astype(np.uint64).tolist(), *keys[len(starts):]]


def postings_reference(engine, letters) -> list[tuple[int, int]]:
    """``Engine.postings`` from the reference stages."""
    c = engine.config
    short = len(letters) < c.short_text_letters
    keys, starts = sequence_keys_reference(engine, letters.codes, 1, c.short_radius * short)
    extra = sorted(set(keys[len(starts):]))
    return list(enumerate(keys[:len(starts)] + extra))


@settings(max_examples=examples(200), deadline=None)
@given(TEXT, st.integers(0, 2**32), st.integers(0, 4000), st.sampled_from([0, 1, 2]),
       st.sampled_from(["content", "fixed"]))
def test_page_keys_and_work_postings_are_the_reference_ones(chapters, text, seed, n, probe,
                                                            mode):
    # Chinese pages short (dense selection) and long (sparse), English, mixed and random text
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(probe=probe, window_mode=mode))
    rng = np.random.default_rng(seed)
    chinese = "".join(chapter["text"] for chapter in chapters)
    english = " ".join(["The quick brown fox jumps over the lazy dog while Mary reads."] * 80)
    source = [chinese, english, text + chinese[:300]][seed % 3]
    a = int(rng.integers(0, max(len(source), 1)))
    letters = engine.letters(source[a:a + n] + text)
    assert engine._query_key_array(letters).tolist() == query_keys_of_reference(engine, letters)
    assert engine.postings(letters) == [
        (key, window) for window, key in postings_reference(engine, letters)]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="0123456789０１天地玄黄宇宙 ab,。\n", min_size=1, max_size=120),
       st.integers(0, 2**32), st.integers(1, 5))
def test_compiled_number_comparison_gives_the_reference_counts(text, seed, works):
    letters = to_letters(text)
    rng = np.random.default_rng(seed)
    n = len(letters)
    masks = rng.random((works, n)) < rng.random()
    passages = [[(int(a), int(a) + int(rng.integers(0, n + 1)), 0, 0)
                 for a in rng.integers(-1, n + 1, rng.integers(0, 3))] for _ in range(works)]
    expected_masks = masks.copy()
    expected = compare_numbers_reference(numbers_reference(letters), expected_masks, passages,
                                         letters.boundaries)
    found = compare_numbers(letters.codes, letters.offsets, masks.view(np.uint8), passages,
                            letters.boundaries, DIGIT_LETTER)
    assert [f.tolist() for f in found] == [e.tolist() for e in expected]
    assert np.array_equal(masks, expected_masks)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3000), st.sampled_from([2, 5, 31]),
       st.integers(1, 12), st.integers(1, 20))
def test_compiled_keys_give_the_reference_grams_hashes_minima_and_digits(seed, n, alphabet,
                                                                          k, radius):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, alphabet, n).astype(np.uint8)
    grams = kgram_codes(codes, k)
    assert grams.tolist() == kgram_codes_reference(codes, k).tolist()
    hashes = mix(grams)
    assert hashes.tolist() == mix_reference(grams).tolist()
    assert [local_minima(hashes, r).tolist() for r in (radius, 3)] \
        == [m.tolist() for m in winnow_reference(hashes, (radius, 3))]
    tiny = (hashes % 3).astype(np.uint64)  # ties: every minimum of a window is selected
    assert [local_minima(tiny, radius).tolist()] \
        == [m.tolist() for m in winnow_reference(tiny, (radius,))]
    quantizer = Quantizer("bcdfghjklmnqrstwxyz", 32, 2, 5, 16)
    starts = np.flatnonzero(rng.random(max(n - 31, 0)) < 0.1)
    assert quantizer.keys(codes, starts, hashes if k == 5 else None).tolist() == (
        window_digits_reference(quantizer, codes, starts)
        + quantizer.anchor_values(codes, starts)).tolist()


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([1, 3, 100]), st.sampled_from([10, 70_000]))
def test_a_loaded_index_looks_up_what_the_live_one_does(tmp_path_factory, seed, max_df, works):
    # the live index (dicts) is the reference of the loaded one's compiled lookup: shared keys
    # (some over max_df), short-text keys (bit 63), windows over 2**16 (wider packing)
    rng = np.random.default_rng(seed)
    live = MemoryIndex(max_df=max_df)
    pool = np.concatenate((rng.integers(0, 2**40, 50, dtype=np.uint64),
                           rng.integers(2**63, 2**64 - 1, 10, dtype=np.uint64)))
    for w in range(int(rng.integers(1, 8))):
        keys = rng.choice(pool, int(rng.integers(1, 40))).tolist()
        live.add(f"w{w}", [(int(k), int(rng.integers(0, works))) for k in keys])
    folder = tmp_path_factory.mktemp("index")
    live.save(folder)
    loaded = MemoryIndex.load(folder)
    query = [*rng.choice(pool, 30).tolist(), 12345]
    def postings(index):  # a key's postings in (work, window) order: saved sorted
        return {k: sorted(v) for k, v in index.lookup(query).items()}

    def hits(index):  # the array lookup, as (work_id, window) pairs: in any order
        found = index.lookup_hits(query)
        return sorted(zip([found.works[w] for w in found.work.tolist()], found.window.tolist(),
                          strict=True))

    assert postings(loaded) == postings(live)
    assert hits(loaded) == hits(live) == sorted(
        (w, window) for held in live.lookup(query).values() for w, window in held)
    distinct = list(dict.fromkeys(query))

    def placed(index):  # key_hits: each posting under its key, by its place among the keys
        places, found = key_hits(index, distinct)
        return sorted(zip([distinct[p] for p in places.tolist()],
                          [found.works[w] for w in found.work.tolist()], found.window.tolist(),
                          strict=True))

    class LookupOnly:  # an index with only ``lookup`` (a RedisIndex's form), adapted
        lookup = live.lookup

    assert placed(loaded) == placed(live) == placed(LookupOnly()) == sorted(
        (k, w, window) for k, held in live.lookup(distinct).items() for w, window in held)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 7)), max_size=200),
       st.integers(0, 4))
def test_key_evidence_counts_each_key_of_a_work_once(postings, template_works):
    # postings as (key place, work place), repeated pairs included: a key held by more than
    # template_works distinct works is template; every other key counts once for each work;
    # each key's distinct holders are given, 0 for a key no posting names
    places = np.array([k for k, _ in postings], dtype=np.int64)
    work = np.array([w for _, w in postings], dtype=np.int64)
    holders = {k: {w for kk, w in postings if kk == k} for k, _ in postings}
    template = sum(len(held) > template_works for held in holders.values())
    counts = [sum(w in held for held in holders.values() if len(held) <= template_works)
              for w in range(8)]
    assert key_evidence(places, work, 10, 8, template_works) == (
        counts, [len(holders.get(k, ())) for k in range(10)], template)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(1, 6), st.integers(1, 4))
def test_ranking_the_hit_arrays_gives_the_reference_candidates(seed, n_works, spread, copies):
    # many works with few windows each, some registered several times (the same postings
    # under several ids): ties of hit counts, equal and unequal hit sets, over max_candidates
    rng = np.random.default_rng(seed)
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    found: dict[int, list[tuple[str, int]]] = {}
    for w in range(n_works):
        windows = rng.integers(0, spread * 3, int(rng.integers(0, spread * 4))).tolist()
        for copy in range(int(rng.integers(1, copies + 1))):
            for key, window in enumerate(windows):
                found.setdefault(int(rng.integers(0, 30)) if copy else key, []).append(
                    (f"w{w:02d}-{copy}", window))
    hits = hits_from_lookup(found, None, list(found))
    ranked = engine._rank(hits)
    assert ranked == rank_hits_reference(engine.config, hits)
    assert [(hits.works[w], n) for w, n in ranked] == rank_reference(engine.config, found)


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 300), st.integers(1, 12), st.integers(0, 6))
def test_compiled_short_keys_are_the_reference_keys(seed, n, gram_k, extra):
    rng = np.random.default_rng(seed)
    grams = kgram_codes(rng.integers(0, 32, n).astype(np.uint8), gram_k)
    k = min(gram_k + extra, 2 * gram_k)
    positions = np.sort(rng.integers(0, max(len(grams), 1), int(rng.integers(0, 60))))
    assert short_keys(grams, gram_k, positions, k).tolist() == short_keys_reference(
        grams, gram_k, positions, k).tolist()


def query_keys_reference(engine, letters) -> list[int]:
    """A page's query keys computed with the reference stages only (default configuration:
    content-defined windows, no probing)."""
    c = engine.config
    sparsity = c.query_sparsity if len(letters) >= c.dense_page_letters else 1
    grams = kgram_codes_reference(letters.codes, c.anchor_k)
    hashes = mix_reference(grams)
    minima, chosen = winnow_reference(hashes, (content_radius(c.stride, sparsity),
                                               c.short_radius * sparsity))
    starts = minima[minima <= len(letters) - c.window_letters]
    digits = window_digits_reference(engine.quantizer, letters.codes, starts)
    keys = (digits + engine.quantizer.anchor_values(letters.codes, starts, hashes))
    return [*keys.astype(np.uint64).tolist(),
            *short_keys_reference(grams, c.anchor_k, chosen, c.short_k).tolist()]


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4000))
def test_engine_query_keys_are_the_reference_keys(chapters, seed, n):
    # pages of real text cut and spliced at random: short and long (sparser) selections
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    rng = np.random.default_rng(seed)
    text = "".join(chapter["text"] for chapter in chapters)
    a = int(rng.integers(0, len(text)))
    page = text[a:a + n] + text[:int(rng.integers(0, 300))]
    letters = engine.letters(page)
    assert engine._query_key_array(letters).tolist() == query_keys_reference(engine, letters)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 50), max_size=300), st.integers(0, 2**40))
def test_naming_work_numbers_gives_np_unique_groups(numbers, epoch):
    # name_works replaces np.unique(numbers, return_inverse=True) (in first-appearance order)
    scratch = np.full(51, -1, dtype=np.int64)
    ids = [f"w{n}" for n in range(51)]
    works, revisions, work = name_works(np.array(numbers, dtype=np.int64), scratch, ids, epoch)
    distinct = [int(w[1:]) for w in works]
    assert sorted(distinct) == np.unique(numbers).tolist()
    assert [distinct[w] for w in work.tolist()] == numbers
    assert list(revisions) == [f"{epoch}:{n}" for n in distinct]
    assert (scratch == -1).all()


@st.composite
def live_index_and_query(draw):
    """(MemoryIndex in its dicts' form, query keys): works on keys of a small pool (key 0,
    window keys, short-text keys with bit 63), so that keys are shared by several works (some
    over ``max_df``) and held once (an int) or several times (a list); some works replaced or
    removed; the query mixes pool keys, absent keys and repeats."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    index = MemoryIndex(max_df=draw(st.sampled_from([1, 2, 3, 100])))
    pool = [0, *rng.integers(1, 2**40, 30).tolist(),
            *rng.integers(2**63, 2**64 - 1, 8, dtype=np.uint64).tolist()]
    names = [f"w{w}" for w in range(draw(st.integers(0, 12)))]
    for name in names:
        keys = rng.choice(len(pool), int(rng.integers(1, 25))).tolist()
        index.add(name, [(pool[k], int(rng.integers(0, 50))) for k in keys])
    for name in names:
        if rng.random() < 0.15:
            index.remove(name)
        elif rng.random() < 0.15:
            index.add(name, [(pool[int(rng.integers(len(pool)))], 7)])
    absent = rng.integers(0, 2**64, 10, dtype=np.uint64).tolist()
    query = [(pool + absent)[i] for i in rng.integers(0, len(pool) + 10, draw(
        st.integers(0, 120))).tolist()]
    return index, query


@settings(max_examples=examples(300), deadline=None)
@given(live_index_and_query(), st.booleans(), st.booleans())
def test_compiled_lookup_of_the_dicts_gives_the_reference_postings(drawn, presence, as_array):
    # the compiled walk of the dicts (fingerprint.compiled.lookup.gather_held) against the
    # Python walk it replaced: the same postings, in the same order, with and without a
    # PresenceFilter in front
    index, query = drawn
    with patch.object(memory, "PRESENCE_MIN_KEYS", 0 if presence else 1 << 20):
        hits = index.lookup_hits(np.array(query, dtype=np.uint64) if as_array else query)
        works, revisions, work, window = lookup_hits_reference(index, query)
        assert (hits.works, list(hits.revisions), hits.work.tolist(), hits.window.tolist()) == (
            works, revisions, work, window)
        assert list(index.lookup(query).items()) == list(lookup_reference(index, query).items())
    assert (index._presence is not None) == presence


def judged_page(engine, page: str) -> tuple:
    """(letters, exact codes, aligned candidates) of a page, as ``Engine.match_with_keys``
    gives them to ``Engine._judge``."""
    letters = engine.letters(page)
    aligned = engine._align_candidates(
        letters, engine._revised(engine._hits(engine._query_key_array(letters))))
    return letters, exact_codes(letters, page), aligned


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 12), st.integers(1, 4))
def test_judging_a_page_in_one_call_gives_the_reference_matches(chapters, seed, n_works, copies):
    # templated works (one text with other numbers and names filled in), a text registered
    # several times (some with a header of their own), and a page copied from one of them
    # with edits: numbers, dominance, same-text groups and the template discount all decide
    rng = np.random.default_rng(seed)
    text = "".join(chapter["text"] for chapter in chapters)
    a = int(rng.integers(0, len(text) - 2000))
    clauses = [text[a + i:a + i + int(rng.integers(20, 120))] for i in range(0, 1200, 120)]

    def filled() -> str:
        parts = []
        for clause in clauses:
            parts.append(clause)
            if rng.random() < 0.5:
                parts.append(f"第{int(rng.integers(1, 10**int(rng.integers(1, 6))))}号")
            if rng.random() < 0.4:
                parts.append(text[int(rng.integers(0, len(text) - 80)):][:int(rng.integers(10, 80))])
        return "".join(parts)

    works = [filled() for _ in range(n_works)]
    works += [("通告" * int(rng.integers(0, 3))) + works[0] for _ in range(copies - 1)]
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    for i, work in enumerate(works):
        engine.add_work(f"w{i:02d}", work)
    page = works[int(rng.integers(0, len(works)))]
    for _ in range(int(rng.integers(0, 6))):  # cuts, now and then a digit typed in
        at = int(rng.integers(0, len(page)))
        page = page[:at] + str(rng.integers(0, 10)) * int(rng.random() < 0.2) \
            + page[at + int(rng.integers(0, 40)):]
    letters, exact, aligned = judged_page(engine, page)

    assert engine._judge(letters, exact, aligned) \
        == judge_reference(engine, letters, exact, aligned, {})
    assert engine._judge(letters, None, aligned) \
        == judge_reference(engine, letters, None, aligned, {})


def test_a_window_shorter_than_its_anchor_k_gram_is_refused():
    # a window's key hashes its first anchor_k letters: they must lie inside the window
    with pytest.raises(ValueError, match="window_letters"):
        EngineConfig(window_letters=8, anchor_k=9)


# words of every kind the rewrite stage meets: synonyms, function words, English words and
# function words, sentence ends (a "." before a space, inside "e.g.", at the end), digits
PIECES = st.sampled_from(["北京", "长城", "我们", "今天", "法院", "判决", "的", "了", "國際", "value",
                          "returned", "calls", "the", " ", ".", ". ", "。", "！", "\n", "，",
                          "2024", "３", "e.g.", "x.y", "😀", "\ud800"])
WORDS = st.lists(st.one_of(PIECES, TEXT), max_size=60).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(WORDS)
def test_compiled_sentences_are_the_reference_sentences(text):
    got = default_classes().sentences(text)
    assert [(s.start, s.end, s.token_codes.tolist(), s.char_codes.tolist(),
             s.number_codes.tolist(), [w for w, _ in s.words]) for s in got] == \
        sentences_reference(default_classes(), text)


@settings(max_examples=examples(300), deadline=None)
@given(WORDS, st.integers(1, 5), st.integers(2, 4), st.integers(1, 8))
def test_page_keys_are_the_distinct_keys_of_the_first_sentences(text, min_tokens, key_tokens,
                                                                 most):
    classes = default_classes()
    words = classes.words(text)
    keys, sentences = page_keys(words, classes.word_codes, min_tokens, key_tokens, most)
    cut = classes.cut_words(words).head(most)
    expected = window_keys(cut.codes.tokens, cut.codes.token_sizes, min_tokens, key_tokens)
    assert sentences == cut.size
    assert keys.dtype == np.uint64 and sorted(keys.tolist()) == sorted(set(expected))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(min_size=1, max_size=4), max_size=200), st.integers(1, 64))
def test_word_codes_make_each_word_once_and_keep_it(words, capacity):
    def code_of(word: str) -> int:
        return zlib.crc32(word.encode("utf-8", "surrogatepass")) - 3

    made: list[str] = []

    def make(word: str) -> int:
        made.append(word)
        return code_of(word)

    table = WordCodes(make, capacity)  # a small table grows many times
    for _ in range(2):
        assert [table.code(w) for w in words] == [code_of(w) for w in words]
        assert made == list(dict.fromkeys(words)) and len(table) == len(made)
    table.clear()
    assert len(table) == 0
    assert table.code("新词") == code_of("新词") and made[-1] == "新词" and len(table) == 1


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**32 - 1), max_size=8), max_size=12),
       st.integers(0, 6), st.integers(2, 5))
def test_compiled_rewrite_keys_are_the_reference_keys(sentences, min_tokens, key_tokens):
    codes = [sorted(set(s)) for s in sentences]
    flat = np.array([c for s in codes for c in s], np.int64)
    assert window_keys(flat, [len(s) for s in codes], min_tokens, key_tokens) == \
        sentence_keys_reference(codes, min_tokens, key_tokens)


def _sentences(drawn: list[tuple[list[int], ...]]) -> list[Sentence]:
    return [Sentence(0, 0, *(np.array(sorted(set(codes)), np.int64) for codes in parts), [],
                     np.array([], np.int64), {}) for parts in drawn]


# few distinct codes, so that sentences share many and some are in more page sentences than
# the limit; characters include English pairs (above 2**32); numbers, few and often none
SENTENCES = st.lists(st.tuples(st.lists(st.integers(0, 24), max_size=10),
                               st.lists(st.one_of(st.integers(0, 40),
                                                  st.integers(2**32, 2**32 + 3)), max_size=16),
                               st.lists(st.integers(-2, 3), max_size=3)),
                     max_size=14)


@settings(max_examples=examples(400), deadline=None)
@given(SENTENCES, SENTENCES, st.integers(1, 8), st.integers(0, 3), st.sampled_from([0.5, 1.0, 2.5]),
       st.sampled_from([0.1, 0.5, 0.75, 1.0]))
def test_compiled_unit_pairs_are_the_reference_pairs(work, page, limit, min_shared, ratio, least):
    work, page = _sentences(work), _sentences(page)
    if not work or not page:
        return
    flat = [part for side in (work, page) for attr in ("token_codes", "char_codes", "number_codes")
            for part in (np.concatenate([getattr(s, attr) for s in side]),
                         [len(getattr(s, attr)) for s in side])]
    got = unit_pairs(*flat, limit, min_shared, ratio, least)
    assert sorted(zip(*(a.tolist() for a in got), strict=True)) == \
        unit_pairs_reference(work, page, limit, min_shared, ratio, least)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.sampled_from([np.uint64, np.int64]))
def test_sorted_distinct_gives_what_numpy_unique_gives(values, dtype):
    array = np.array(values, dtype=np.uint64).astype(dtype)
    expected = np.unique(array)
    found = sorted_distinct(array)
    assert found.dtype == expected.dtype and found.tolist() == expected.tolist()


def _siblings(keys_of: dict[int, list[int]], min_own: int = 2, least: float = 0.7) -> list[int]:
    """template_siblings of candidates 0..n-1 ranked in order, each with the keys given."""
    work = [w for w, keys in keys_of.items() for _ in keys]
    place = [k for keys in keys_of.values() for k in keys]
    return template_siblings(np.array(work, dtype=np.int64), np.array(place, dtype=np.int64),
                             len(keys_of), 1 + max(place),
                             [(w, len(keys)) for w, keys in keys_of.items()], min_own, least)


def test_template_siblings_are_the_candidates_inside_a_better_one_with_keys_of_its_own():
    # the copied work: template keys 0-5 and its own facts 10-13; two siblings of its template
    copy, template = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13], [0, 1, 2, 3]
    assert _siblings({0: copy, 1: template, 2: [1, 2, 3, 4, 5, 5]}) == [1, 2]
    # a second copied work on the page has a key of its own: aligned
    assert _siblings({0: copy, 1: template, 2: [4, 5, 20]}) == [1]
    # the same text registered twice (the very same keys) and a text nearly the same
    assert _siblings({0: copy, 1: copy, 2: copy[:-2], 3: template}) == [3]
    # no candidate has two keys of its own: a page of template text alone, nothing left out
    assert _siblings({0: [0, 1, 2, 3, 10], 1: template, 2: [0, 1]}) == []
    assert _siblings({0: copy, 1: template}, min_own=0) == []
    # keys held only by a sibling's better sibling do not make a holder
    assert _siblings({0: [0, 1, 2, 3, 4], 1: [0, 1, 2, 3], 2: [0, 1]}) == []
