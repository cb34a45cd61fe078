"""Letters: pinyin first letters, offsets into the original text, boundaries, table data."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from fingerprint import FINGERPRINT_VERSION
from fingerprint.letters import (
    DATA_DIR,
    LATIN_WORD_LETTERS,
    RULES_VERSION,
    default_table,
    to_letters,
)


def test_han_letters_and_offsets_point_at_their_characters():
    text = "宝玉笑道：“好妹妹！”"
    got = to_letters(text)
    assert got.letters == "byxdhmm"
    assert [text[i] for i in got.offsets] == list("宝玉笑道好妹妹")
    assert got.codes.tolist() == [ord(c) - 97 for c in got.letters]
    assert got.text_length == len(text)


def test_offsets_refer_to_the_original_text_when_nfkc_changes_length():
    # "㍿" (U+337F) is one character that NFKC expands to "株式会社" (4 characters);
    # full-width Ｌatin and a compatibility ideograph (U+F900) fold to ordinary forms
    text = "㍿ＡＢＣ公司豈有此理"
    got = to_letters(text)
    assert [text[i] for i in got.offsets] == ["㍿", "Ａ", "Ｂ", "Ｃ", "公", "司", "豈", "有", "此",
                                              "理"]
    assert got.letters[1:6] == to_letters("abc").letters + "gs"
    assert got.letters[6] == to_letters("豈").letters


def test_latin_words_give_hashed_letters_and_pinyin_syllables_match_han():
    text = "Hello, Wörld! pin yin 拼音"
    got = to_letters(text)
    # a word gives min(length, LATIN_WORD_LETTERS) letters from its hash, spread from its
    # first character to its last; a pinyin syllable gives its first letter
    each = min(5, LATIN_WORD_LETTERS)
    assert len(got) == each + each + 2 + 2
    where = [text[i] for i in got.offsets]
    assert where[0] == "H" and where[each - 1] == "o" and where[each] == "W"
    assert where[2 * each - 1] == "d" and where[-4:] == ["p", "y", "拼", "音"]
    assert got.letters[-4:] == "pypy"
    assert np.all(np.diff(got.offsets) > 0)
    # case and accents do not matter, the word does: another inflection is another word
    assert to_letters("WORLD world").letters == to_letters("Wörld").letters * 2
    assert to_letters("worlds").letters != to_letters("world").letters
    assert len(to_letters("a of the").letters) == 1 + 2 + min(3, LATIN_WORD_LETTERS)
    assert to_letters("ni hao").letters == to_letters("你好").letters
    # the same word gives the same letters in any text (a stable hash, not Python's)
    assert to_letters("copyright").letters == \
        to_letters("本站 copyright 所有").letters[2:2 + LATIN_WORD_LETTERS]


def test_hashed_letters_follow_the_reference_distribution():
    words = " ".join(f"w{i}x{i * 7}q" for i in range(3000)).replace("0", "o").replace(
        "1", "l").translate(str.maketrans("23456789", "abcdefgh"))
    got = to_letters(words)
    freq = json.loads((DATA_DIR / "reference_distribution.json").read_text())["frequency"]
    counts = np.bincount(got.codes, minlength=26) / len(got)
    for letter in "dsyjz":  # the five most frequent pinyin initials
        assert abs(counts[ord(letter) - 97] - freq[letter]) < 0.02


def test_digits_give_digit_letters_and_punctuation_marks_boundaries():
    text = "一二三。１２３，四五！六？"
    got = to_letters(text)
    # digit d gives code 26 + d % 5 ('{' to DEL), full-width digits like ASCII ones
    assert got.letters == "yes|}~swl"
    assert [text[i] for i in got.offsets][3:6] == ["１", "２", "３"]
    # boundaries are letter positions where a new sentence starts (after 。 ！ ？)
    assert got.boundaries.tolist() == [3, 8]
    assert to_letters("0123456789").codes.tolist() == [26, 27, 28, 29, 30] * 2
    assert to_letters("2016年").letters == to_letters("２０１６年").letters
    assert to_letters("2016年").letters != to_letters("2018年").letters
    assert len(to_letters("，。!?").letters) == 0
    assert len(to_letters("").letters) == 0


def test_astral_surrogate_and_unknown_characters_do_not_break_offsets():
    text = "\U00020000好\ud800的😀a"
    got = to_letters(text)
    assert [text[i] for i in got.offsets] == ["\U00020000", "好", "的", "a"]


def test_non_str_input_is_a_type_error():
    with pytest.raises(TypeError):
        to_letters(b"bytes")


def test_traditional_script_gives_the_same_letters(chapters):
    from opencc import OpenCC

    simp = chapters[0]["text"]
    trad = OpenCC("s2t").convert(simp)
    a, b = to_letters(simp).letters, to_letters(trad).letters
    assert len(a) == len(b) > 4000
    differ = sum(x != y for x, y in zip(a, b, strict=True))
    assert differ / len(a) < 0.002


def test_homophones_give_the_same_letters(edits, chapters):
    text = chapters[1]["text"][:2000]
    changed = edits.homophones(text, 0.05)
    assert changed != text
    assert to_letters(changed).letters == to_letters(text).letters


def test_polyphones_get_one_letter_each_from_the_versioned_table():
    # one letter per character, whatever the context: indexing and querying agree
    assert to_letters("银行").letters[1] == to_letters("行走").letters[0]
    table = default_table()
    assert FINGERPRINT_VERSION.startswith(table.version + "-")


def test_letter_table_file_records_its_version_and_measurements():
    with gzip.open(DATA_DIR / "letter_table.json.gz", "rt", encoding="utf-8") as f:
        record = json.load(f)
    # the conversion rules (digits, Latin words) version the table further
    assert default_table().version == record["version"] + RULES_VERSION
    assert 0 < record["measured"]["disagreement_with_phrase_mode"] < 0.05
    assert set(record["table"]) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ|.")


def test_letters_are_only_pinyin_initial_letters_on_chinese_text(chapters):
    got = to_letters(chapters[2]["text"])
    assert not set(got.letters) & set("iuv")
    assert np.all(np.diff(got.offsets) > 0)


def test_an_index_of_the_one_letter_per_word_rules_is_refused_with_the_reindex_message(tmp_path):
    # rules r2 gave one letter per Latin word: its keys are not comparable with these
    from fingerprint.index import IndexVersionError, MemoryIndex

    assert RULES_VERSION != "r2" and f"{RULES_VERSION}-" in FINGERPRINT_VERSION
    old = MemoryIndex(version=FINGERPRINT_VERSION.replace(f"{RULES_VERSION}-", "r2-", 1))
    old.add("a", [(1, 0)])
    old.save(tmp_path)
    with pytest.raises(IndexVersionError, match="r2-.*rebuild the index"):
        MemoryIndex.load(tmp_path)

