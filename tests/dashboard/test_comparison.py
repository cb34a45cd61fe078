"""Character-level comparison of a page's passage with the work's: what a reviewer reads as
"changed a few characters", "other script" or "same pinyin"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.comparison import (
    CHANGED,
    DELETED,
    INSERTED,
    OTHER_SCRIPT,
    SAME,
    SAME_PINYIN,
    compare,
)

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


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="天下大势分久必合話說他她。，", max_size=40),
       st.text(alphabet="天下大势分久必合话说他她。，", max_size=40))
def test_the_edits_rebuild_both_passages(page, work):
    result = compare(page, work)
    assert "".join(e.page for e in result.edits) == page
    assert "".join(e.work for e in result.edits) == work
    assert 0.0 <= result.similarity <= 1.0
