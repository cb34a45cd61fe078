"""Engine: the API contract, matching under reprint edits, negatives, backends, atomicity."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import redis

from fingerprint import (
    FINGERPRINT_VERSION,
    EmptyTextError,
    Engine,
    EngineConfig,
    Match,
    TextTooLargeError,
)
from fingerprint.index import IndexUnavailableError, MemoryIndex, RedisIndex
from fingerprint.store import MemoryWorkStore, MongoWorkStore
from lib.runtime.embedded import free_port

PORTAL = "首页 > 新闻 > 社会\n本站讯 编辑：小王 来源：网络 阅读次数：1024\n"


class CountingMongoWorkStore(MongoWorkStore):
    """A MongoWorkStore that counts its ``revisions`` and ``get`` calls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = Counter()

    def revisions(self, work_ids):
        self.calls["revisions"] += 1
        return super().revisions(work_ids)

    def get(self, work_id):
        self.calls["get"] += 1
        return super().get(work_id)


class CountingMemoryWorkStore(MemoryWorkStore):
    """A MemoryWorkStore that counts its ``revisions`` calls."""

    def __init__(self):
        super().__init__()
        self.calls = Counter()

    def revisions(self, work_ids):
        self.calls["revisions"] += 1
        return super().revisions(work_ids)


class PlainIndex:
    """An index with only the Index protocol (no ``lookup_revisions`` nor ``lookup_hits``): a
    MemoryIndex behind."""

    def __init__(self):
        self._inner = MemoryIndex()
        self.max_df, self.version = self._inner.max_df, self._inner.version

    def __getattr__(self, name):
        if name in ("lookup_revisions", "lookup_hits"):
            raise AttributeError(name)
        return getattr(self._inner, name)


def _index_chapters(engine, chapters, which=(0, 1, 2)):
    for i in which:
        engine.add_work(chapters[i]["id"], chapters[i]["text"])


def _paragraph_of(text: str, length: int = 300, start: int = 3000) -> tuple[int, str]:
    """A ``length``-character slice of ``text`` starting at the paragraph after ``start``."""
    begin = text.index("\n", start) + 1
    return begin, text[begin:begin + length]


def test_excerpt_of_300_characters_from_a_6000_character_chapter_is_found(engine, chapters):
    _index_chapters(engine, chapters)
    work = chapters[0]
    assert len(work["text"]) > 5500
    begin, excerpt = _paragraph_of(work["text"])
    page = PORTAL + excerpt + "\n相关阅读：今日天气晴朗，适合出行。热门评论（3）"
    matches = engine.match(page)
    assert [m.work_id for m in matches] == [work["id"]]
    m = matches[0]
    assert len(m.passages) == 1
    p = m.passages[0]
    # offsets are character offsets into both texts as given
    assert page[p.page_start:p.page_end] == work["text"][p.work_start:p.work_end]
    # the passage starts at the excerpt's first letter (after its indentation), in both texts
    lead = p.page_start - len(PORTAL)
    assert 0 <= lead <= 4 and p.work_start == begin + lead
    assert p.page_end - p.page_start > 280
    assert m.containment_page > 0.7
    assert 0.03 < m.containment_work < 0.08
    assert m.score == max(m.containment_page, m.containment_work)


def test_match_with_keys_gives_the_matches_and_the_query_keys_of_the_page(engine, chapters):
    _index_chapters(engine, chapters)
    page = PORTAL + _paragraph_of(chapters[0]["text"])[1]
    found = engine.match_with_keys(page)
    assert [m.work_id for m in found.matches] == [chapters[0]["id"]]
    assert found.matches == engine.match(page)
    assert found.keys.tolist() == engine.query_keys(engine.letters(page))
    short = page[:40]  # under min_text_letters: not looked up, but its keys are given
    assert len(engine.letters(short)) < engine.config.min_text_letters
    assert engine.match_with_keys(short).keys.tolist() == engine.query_keys(engine.letters(short))


def test_different_chapters_of_the_same_novel_do_not_match(engine, chapters):
    _index_chapters(engine, chapters, which=(0, 2))
    assert engine.match(chapters[1]["text"]) == []
    assert engine.match(PORTAL + chapters[1]["text"][:2000]) == []


@pytest.mark.parametrize("edit", ["site", "sub1", "sub3", "homo5", "trad", "reorder", "del10",
                                  "combo"])
