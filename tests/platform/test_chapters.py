"""The one chapter attribution (core.chapters): passages cut at the work's chapter
boundaries, slivers that spill over dropped, each chapter named once with its characters."""

import re

import pytest
from django.conf import settings

from core.chapters import attribute, passages_from_json
from fingerprint import Passage


@pytest.fixture(scope="module")
def xiyouji():
    """The demo work 西游记 chapters 1-3 and its sections, as registration finds them."""
    text = (settings.DEMO_WORKS_DIR / "xiyouji-01-03.txt").read_text(encoding="utf-8").strip()
    starts = [m.start() for m in re.finditer(r"^第[一二三]回", text, re.MULTILINE)]
    ends = [*starts[1:], len(text)]
    sections = [{"title": text[s:text.index("\n", s)].strip(), "start": s, "end": e}
                for s, e in zip(starts, ends, strict=True)]
    return text, sections


def test_big5_reprint_spilling_four_characters_names_chapter_2_only(xiyouji):
    """the Big5 reprint of chapter 2 matches from 「解」, the last character of chapter 1
    (work offset 7171, chapter 2 starts at 7175): only 第二回 is named, and the passage no longer
    reaches into chapter 1 (so the notice does not quote 「解。」)."""
    text, sections = xiyouji
    chapter2 = sections[1]
    assert chapter2["start"] == 7175 and text[7171] == "解"
    found = attribute(sections, [Passage(0, 2204, 7171, 9375)])
    assert found.titles == [chapter2["title"]] and found.titles[0].startswith("第二回")
    assert found.chapters[0].chars == 9375 - 7175
    (passage,) = found.passages
    assert passage.work_start == 7175 and passage.work_end == 9375
    assert passage.page_start == 4 and passage.page_end == 2204
    assert text[passage.work_start:].startswith("第二回")
    assert found.label == chapter2["title"]


def test_passage_truly_spanning_two_chapters_is_split_and_names_both_in_order(xiyouji):
    text, sections = xiyouji
    boundary = sections[2]["start"]
    found = attribute(sections, [Passage(100, 1100, boundary - 600, boundary + 400)])
    assert found.titles == [sections[1]["title"], sections[2]["title"]]
    assert [c.chars for c in found.chapters] == [600, 400]
    first, second = found.passages
    assert (first.work_start, first.work_end, second.work_start, second.work_end) == (
        boundary - 600, boundary, boundary, boundary + 400)
    assert (first.page_start, first.page_end, second.page_start, second.page_end) == (
        100, 700, 700, 1100)  # page side cut at the same share of the passage
    assert found.label == f"{sections[1]['title']}; {sections[2]['title']}"


def test_each_chapter_named_once_in_work_order_whatever_the_passage_order(xiyouji):
    _text, sections = xiyouji
    s1, s2 = sections[0]["start"], sections[1]["start"]
    found = attribute(sections, [Passage(0, 50, s2 + 10, s2 + 60), Passage(60, 90, s1 + 30, s1 + 60),
                                 Passage(100, 150, s2 + 200, s2 + 250)])
    assert found.titles == [sections[0]["title"], sections[1]["title"]]
    assert [c.chars for c in found.chapters] == [30, 100]
    assert len(found.passages) == 3  # none crossed a boundary: kept as they were


def test_short_passage_is_never_dropped_whole_and_text_outside_chapters_counts_for_none():
    sections = [{"title": "第一章", "start": 10, "end": 100}, {"title": "第二章", "start": 100, "end": 200}]
    found = attribute(sections, [Passage(0, 12, 95, 107)])  # 5 + 7 characters: keep the longer
    assert found.titles == ["第二章"] and [(p.work_start, p.work_end) for p in found.passages] == [(100, 107)]
    preface = attribute(sections, [Passage(0, 8, 0, 8)])
    assert preface.titles == [] and len(preface.passages) == 1
    assert attribute([], [Passage(0, 40, 0, 40)]).titles == []
    assert attribute(sections, []).passages == []


def test_stored_passages_are_read_and_malformed_ones_refused():
    stored = [{"page_start": 1, "page_end": 9, "work_start": 20, "work_end": 28}]
    assert passages_from_json(stored) == [Passage(1, 9, 20, 28)]
    with pytest.raises(ValueError, match="passage 1"):
        passages_from_json([{"page_start": 1, "page_end": 9, "work_start": 20}])
    with pytest.raises(ValueError, match="ends before"):
        passages_from_json([{"page_start": 9, "page_end": 1, "work_start": 20, "work_end": 28}])
