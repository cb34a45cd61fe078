"""Works inside works: a copy of a registered work whose text another registered work holds (a
chapter and its whole novel, an article and its collection) is reported against both, and each
Match names the other.

Samples (fixtures/engine/, SOURCES.md there): the three 红楼梦 chapters of
hongloumeng_chapters.json make the whole-novel work (chapters 7, 8 and 10, one after the other),
two of them are also registered alone; People's Daily news and short articles
(peoples_daily.json) make the unrelated work and the collection.
"""

from __future__ import annotations

import pytest

from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore

from .conftest import Edits


def _novel(chapters: list[dict]) -> str:
    return "\n".join(c["text"] for c in chapters)


def _engine(works: list[tuple[str, str]]) -> Engine:
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    engine.add_works(works)
    return engine


def _found(engine: Engine, page: str) -> dict[str, tuple[list[str], list[str]]]:
    return {m.work_id: (m.part_of, m.parts) for m in engine.match(page)}


@pytest.mark.parametrize("novel_first", [False, True])
def test_a_copied_chapter_is_reported_against_the_chapter_and_the_novel(chapters, daily,
                                                                         novel_first):
    # whichever is registered first, the later one finds the other in the index
    works = [("chapter8", chapters[1]["text"]), ("chapter10", chapters[2]["text"]),
             ("news", daily["news"][0])]
    novel = ("novel", _novel(chapters))
    engine = _engine([novel, *works] if novel_first else [*works, novel])
    page = Edits(seed=3).site(chapters[1]["text"])
    assert _found(engine, page) == {"chapter8": (["novel"], []), "novel": ([], ["chapter8"])}
    # each scores as if the other were not registered: the chapter's letters are not split
    alone = {m.work_id: m.score for m in [*_engine(works).match(page), *_engine([novel]).match(page)]}
    assert {m.work_id: m.score for m in engine.match(page)} == alone
    assert alone["chapter8"] == 1.0
    # a copy of another chapter of the novel, not registered alone, names no part
    assert _found(engine, Edits(seed=3).site(chapters[0]["text"])) == {"novel": ([], [])}


def test_a_copy_of_the_whole_novel_is_reported_against_the_novel_and_each_chapter(chapters,
                                                                                  daily):
    engine = _engine([("chapter8", chapters[1]["text"]), ("novel", _novel(chapters)),
                      ("chapter10", chapters[2]["text"]), ("news", daily["news"][0])])
    found = {m.work_id: m for m in engine.match(_novel(chapters))}
    assert sorted(found) == ["chapter10", "chapter8", "novel"]
    assert found["novel"].parts == ["chapter10", "chapter8"]
    assert found["chapter8"].part_of == found["chapter10"].part_of == ["novel"]
    assert all(m.score == 1.0 for m in found.values())


def test_an_article_inside_a_collection_is_reported_against_both(daily):
    collection = "\n".join(daily["short"])
    engine = _engine([("collection", collection), ("article", daily["short"][2]),
                      ("news", daily["news"][1])])
    page = "转载 | 今日要闻\n" + daily["short"][2] + "\n责任编辑：王明"
    assert _found(engine, page) == {"article": (["collection"], []),
                                    "collection": ([], ["article"])}


def test_the_same_text_registered_twice_is_not_part_of_itself(chapters):
    engine = _engine([("a", chapters[1]["text"]), ("b", chapters[1]["text"])])
    found = engine.match(chapters[1]["text"])
    assert [(m.work_id, m.same_text, m.part_of, m.parts) for m in found] == [
        ("a", ["a", "b"], [], []), ("b", ["a", "b"], [], [])]
    assert engine.store.get("b")["part_of"] == engine.store.get("b")["parts"] == []


def test_a_part_re_added_with_another_text_is_no_longer_part_of_the_novel(chapters, daily):
    # the novel's record names the chapter with the digest of the chapter's letters then; the
    # chapter re-added as itself plus two news texts (no longer inside the novel) does not
    # inherit the relation, though a copy of chapter 8 still matches both works
    engine = _engine([("chapter8", chapters[1]["text"]), ("novel", _novel(chapters))])
    assert engine.store.get("novel")["parts"][0][0] == "chapter8"
    engine.add_work("chapter8", "\n".join([chapters[1]["text"], *daily["news"]]))
    found = {m.work_id: m for m in engine.match(chapters[1]["text"])}
    assert sorted(found) == ["chapter8", "novel"]
    assert all(m.part_of == m.parts == [] for m in found.values())
