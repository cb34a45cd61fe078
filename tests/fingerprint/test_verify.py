"""Verification: seed-and-extend alignment of page letters against work letters."""

from __future__ import annotations

import numpy as np

from fingerprint.letters import to_letters
from fingerprint.verify import SeedIndex, align
from fingerprint.windows import kgram_codes
from tests.fingerprint.oracle import seed_pairs, union_length


def codes_of(text: str) -> np.ndarray:
    return to_letters(text).codes


def testunion_length_merges_overlaps():
    assert union_length([20, 0, 5], [25, 10, 12]) == 17
    assert union_length([0, 2], [10, 5]) == 10
    assert union_length([], []) == 0


def test_seed_pairs_finds_every_equal_k_gram_including_repeats():
    work = SeedIndex.build(np.array([1, 2, 3, 1, 2, 3, 4], dtype=np.uint8), 2)
    page = kgram_codes(np.array([2, 3, 1, 2, 9], dtype=np.uint8), 2)
    i, j = seed_pairs(page, work, max_repeats=16)
    assert sorted(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 1), (0, 4), (1, 2), (2, 0), (2, 3)]
    i, j = seed_pairs(page, work, max_repeats=1)
    assert sorted(zip(i.tolist(), j.tolist(), strict=True)) == [(1, 2)]


def test_exact_copy_is_one_passage_covering_everything(chapters):
    codes = codes_of(chapters[0]["text"][:3000])
    aln = align(codes, SeedIndex.build(codes, 8))
    assert aln.passages == [(0, len(codes), 0, len(codes))]
    assert aln.page_covered == aln.work_covered == len(codes)


def test_embedded_excerpt_maps_to_its_place_in_the_work(chapters):
    work = codes_of(chapters[0]["text"])
    page = np.concatenate([codes_of(chapters[1]["text"][:400]), work[2000:2250],
                           codes_of(chapters[2]["text"][:400])])
    aln = align(page, SeedIndex.build(work, 8))
    assert len(aln.passages) == 1
    ps, pe, ws, we = aln.passages[0]
    offset = len(page) - 250 - len(codes_of(chapters[2]["text"][:400]))
    assert (ps - offset, pe - offset, ws, we) == (0, 250, 2000, 2250)


def test_substituted_letters_keep_one_passage_but_are_not_counted(chapters):
    work = codes_of(chapters[1]["text"][:2000])
    page = work.copy()
    page[::40] = (page[::40] + 1) % 26  # 2.5% substituted, evenly spread
    aln = align(page, SeedIndex.build(work, 8))
    assert len(aln.passages) == 1
    assert aln.passages[0][2] <= 1 and aln.passages[0][3] >= len(work) - 40
    assert len(work) * 0.9 < aln.page_covered < len(work)


def test_reordered_paragraphs_give_passages_at_their_work_positions(chapters):
    work = codes_of(chapters[2]["text"][:3000])
    a, b = work[:1200], work[1200:]
    aln = align(np.concatenate([b, a]), SeedIndex.build(work, 8))
    assert sorted((p[2], p[3]) for p in aln.passages) == [(0, 1200), (1200, len(work))]
    assert aln.page_covered == len(work)


def test_different_chapters_share_no_passage(chapters):
    work = codes_of(chapters[0]["text"])
    aln = align(codes_of(chapters[1]["text"]), SeedIndex.build(work, 8), min_passage=24)
    assert aln.page_covered < 48


def test_short_page_or_work_gives_an_empty_alignment():
    aln = align(codes_of("你好"), SeedIndex.build(codes_of("你好世界"), 8))
    assert aln.passages == [] and aln.page_covered == 0


def test_a_stock_phrase_repeated_in_the_page_does_not_add_up_to_a_passage(daily):
    # found by bench.run: "有中国特色的社会主义文化" twice in a page, once in the work, chained
    # into a 26-letter "passage"; shared letters now count once
    phrase = "建设有中国特色的社会主义文化"
    work = codes_of(daily["news"][0][:600] + phrase + daily["news"][0][600:1200])
    page = codes_of(daily["news"][1][:300] + phrase + "的标准，经过三层过滤。其次是指" + phrase[2:]
                    + daily["news"][1][300:600])
    aln = align(page, SeedIndex.build(work, 8), min_passage=24)
    assert aln.passages == [] and aln.page_covered == 0


def test_sampled_seeds_give_the_same_coverage_as_every_seed(chapters):
    work = codes_of(chapters[0]["text"])
    page = work[500:3500].copy()
    page[::33] = (page[::33] + 1) % 26
    full = align(page, SeedIndex.build(work, 8), seed_stride=1)
    sampled = align(page, SeedIndex.build(work, 8), seed_stride=4)
    assert sampled.passages == full.passages
    assert sampled.page_covered == full.page_covered == len(page) - len(page[::33])