def test_a_chapter_is_found_after_each_reprint_edit(engine, chapters, edits, edit):
    _index_chapters(engine, chapters)
    text = chapters[1]["text"]
    page = {
        "site": lambda: edits.site(text),
        "sub1": lambda: edits.substitute(text, 0.01),
        "sub3": lambda: edits.substitute(text, 0.03),
        "homo5": lambda: edits.homophones(text, 0.05),
        "trad": lambda: edits.traditional(text),
        "reorder": lambda: edits.reorder(text),
        "del10": lambda: edits.delete_sentences(text, 0.10),
        "combo": lambda: edits.site(edits.traditional(edits.homophones(edits.substitute(
            edits.delete_sentences(edits.reorder(text), 0.05), 0.01), 0.03))),
    }[edit]()
    matches = engine.match(page)
    assert [m.work_id for m in matches] == [chapters[1]["id"]]
    m = matches[0]
    assert m.containment_work > 0.75
    for p in m.passages:
        assert 0 <= p.page_start < p.page_end <= len(page)
        assert 0 <= p.work_start < p.work_end <= len(text)


def test_homophones_and_traditional_passages_align_character_by_character(engine, chapters,
                                                                          edits):
    _index_chapters(engine, chapters, which=(2,))
    text = chapters[2]["text"]
    begin, excerpt = _paragraph_of(text, 400, 1000)
    page = edits.traditional(edits.homophones(excerpt, 0.05))
    (m,) = engine.match(page)
    (p,) = m.passages
    # the page passage has the same length and position as its source (1:1 character edits)
    assert p.page_end - p.page_start == p.work_end - p.work_start
    assert abs(p.work_start - begin - p.page_start) <= 1


def test_fixed_mode_finds_copies_but_loses_shifted_windows(chapters):
    text = chapters[0]["text"]
    fixed = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(window_mode="fixed"))
    content = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())
    for eng in (fixed, content):
        eng.add_work("w", text)
        assert eng.match(text)[0].work_id == "w"
    shifted = "本站首发，请勿转载。" + text
    hits_fixed = dict(fixed.candidates(fixed.letters(shifted))).get("w", 0)
    hits_content = dict(content.candidates(content.letters(shifted))).get("w", 0)
    assert hits_content > 5 * max(hits_fixed, 1)


def test_version_and_letters_are_recorded_with_each_work(engine, chapters):
    text = chapters[0]["text"]
    n = engine.add_work("w", text)
    record = engine.store.get("w")
    assert record["version"] == FINGERPRINT_VERSION
    assert record["text"] == text
    assert len(record["letters"]) == len(record["offsets"]) > 4000
    assert n == engine.index.stats()["windows"] > 100
    assert engine.has_work("w") and not engine.has_work("other")


def test_empty_and_letterless_texts_raise_and_index_nothing(engine):
    for text in ("", "１２３４。，！", "    ", "床前明月光，疑是地上霜。举头望明月，低头思故乡。"):
        with pytest.raises(EmptyTextError):
            engine.add_work("w", text)
    assert issubclass(EmptyTextError, ValueError)
    assert engine.index.stats()["windows"] == 0 and engine.store.count() == 0
    assert engine.match("") == []


def test_texts_over_the_size_limit_are_refused_before_any_work(chapters):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(max_text_chars=5000))
    with pytest.raises(TextTooLargeError):
        engine.add_work("w", chapters[0]["text"])
    with pytest.raises(TextTooLargeError):
        engine.match(chapters[0]["text"])
    assert engine.store.count() == 0 and engine.index.stats()["windows"] == 0
    engine.add_work("w", chapters[0]["text"][:5000])
    assert engine.match(chapters[0]["text"][:5000])[0].work_id == "w"


def test_bad_arguments_raise_clear_errors(engine):
    with pytest.raises(ValueError):
        engine.add_work("", "正文")
    with pytest.raises(TypeError):
        engine.add_work("w", b"\xe6\xad\xa3")
    with pytest.raises(TypeError):
        engine.match(None)


def test_replace_and_remove_a_work(engine, chapters):
    a, b = chapters[0]["text"], chapters[1]["text"]
    engine.add_work("w", a)
    engine.add_work("w", b)  # replaces
    assert engine.index.stats()["works"] == 1
    assert [m.work_id for m in engine.match(b)] == ["w"]
    assert engine.match(a) == []
    assert engine.remove_work("w") is True
    assert engine.match(b) == [] and not engine.has_work("w")
    assert engine.remove_work("w") is False


