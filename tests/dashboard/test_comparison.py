"""Character-level comparison of a page's passage with the work's: what a reviewer reads as
"changed a few characters", "other script", "other width" or "same pinyin"."""

from __future__ import annotations

import time

import opencc
from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.comparison import (
    CHANGED,
    DELETED,
    INSERTED,
    OTHER_SCRIPT,
    OTHER_WIDTH,
    SAME,
    SAME_PINYIN,
    compare,
)
from tests.dashboard.conftest import DEMO_DIR, big5_demo_match
from tests.examples import examples

WORK = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。"


def _kinds(comparison) -> list[tuple[str, str, str]]:
    return [(e.kind, e.page, e.work) for e in comparison.edits]


def test_a_verbatim_copy_is_all_the_same():
    result = compare(WORK, WORK)
    assert _kinds(result) == [(SAME, WORK, WORK)]
    assert result.similarity == 1.0


def test_traditional_characters_are_the_same_character_in_the_other_script():
    page = "話說天下大勢，分久必合，合久必分。周末七國分爭，並入於秦。"
    result = compare(page, WORK)
    assert {e.kind for e in result.edits} == {SAME, OTHER_SCRIPT}
    assert result.counts()[OTHER_SCRIPT] == 7  # 話說 勢 國 爭 並 於
    assert ("other_script", "話說", "话说") in _kinds(result)


def test_a_homophone_is_same_pinyin_and_another_character_is_changed():
    work = "他们在北京考察企业"
    result = compare("她们在北京考查企业", work)
    assert _kinds(result) == [(SAME_PINYIN, "她", "他"), (SAME, "们在北京考", "们在北京考"),
                              (SAME_PINYIN, "查", "察"), (SAME, "企业", "企业")]
    assert _kinds(compare("我们在北京考察企业", work))[0] == (CHANGED, "我", "他")


def test_inserted_ads_and_deleted_clauses_are_marked():
    page = "话说天下大势，分久必合，【广告】合久必分。周末七国分争。"
    result = compare(page, WORK)
    kinds = _kinds(result)
    assert (INSERTED, "【广告】", "") in kinds
    assert (DELETED, "", "，并入于秦") in kinds
    assert 0.6 < result.similarity < 0.9


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="天下大势分久必合話說他她。，", max_size=40),
       st.text(alphabet="天下大势分久必合话说他她。，", max_size=40))
def test_the_edits_rebuild_both_passages(page, work):
    result = compare(page, work)
    assert "".join(e.page for e in result.edits) == page
    assert "".join(e.work for e in result.edits) == work
    assert 0.0 <= result.similarity <= 1.0


def test_full_width_digits_and_signs_are_the_same_character_in_the_other_width():
    result = compare("１５６２年，物价上涨４０％。", "1562年，物价上涨40%。")
    assert _kinds(result) == [(OTHER_WIDTH, "１５６２", "1562"), (SAME, "年，物价上涨", "年，物价上涨"),
                              (OTHER_WIDTH, "４０％", "40%"), (SAME, "。", "。")]
    assert result.similarity == 1.0


def test_the_demos_big5_reprint_compares_as_the_engine_scores_it():
    """The demo site's Big5 page of 西遊記 第二回 against the demo work: the passage the engine
    finds reads as the same text in the other script, with the ads inserted, not as thousands
    of changed characters."""
    page, work, match = big5_demo_match()
    (passage,) = match.passages
    assert passage.page_end - passage.page_start > 7000
    result = compare(page[passage.page_start:passage.page_end],
                     work[passage.work_start:passage.work_end])
    counts = result.counts()
    assert result.similarity > 0.95 and result.similarity >= match.score - 0.03
    assert counts.get(CHANGED, 0) + counts.get(SAME_PINYIN, 0) <= 5
    assert counts[OTHER_SCRIPT] > 1500 and counts[SAME] > 5000
    assert {e.page for e in result.edits if e.kind == INSERTED} >= {"【广告】新用户注册领取百元话费"}
    assert all(len(e.page) == len(e.work) for e in result.edits if e.kind == OTHER_SCRIPT)


def test_a_passage_of_twelve_thousand_characters_is_aligned_exactly_and_quickly():
    """12,000 characters of the work reprinted in traditional script with full-width digits,
    one character changed every 400 and a sentence inserted every 3,000: each edit is found
    where it is, in well under a second."""
    work = (DEMO_DIR / "works" / "xiyouji-01-03.txt").read_text(encoding="utf-8")[:12_000] + "1562"
    page = list(opencc.OpenCC("s2t").convert(work[:12_000]))
    for i in range(200, 12_000, 400):
        page[i] = "〇"
    for i in range(11_000, 0, -3_000):
        page.insert(i, "【本站首发】")
    page_text = "".join(page) + "１５６２"
    started = time.perf_counter()
    result = compare(page_text, work)
    elapsed = time.perf_counter() - started
    counts = result.counts()
    assert counts[CHANGED] == 30 and counts[INSERTED] == 4 * 6 and counts[OTHER_WIDTH] == 4
    assert [e.page for e in result.edits if e.kind == CHANGED] == ["〇"] * 30
    assert counts.get(DELETED, 0) == 0 and counts[OTHER_SCRIPT] > 1000
    assert result.similarity > 0.99
    assert elapsed < 2.0


@override_settings(EVIDENCE_DIFF_MAX_CELLS=1_000_000)
def test_a_long_passage_too_different_to_align_within_the_limit_is_not_compared():
    work = (DEMO_DIR / "works" / "xiyouji-01-03.txt").read_text(encoding="utf-8")
    result = compare(work[:20_000], work[20_000:40_000])
    assert result.similarity is None and result.edits == ()
    assert compare(work[:20_000], work[:20_000]).similarity == 1.0
