"""The same text registered as several works: a copy is reported against each of them, while
the template discount still applies to clauses shared by different works.

Samples: tests/fingerprint/fixtures/engine/judgments.json (a batch of 8 judgments of one batch
of cases, 30 judgments of one hearing template) and peoples_daily.json (sources in SOURCES.md).
"""

from __future__ import annotations

import json
import re

import pytest

from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore

from .conftest import FIXTURES, Edits
from .test_templates import _page, _template_only

HEADER = "本文原载于《法治日报》2018年3月2日第5版，转载请注明出处。\n"


@pytest.fixture(scope="module")
def hearing() -> list[str]:
    """30 judgments of one hearing template (other parties, dates and agents)."""
    texts = json.loads((FIXTURES / "judgments.json").read_text(encoding="utf-8"))["hearing"]
    return [j["text"] for j in texts]


def _engine(texts: dict[str, str]) -> Engine:
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    engine.add_works(texts.items())
    return engine


def _copies(text: str, n: int) -> dict[str, str]:
    return {f"copy{i}": text for i in range(n)}


def _siblings(hearing: list[str], target: str) -> dict[str, str]:
    return {f"w{i}": t for i, t in enumerate(hearing) if t != target}


def _found(engine: Engine, page: str) -> dict[str, list[str]]:
    return {m.work_id: m.same_text for m in engine.match(page)}


def _edited_pages(text: str) -> dict[str, str]:
    edits = Edits(seed=5)
    sentences = re.findall(r"[^。]*。?", text)
    return {"verbatim": _page(text),
            "substituted": _page(edits.substitute(text, 0.03)),
            "traditional": _page(edits.traditional(text)),
            "sentence cut": _page("".join(s for i, s in enumerate(sentences) if i != 1))}


@pytest.fixture(scope="module")
def crowd() -> dict[str, str]:
    """17 short judgments of one template (judgments_crowd.json), by id."""
    texts = json.loads((FIXTURES / "judgments_crowd.json").read_text(encoding="utf-8"))
    return {f"j{j['line']}": j["text"] for j in texts}


@pytest.mark.parametrize("n", [2, 4, 10])
def test_a_copy_of_a_text_registered_as_n_works_is_reported_against_each(crowd, n):
    # a 157-character judgment, nearly all template clauses, registered n times among the 16
    # other judgments of its template: with the copies counted as different works, its
    # clauses were shared by n more works and a copy that lost a sentence was found in none
    target = crowd["j1130"]
    siblings = {k: v for k, v in crowd.items() if v != target}
    engine = _engine({**siblings, **_copies(target, n)})
    alone = _engine({**siblings, "copy0": target})
    ids = sorted(_copies(target, n))
    parties = re.search(r"原告韩岫，[^。]*。", target).group()
    pages = {**_edited_pages(target), "parties cut": _page(target.replace(parties, ""))}
    for edit, page in pages.items():
        found = engine.match(page)
        assert sorted(m.work_id for m in found) == ids, edit
        assert all(m.same_text == ids for m in found), edit
        # each copy scores as the text registered once does
        (single,) = alone.match(page)
        assert {m.score for m in found} == {single.score}, edit


def test_a_long_text_registered_as_four_works_is_reported_against_each():
    news = json.loads((FIXTURES / "peoples_daily.json").read_text(encoding="utf-8"))["news"]
    engine = _engine({**_copies(news[0], 4), "other": news[1]})
    found = engine.match(_page(news[0]))
    assert sorted(m.work_id for m in found) == sorted(_copies(news[0], 4))
    assert all(m.score == 1.0 for m in found)


def test_texts_identical_but_for_one_name_are_one_text(hearing):
    target = hearing[0]
    name = re.match(r"原告(\w{3})不服", target).group(1)
    renamed = target.replace(name, "李春华")
    assert renamed != target
    engine = _engine({**_siblings(hearing, target), "a": target, "b": renamed})
    for page in (target, renamed):
        assert _found(engine, _page(page)) == {"a": ["a", "b"], "b": ["a", "b"]}