def test_rebuild_index_restores_matching_after_an_index_loss(engine, chapters):
    _index_chapters(engine, chapters)
    windows = engine.index.stats()["windows"]
    engine.index.clear()
    assert engine.match(chapters[0]["text"]) == []
    assert engine.rebuild_index() == 3
    assert engine.index.stats()["windows"] == windows
    assert engine.match(chapters[0]["text"])[0].work_id == chapters[0]["id"]


def test_rebuild_index_reconverts_records_of_another_letter_table(engine, chapters):
    engine.add_work("w", chapters[1]["text"])
    record = dict(engine.store.get("w"), letter_table="lt0", letters="", offsets=[])
    engine.store.put("w", record)
    engine.index.clear()
    engine._cache.clear()
    assert engine.rebuild_index() == 1
    assert engine.store.get("w")["letter_table"] == engine.table.version
    (m,) = engine.match(chapters[1]["text"][:2000])
    assert m.passages[0].work_start < 5


def test_match_to_dict_is_json_ready(engine, chapters):
    _index_chapters(engine, chapters, which=(1,))
    (m,) = engine.match(chapters[1]["text"])
    assert isinstance(m, Match)
    d = json.loads(json.dumps(m.to_dict()))
    assert set(d) == {"work_id", "score", "containment_page", "containment_work", "passages",
                      "same_text", "kind", "part_of", "parts"}
    assert d["same_text"] == [m.work_id] and d["kind"] == "copy"
    assert d["part_of"] == d["parts"] == []
    assert set(d["passages"][0]) == {"page_start", "page_end", "work_start", "work_end"}
    assert d["score"] == pytest.approx(1.0, abs=0.01)


def test_redis_index_and_mongo_store_give_the_same_matches(redis_client, mongo_db, chapters):
    engine = Engine(RedisIndex(redis_client, prefix="eng"), MongoWorkStore(mongo_db))
    _index_chapters(engine, chapters)
    begin, excerpt = _paragraph_of(chapters[2]["text"])
    page = PORTAL + excerpt
    memory = Engine(MemoryIndex(), MemoryWorkStore())
    _index_chapters(memory, chapters)
    got = engine.match(page)
    assert [m.to_dict() for m in got] == [m.to_dict() for m in memory.match(page)]
    assert got[0].work_id == chapters[2]["id"]
    assert engine.match(chapters[1]["text"])[0].work_id == chapters[1]["id"]


def _epoch_reads(client) -> int:
    """GET commands the Redis server has answered: a RedisIndex lookup reads its epoch once
    per round trip."""
    return client.info("commandstats").get("cmdstat_get", {}).get("calls", 0)


@pytest.mark.parametrize("index", ["redis", "plain"])
def test_match_many_gives_each_texts_matches_from_one_lookup(redis_client, mongo_db, chapters,
                                                             index):
    shared = RedisIndex(redis_client, prefix="many") if index == "redis" else PlainIndex()
    engine = Engine(shared, MongoWorkStore(mongo_db) if index == "redis" else MemoryWorkStore())
    _index_chapters(engine, chapters)
    texts = [PORTAL + _paragraph_of(chapter["text"])[1] for chapter in chapters]
    texts += [PORTAL + "今日天气晴朗，适合出行。" * 20, "短", chapters[1]["text"][:1200]
              + "\n" + chapters[2]["text"][2000:3000]]
    single = [[m.to_dict() for m in engine.match(t)] for t in texts]
    before = _epoch_reads(redis_client)
    many = engine.match_many(texts)
    if index == "redis":  # one round trip for the seven texts (each match above made one)
        assert _epoch_reads(redis_client) - before == 1
    assert [[m.to_dict() for m in found] for found in many] == single
    assert [[m.work_id for m in found] for found in many[:3]] == [[c["id"]] for c in chapters]
    assert many[3] == many[4] == [] and len(many[5]) == 2
    assert engine.match_many([]) == []


def test_add_work_is_atomic_when_the_index_is_down(chapters):
    down = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5)
    store = MemoryWorkStore()
    engine = Engine(RedisIndex(down, prefix="eng"), store)
    with pytest.raises(IndexUnavailableError):
        engine.add_work("w", chapters[0]["text"])
    assert store.count() == 0  # no half-indexed work: the record was removed again


