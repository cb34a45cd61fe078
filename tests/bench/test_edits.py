"""The reprint edits change what they claim and nothing else."""

from __future__ import annotations

import random
import re

import pytest
from pypinyin import lazy_pinyin

from bench.edits import (
    EDITS,
    EXCERPT_CHARS,
    combination,
    delete_sentences,
    excerpt,
    header_footer,
    homophone_map,
    homophones,
    reorder,
    reword,
    sentences,
    substitute,
    traditional,
)

CJK = re.compile(r"[\u4e00-\u9fff]")


def changed(before: str, after: str) -> list[int]:
    assert len(before) == len(after)
    return [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]


@pytest.mark.parametrize("rate", [0.01, 0.03])
def test_substitute_replaces_that_share_of_cjk_characters(work_text, kit, rate):
    out = substitute(work_text, rate, random.Random(1), kit)
    diffs = changed(work_text, out)
    assert len(diffs) == round(rate * len(CJK.findall(work_text)))
    assert all(CJK.match(work_text[i]) and CJK.match(out[i]) for i in diffs)


def test_homophones_keep_the_reading(work_text, kit):
    out = homophones(work_text, 0.05, random.Random(2), kit)
    diffs = changed(work_text, out)
    assert len(diffs) == round(0.05 * len(CJK.findall(work_text)))
    for i in diffs:
        assert lazy_pinyin(out[i]) == lazy_pinyin(work_text[i])


def test_homophone_map_groups_by_toneless_reading():
    mapping = homophone_map(["是", "事", "市", "中", "人"])
    assert sorted(mapping["是"]) == ["事", "市"]
    assert "中" not in mapping and "人" not in mapping


def test_sentences_partition_the_text(work_text):
    pieces = sentences(work_text)
    assert "".join(pieces) == work_text
    assert all(p.endswith(("。", "！", "？", "；", "\n", "”")) or p is pieces[-1] for p in pieces)


def test_delete_sentences_removes_whole_sentences_within_the_rate(work_text, kit):
    pieces = sentences(work_text)
    content = [p for p in pieces if CJK.search(p)]
    budget = 0.1 * sum(map(len, content))
    for seed in range(5):
        out = delete_sentences(work_text, 0.10, random.Random(seed), kit)
        kept = [p for p in pieces if p in out]
        assert "".join(kept) == out
        deleted = len(work_text) - len(out)
        assert 0 < deleted <= budget
        # no kept sentence would still have fitted in what is left of the 10%
        assert all(len(p) > budget - deleted for p in content if p in kept)


def test_delete_sentences_never_deletes_the_whole_text(kit):
    # a text whose sentences are all longer than 10% of it loses one clause, never everything
    one = "本院认为，原告的诉讼请求缺乏事实依据，本院不予支持。"
    out = delete_sentences(one, 0.10, random.Random(1), kit)
    clauses = ("本院认为，", "原告的诉讼请求缺乏事实依据，", "本院不予支持。")
    assert out in [one.replace(clause, "") for clause in clauses]
    two = "原告诉称被告违法。本院认为原告的请求不能成立。"
    for seed in range(5):
        out = delete_sentences(two, 0.10, random.Random(seed), kit)
        assert out in ("原告诉称被告违法。", "本院认为原告的请求不能成立。")


def test_delete_sentences_keeps_most_of_a_short_text(kit):
    # deleting one of two sentences would remove most of this text: clauses go instead
    text = ("原告武泽溪请求撤销被告天津市红桥区房地产管理局作出的《房屋拆迁裁决书》以及"
            "天津市红桥区人民政府作出的《行政复议决定书》一案，2018年7月23日，向本院提起诉讼。"
            "本院受理后，依法组成合议庭进行了审理，现已审理终结。")
    for seed in range(5):
        out = delete_sentences(text, 0.10, random.Random(seed), kit)
        assert out != text
        assert len(out) >= 0.85 * len(text)


def test_reorder_keeps_the_paragraphs_in_another_order(work_text, kit):
    out = reorder(work_text, random.Random(4), kit)
    assert out != work_text
    assert sorted(out.split("\n")) == sorted(work_text.split("\n"))


def test_reorder_cuts_a_single_paragraph_into_blocks(kit):
    text = "".join(f"这是第{i}句话。" for i in range(120))
    out = reorder(text, random.Random(5), kit)
    blocks = out.split("\n")
    assert len(blocks) >= 3 and out.replace("\n", "") != text
    assert sorted(sentences("".join(blocks))) == sorted(sentences(text))


def test_traditional_converts_characters(work_text, kit):
    out = traditional(work_text, random.Random(0), kit)
    assert "發展" in out and "发展" not in out


def test_header_footer_surrounds_the_text_with_real_boilerplate(work_text, kit):
    out = header_footer(work_text, random.Random(6), kit)
    for paragraph in work_text.split("\n"):
        assert paragraph in out
    first, last = out.split("\n")[0], out.split("\n")[-1]
    assert "新浪首页" in first or "新闻" in first
    assert last in {"Copyright © 1996-2018 SINA Corporation", "新浪公司 版权所有"}
    assert len(out) - len(work_text) >= 100


def test_excerpt_embeds_300_characters_in_the_host(work_text, kit):
    out = excerpt(work_text, random.Random(7), kit)
    host = kit.hosts[0].text
    assert len(out) == len(host) + EXCERPT_CHARS + 1
    spots = [i for i in range(len(out) - EXCERPT_CHARS)
             if out[i:i + EXCERPT_CHARS] in work_text
             and out[:i] + out[i + EXCERPT_CHARS + 1:] == host]
    assert spots and out[spots[0] - 1] == "\n"


def test_excerpt_copies_a_short_text_whole(kit):
    out = excerpt("一份很短的判决书。", random.Random(0), kit)
    assert "\n一份很短的判决书。\n" in out
    assert out.replace("一份很短的判决书。\n", "") == kit.hosts[0].text


def test_combination_is_traditional_and_shorter_in_content(work_text, kit):
    out = combination(work_text, random.Random(8), kit)
    assert "發展" in out
    assert "新浪首頁" in out or "新聞" in out


def test_every_edit_is_deterministic_for_a_seed(work_text, kit):
    for name, edit in EDITS.items():
        assert edit(work_text, random.Random(9), kit) == edit(work_text, random.Random(9), kit), \
            name


ANSWER = ("The import statement finds a module, loads it and binds a name in the local "
          "namespace. Several forms exist and each one can bind different names. In version 3 "
          "of the language, relative imports must use the explicit form with leading dots.")


def test_reword_changes_a_fifth_of_the_words_of_each_sentence_and_keeps_numbers(kit):
    page = reword(ANSWER, random.Random(4), kit)
    start = page.index(ANSWER.split()[0])
    body = page[start:start + len(ANSWER) + 60].split("\n")[0]
    for before, after in zip(re.split(r"(?<=[.])\s+", ANSWER),
                             re.split(r"(?<=[.])\s+", body), strict=False):
        words, new = before.split(), after.split()
        assert len(new) == len(words) or " " in after  # a synonym may have two words
        differ = sum(a != b for a, b in zip(words, new, strict=False))
        assert 1 <= differ <= round(0.2 * len(words)) + 1, (before, after)
    assert " 3 " in body  # numbers are never reworded or moved
    assert reword(ANSWER, random.Random(4), kit) == page

