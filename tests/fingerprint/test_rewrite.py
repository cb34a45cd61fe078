"""The rewrite stage (洗稿): sentence alignment properties, the engine's rewritten matches, and
bad input (repeated sentences, function words only, no Han words, a class covering everything,
a page of 10,000 sentences). Texts: the real 红楼梦 chapters and People's Daily news of
tests/fingerprint/fixtures/engine; rewrites made here by a generator of the test's own."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fingerprint import Engine, EngineConfig
from fingerprint.index import MemoryIndex
from fingerprint.rewrite import (
    AlignLimits,
    SynonymClasses,
    align_sentences,
    default_classes,
    judge_rewrite,
)
from fingerprint.rewrite.build_classes import MAX_CLASS_WORDS, read_cilin
from fingerprint.store import MemoryWorkStore
from tests.examples import examples

CONFIG = EngineConfig()
LIMITS = AlignLimits(CONFIG.rewrite_pair_score, CONFIG.rewrite_min_shared,
                     CONFIG.rewrite_max_unit_ratio, CONFIG.rewrite_max_token_sentences)
FUNCTION_WORDS = ("的", "了", "就", "都", "也", "便", "又", "却", "还")
_SENTENCE = re.compile(r"[^。！？；\n]*(?:[。！？；]+[”’」』]?|\n|$)")


def rewrite(text: str, rng: random.Random, swap: float, move: float, split: bool) -> str:
    """A 洗稿 of ``text``: ``swap`` of its words that have a synonym (another word of their
    class) replaced by one, function words dropped at the same rate, ``move`` of the adjacent
    sentence pairs swapped, and with ``split`` each sentence cut at its first inner comma."""
    import jieba

    classes = default_classes()
    words = jieba.lcut(text, HMM=False)
    for i, word in enumerate(words):
        token = classes.word_class.get(word)
        if token and rng.random() < swap:
            others = [w for w in classes.classes[int(token[1:])] if w != word]
            words[i] = rng.choice(others) if others else word
        elif word in FUNCTION_WORDS and rng.random() < swap:
            words[i] = ""
    pieces = [m.group() for m in _SENTENCE.finditer("".join(words)) if m.group()]
    for i in range(0, len(pieces) - 1, 2):
        if rng.random() < move and "\n" not in pieces[i] + pieces[i + 1]:
            pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
    if split:
        pieces = [re.sub(r"^(.{6,}?)，(.{6,})", r"\1。\2", p) for p in pieces]
    return "".join(pieces)


def verdict(work_text: str, page_text: str, classes: SynonymClasses | None = None):
    classes = classes or default_classes()
    return judge_rewrite(classes.sentences(work_text), classes.sentences(page_text), LIMITS,
                         CONFIG.rewrite_min_tokens, CONFIG.rewrite_min_share,
                         CONFIG.rewrite_min_pairs)


@pytest.fixture(scope="module")
def texts(chapters, daily) -> list[str]:
    return [c["text"] for c in chapters] + daily["news"]


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 4), st.integers(0, 2**32), st.floats(0.0, 0.6), st.floats(0.0, 0.6),
       st.booleans())
def test_a_rewrite_aligns_back_to_its_text(texts, which, seed, swap, move, split):
    text = texts[which]
    page = rewrite(text, random.Random(seed), swap, move, split)
    found = verdict(text, page)
    assert found is not None
    assert found.score >= 0.5
    work = default_classes().sentences(text)
    assert all(p.work < len(work) for p in found.pairs)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 2**32), st.floats(0.0, 0.6))
def test_unrelated_texts_do_not_align(texts, a, b, seed, swap):
    if a == b:
        return
    page = rewrite(texts[b], random.Random(seed), swap, swap, True)
    assert verdict(texts[a], page) is None


def test_moved_sentences_are_marked(texts):
    page = rewrite(texts[0], random.Random(1), 0.3, 1.0, False)
    found = verdict(texts[0], page)
    assert found is not None and any(p.moved for p in found.pairs)
    assert not any(p.moved for p in verdict(texts[0], texts[0]).pairs)


@pytest.fixture(scope="module")
def rewrite_engine(chapters, daily) -> Engine:
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(),
                    rewrite_index=MemoryIndex())
    for chapter in chapters:
        engine.add_work(chapter["id"], chapter["text"])
    for n, text in enumerate(daily["news"]):
        engine.add_work(f"news-{n}", text)
    return engine


def test_a_heavy_rewrite_is_reported_rewritten(rewrite_engine, chapters):
    chapter = chapters[1]
    page = rewrite(chapter["text"], random.Random(2), 0.8, 0.5, True)  # the letters no longer align
    first_only = Engine(rewrite_engine.index, rewrite_engine.store,
                        EngineConfig(rewrite_stage=False))
    assert chapter["id"] not in {m.work_id for m in first_only.match(page)}
    matches = rewrite_engine.match(page)
    assert [(m.work_id, m.kind) for m in matches] == [(chapter["id"], "rewritten")]
    match = matches[0]
    assert CONFIG.rewrite_min_share <= match.score <= 1.0
    assert match.passages and all(page[p.page_start:p.page_end].strip() for p in match.passages)
    assert match.to_dict()["kind"] == "rewritten"


def test_text_that_three_works_share_makes_no_candidate(chapters, daily):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(), rewrite_index=MemoryIndex())
    shared = daily["news"][0]  # a clause three registered works hold: template, no evidence
    for n, chapter in enumerate(chapters):
        engine.add_work(f"w{n}", chapter["text"][:3000] + "\n" + shared)
    stage = engine.rewrite
    assert stage.candidates(stage.keys(rewrite(shared, random.Random(4), 0.5, 0.5, True))) \
        == []
    own = rewrite(chapters[1]["text"][:3000], random.Random(4), 0.5, 0.5, True)
    assert stage.candidates(stage.keys(own))[0] == "w1"


def test_a_copy_stays_a_copy(rewrite_engine, chapters):
    matches = rewrite_engine.match(chapters[0]["text"])
    assert [(m.work_id, m.kind) for m in matches] == [(chapters[0]["id"], "copy")]


def test_a_removed_work_is_not_found_rewritten(chapters, daily):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(), rewrite_index=MemoryIndex())
    engine.add_work("c", chapters[2]["text"])
    page = rewrite(chapters[2]["text"], random.Random(3), 0.6, 0.5, True)
    assert engine.match(page)
    engine.remove_work("c")
    assert engine.match(page) == []


# -- bad input ---------------------------------------------------------------------------------


def test_a_page_of_one_repeated_sentence(rewrite_engine, chapters):
    sentence = chapters[0]["text"].split("。")[3] + "。"
    assert rewrite_engine.match(sentence * 2000) == [] or all(
        m.kind == "copy" for m in rewrite_engine.match(sentence * 2000))
    # nor does a work made of it find itself rewritten in a page of its own sentences
    assert verdict(sentence * 50, sentence * 200) is None


def test_a_page_of_function_words_only(rewrite_engine):
    page = "。".join("的了就都也便又却还" for _ in range(500)) + "。"
    assert default_classes().sentences(page) == []
    assert rewrite_engine.match(page) == []


def test_words_forgotten_past_the_limit_are_cut_alike(chapters, monkeypatch):
    # a long-running worker forgets the words it has seen once it holds _MAX_SEEN of them
    texts = [chapter["text"][:2000] for chapter in chapters]
    fresh = SynonymClasses(default_classes().classes, default_classes().stop)
    expected = [[(s.start, s.end, s.token_codes.tolist(), s.words) for s in fresh.sentences(t)]
                for t in texts]
    monkeypatch.setattr("fingerprint.rewrite.classes._MAX_SEEN", 50)
    small = SynonymClasses(default_classes().classes, default_classes().stop)
    for _ in range(2):
        got = [[(s.start, s.end, s.token_codes.tolist(), s.words) for s in small.sentences(t)]
               for t in texts]
        assert got == expected
        assert len(small._seen) < len(fresh._seen)  # forgotten before the last text


def test_a_page_with_lone_surrogates_is_judged(rewrite_engine, chapters):
    # text decoded with surrogateescape: rjieba refuses it; the stage cuts U+FFFD instead
    page = rewrite(chapters[1]["text"], random.Random(2), 0.8, 0.5, True).replace("，", "\udcff，")
    assert [(m.work_id, m.kind) for m in rewrite_engine.match(page)] == [
        (chapters[1]["id"], "rewritten")]
    sentence = default_classes().sentences("我们今天去北京\udcff看长城。")[0]
    assert [w for w, _ in sentence.words] == ["北京", "长城"] and sentence.end == 12


def test_a_work_without_han_words(chapters):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(), rewrite_index=MemoryIndex())
    work = " ".join(f"{n} abc-{n * 7} xyz." for n in range(400))
    engine.add_work("latin", work)
    assert engine.rewrite.postings(work) == []
    assert all(m.kind == "copy" for m in engine.match(chapters[0]["text"] + work))
    assert engine.match(chapters[0]["text"]) == []


def test_a_class_covering_the_whole_language(texts):
    import jieba

    every_word = sorted({w for t in texts for w in jieba.lcut(t, HMM=False)})
    huge = SynonymClasses([every_word], frozenset())
    # every word is one token: no sentence keeps the tokens a pair needs
    assert verdict(texts[0], texts[1], huge) is None
    assert verdict(texts[0], texts[3], huge) is None


def test_the_build_drops_classes_too_large(tmp_path):
    big = " ".join(f"词{chr(0x4e00 + n)}" for n in range(MAX_CLASS_WORDS + 1))
    (tmp_path / "cilin.txt").write_text(f"Aa01A01= 人物 人士\nAa01A02= {big}\nAa01A03# 相关 关联\n",
                                        encoding="utf-8")
    assert read_cilin(tmp_path / "cilin.txt") == [["人物", "人士"]]


def test_a_page_of_ten_thousand_sentences(rewrite_engine, chapters, daily):
    lines = [s for c in chapters[:1] for s in c["text"].split("。") if s.strip()]
    rng = random.Random(5)
    page = "。".join(rng.choice(lines) for _ in range(10_000)) + "。"
    matches = rewrite_engine.match(page)
    assert all(m.kind == "copy" for m in matches)  # its sentences are copied, not rewritten
    noise = "。".join(f"第{n}号文件已经收到" for n in range(10_000)) + "。"
    assert rewrite_engine.match(noise) == []
    kept = rewrite_engine.rewrite.sentences(noise)  # the page's first sentences, unchanged
    assert len(kept) == CONFIG.rewrite_max_page_sentences

    def shown(sentence):
        return (sentence.start, sentence.end, sentence.token_codes.tolist(),
                sentence.char_codes.tolist(), sentence.number_codes.tolist(), sentence.words)

    assert list(map(shown, kept)) == list(map(shown, default_classes().sentences(noise)[:len(kept)]))


def test_a_long_work_and_a_long_page_align_in_bounded_memory(chapters):
    import tracemalloc

    lines = [s for c in chapters for s in c["text"].split("。") if s.strip()]
    rng = random.Random(7)
    work = default_classes().sentences("。".join(rng.choice(lines) for _ in range(20_000)) + "。")
    page = default_classes().sentences("。".join(rng.choice(lines) for _ in range(5_000)) + "。")
    assert len(work) > 15_000 and len(page) > 4_000
    tracemalloc.start()
    try:
        align_sentences(work, page, LIMITS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the page's codes and one row of counts (27 MB); the (work x page) count arrays the
    # alignment once built took 18.6 GB here
    assert peak < 64 << 20


def test_explain_marks_the_synonyms_and_the_moved_sentences(texts):
    from fingerprint.rewrite.explain import explain
    from fingerprint.rewrite.stage import RewriteStage

    page = rewrite(texts[0], random.Random(1), 0.5, 1.0, False)
    shown = explain(RewriteStage(CONFIG), texts[0], page)
    assert len(shown) >= 50 and any(p.moved for p in shown)
    classes = default_classes().word_class
    marked = [(word, other) for p in shown for word, other in p.work if other]
    assert marked and all(classes[word] == classes[other] for word, other in marked)
    assert all("".join(text for text, _ in p.page) in page for p in shown)
    assert all("".join(text for text, _ in p.work) in texts[0] for p in shown)
