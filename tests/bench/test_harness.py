"""Scoring, the nshash peer and corpus loading of the benchmark harness."""

from __future__ import annotations

import gzip
import json

import pytest

from bench.corpus import Corpus, CorpusError, Doc, build_news, load_news
from bench.peers import NSHashDetector, longest_sentences, shingles
from bench.run import Query, add_twins, score


def test_score_counts_every_wrong_id_as_a_false_positive():
    queries = [Query("reorder", "a", "..."), Query("reorder", "b", "..."),
               Query("excerpt", "c", "..."), Query("neg:unrelated", None, "...")]
    results = [{"a"}, {"b", "x"}, set(), {"y"}]
    got = score(queries, results)
    assert got["recall"] == {"reorder": 1.0, "excerpt": 0.0}
    assert (got["tp"], got["fp"]) == (2, 2)
    assert got["precision"] == 0.5
    assert got["negatives_hit"] == 1.0


def test_twins_are_registered_and_a_page_is_found_only_with_all_of_them():
    corpus = Corpus("news", [Doc("a", "text a", "news"), Doc("b", "text b", "news")])
    queries = add_twins(corpus, [Query("reorder", "a", "..."), Query("excerpt", "a", "..."),
                                 Query("neg:unrelated", None, "...")], 3)
    assert [d.id for d in corpus.works] == ["a", "b", "a~2", "a~3"]
    assert all(d.text == "text a" for d in corpus.works if d.id.startswith("a"))
    got = score(queries, [{"a", "a~2", "a~3"}, {"a", "a~2"}, set()])
    assert got["recall"] == {"reorder": 1.0, "excerpt": 0.0}
    assert (got["tp"], got["fp"]) == (5, 0)


def test_score_without_any_returned_id_has_no_precision():
    got = score([Query("reorder", "a", "...")], [set()])
    assert got["precision"] is None and got["recall"] == {"reorder": 0.0}


def test_longest_sentences_are_the_five_longest(paragraphs):
    text = "\n".join(paragraphs)
    top = longest_sentences(text)
    assert len(top) == 5
    assert top == sorted(top, key=len, reverse=True)
    assert all(s in text for s in top)


def test_nshash_finds_a_copy_and_not_an_unrelated_text(paragraphs):
    detector = NSHashDetector()
    detector.index("w", "\n".join(paragraphs[:4]))
    detector.commit()
    assert detector.query("头条新闻\n" + "\n".join(paragraphs[:4])) == {"w"}
    assert detector.query("\n".join(paragraphs[4:])) == set()


def test_shingles_ignore_whitespace():
    assert shingles("一二 三四\n五六", 5) == {"一二三四五".encode(), "二三四五六".encode()}
    assert shingles("短", 5) == {"短".encode()}


def write_news(folder, paragraphs, copies):
    path = folder / "peoples_daily_199801_dev.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for i in range(copies):
            for j, text in enumerate(paragraphs):
                record = {"id": f"pd-{i}-{j}", "title": "", "text": f"{i}号：{text}"}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return folder


def test_load_news_groups_consecutive_paragraphs(tmp_path, paragraphs):
    docs = load_news(write_news(tmp_path, paragraphs, 3))
    joined = "\n".join(doc.text for doc in docs)
    assert all(len(doc.text) >= 500 or doc is docs[-1] for doc in docs)
    assert joined.startswith("0号：" + paragraphs[0])
    assert all(doc.group == "news" for doc in docs)


def test_missing_data_is_a_clear_error(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        build_news(10, 5, 5, data_dir=tmp_path)


def test_too_little_text_for_the_sizes_is_a_clear_error(tmp_path, paragraphs):
    with pytest.raises(CorpusError, match="asked: lower the sizes"):
        build_news(50, 10, 10, data_dir=write_news(tmp_path, paragraphs, 2))


def test_longest_sentences_break_ties_in_text_order():
    text = "甲乙丙。丁戊己。庚辛壬。癸子丑。寅卯辰。巳午未。"
    assert longest_sentences(text) == ["甲乙丙", "丁戊己", "庚辛壬", "癸子丑", "寅卯辰"]