def test_texts_identical_apart_from_a_header_are_one_text(hearing):
    target = hearing[7]
    engine = _engine({**_siblings(hearing, target), "plain": target, "headed": HEADER + target})
    for page in (target, HEADER + target):
        assert _found(engine, _page(page)) == {"headed": ["headed", "plain"],
                                               "plain": ["headed", "plain"]}


def test_template_clauses_stay_discounted_when_a_text_is_registered_several_times(hearing):
    # clauses shared by different works (the template, without the parties and numbers of
    # an unregistered judgment) are found in none of them, however often one of those works
    # is registered
    target, page = hearing[5], hearing[0]
    others = {k: v for k, v in _siblings(hearing, target).items() if v != page}
    for n in (1, 4, 10):
        engine = _engine({**others, **_copies(target, n)})
        assert engine.match(_page(_template_only(page))) == [], n
        # nor is an unregistered judgment of the template, copied whole
        assert engine.match(_page(page)) == [], n


def test_judgments_of_one_batch_of_cases_are_not_the_same_text():
    # 8 judgments of one batch: the same clauses and dates, other parties, addresses and
    # identity numbers (83-87% of the letters of each pair align): different works
    batch = json.loads((FIXTURES / "judgments.json").read_text(encoding="utf-8"))["batch"]
    texts = {f"j{j['line']}": j["text"] for j in batch}
    engine = _engine(texts)
    for work_id, text in texts.items():
        assert _found(engine, _page(text)) == {work_id: [work_id]}


def test_a_work_re_added_with_another_text_is_compared_again(hearing):
    # the pair "same text?" is remembered per prepared work: a re-added work is another one
    target, other = hearing[3], hearing[4]
    engine = _engine({**_siblings(hearing, target), "a": target, "b": target})
    assert _found(engine, _page(target)) == {"a": ["a", "b"], "b": ["a", "b"]}
    engine.add_work("b", other)
    assert _found(engine, _page(target)) == {"a": ["a"]}
    engine.add_work("b", target)
    assert _found(engine, _page(target)) == {"a": ["a", "b"], "b": ["a", "b"]}


def test_running_out_of_work_numbers_forgets_the_cache_not_the_groups(hearing, monkeypatch):
    # the pair cache packs two work numbers in one int64: when they run out, every prepared
    # work and pair is forgotten and numbered again, and pages are judged as before
    texts = {**_siblings(hearing, hearing[2]), "a": hearing[2], "b": HEADER + hearing[2]}
    pages = [_page(hearing[2]), _page(hearing[9]), _page(HEADER + hearing[2])] * 3
    expected = [_engine(texts).match(page) for page in pages]
    monkeypatch.setattr("fingerprint.engine._MAX_PREPARED_NUMBER", 25)  # a page's candidates
    engine = _engine(texts)
    prepared = []
    for page in pages:
        prepared.append(engine._prepared_count)
        assert engine.match(page) == expected[len(prepared) - 1]
    assert any(b < a for a, b in zip(prepared, prepared[1:], strict=False))  # numbered again


def test_a_page_with_more_candidate_pairs_than_the_pair_cache_holds_is_judged_the_same(hearing):
    # cache_size=1 remembers 8 pairs; a page of this template has a hundred candidate pairs
    texts = {**_siblings(hearing, hearing[2]), "a": hearing[2], "b": HEADER + hearing[2]}
    small = Engine(MemoryIndex(), MemoryWorkStore(), cache_size=1)
    small.add_works(texts.items())
    engine = _engine(texts)
    for page in (_page(hearing[2]), _page(hearing[9]), _page(HEADER + hearing[2])):
        assert small.match(page) == engine.match(page)
    assert _found(small, _page(hearing[2])) == {"a": ["a", "b"], "b": ["a", "b"]}