def test_short_pages_look_up_denser_keys_than_long_ones(engine, chapters):
    text = chapters[0]["text"]
    short, long = engine.letters(text[:900]), engine.letters(text)
    assert len(short) < engine.config.dense_page_letters <= len(long)
    per_letter_short = len(engine.query_keys(short)) / len(short)
    per_letter_long = len(engine.query_keys(long)) / len(long)
    assert per_letter_short > 1.5 * per_letter_long


def test_a_work_re_added_by_another_process_is_verified_against_its_new_text(
        redis_client, mongo_db, chapters):
    # two Celery workers: separate Engines, stores and indexes over one MongoDB and one Redis
    a = Engine(RedisIndex(redis_client, prefix="eng"), CountingMongoWorkStore(mongo_db))
    b = Engine(RedisIndex(redis_client, prefix="eng"), MongoWorkStore(mongo_db))
    old = chapters[0]["text"]
    b.add_work("x", old)
    kept, dropped = old[1500:2300], old[3500:4300]
    assert [m.work_id for m in a.match(PORTAL + kept + "\n" + dropped)] == ["x"]  # a caches x
    # x re-uploaded through b: another chapter first, then only the first 2,500 characters
    prefix = chapters[1]["text"] + "\n"
    new = prefix + old[:2500]
    b.add_work("x", new)
    page = PORTAL + kept + "\n" + dropped
    (m,) = a.match(page)
    assert m.passages
    for p in m.passages:  # offsets into the new text, and only the part it still has
        assert page[p.page_start:p.page_end] == new[p.work_start:p.work_end]
        assert p.work_start >= len(prefix)
        assert p.page_end <= len(PORTAL) + len(kept)
    assert m.passages[0].work_start - len(prefix) < 1500 + 5
    assert a.match(PORTAL + dropped) == []
    assert a.match(PORTAL + chapters[1]["text"][:2000])[0].work_id == "x"
    # the re-add was seen through the index's revisions, not the store's
    assert a.store.calls["revisions"] == 0 and a.store.calls["get"] == 2


def test_match_on_a_redis_index_reads_no_store_revisions(redis_client, mongo_db, chapters):
    store = CountingMongoWorkStore(mongo_db)
    engine = Engine(RedisIndex(redis_client, prefix="eng"), store)
    _index_chapters(engine, chapters)
    for _ in range(2):  # the second round uses the prepared works cached by the first
        for chapter in chapters:
            page = PORTAL + _paragraph_of(chapter["text"])[1]
            assert [m.work_id for m in engine.match(page)] == [chapter["id"]]
    assert engine.match(PORTAL + "今日天气晴朗，适合出行。" * 20) == []
    assert store.calls["revisions"] == 0 and store.calls["get"] == 3


@pytest.mark.parametrize("index", ["memory", "plain"])
def test_engines_sharing_an_index_and_store_see_each_others_re_adds(chapters, index):
    # MemoryIndex reports revisions; an index without lookup_revisions falls back to the store's
    shared = MemoryIndex() if index == "memory" else PlainIndex()
    store = CountingMemoryWorkStore()
    a, b = Engine(shared, store), Engine(shared, store)
    old, other = chapters[0]["text"], chapters[1]["text"]
    b.add_work("x", old)
    page = PORTAL + old[1500:2300]
    assert [m.work_id for m in a.match(page)] == ["x"]  # a caches x
    b.add_work("x", other + "\n" + old[1000:2500])
    (m,) = a.match(page)
    for p in m.passages:  # offsets into the new text
        assert p.work_start >= len(other)
    assert store.calls["revisions"] == (0 if index == "memory" else 2)


def test_candidates_with_equal_hits_are_ordered_by_work_id(chapters):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(max_candidates=1))
    text = chapters[0]["text"]
    engine.add_work("b", text)  # indexed first: first in the index's postings
    engine.add_work("a", text)
    engine.add_work("c", chapters[1]["text"])
    # ordered by id whatever the index's order; the same postings hit in both (the same text
    # registered twice) take one of the max_candidates places together
    found = engine.candidates(engine.letters(text[:1500]))
    assert [work_id for work_id, _ in found] == ["a", "b"] and found[0][1] == found[1][1]
