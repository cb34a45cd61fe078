"""Synonym classes and sentences of the rewrite stage (word segmentation by jieba).

A page or a work is cut into sentences; each sentence's words become
tokens: ``#<n>`` for a word of synonym class n (``fingerprint/data/synonym_classes.json.gz``,
built by ``fingerprint.rewrite.build_classes``), the word itself otherwise; an English word
is its stem (``fingerprint.rewrite.english``); digits, punctuation, English function words
and stop tokens (very frequent ones) are dropped.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Callable
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import numpy as np

from fingerprint.compiled.rewrite import (
    FULL_STOP,
    NO_TOKEN,
    SENTENCE_END,
    WordCodes,
    cut_sentences,
)
from fingerprint.letters import LONE_SURROGATE
from fingerprint.rewrite.english import english_token

CLASSES_FILE = Path(__file__).resolve().parents[1] / "data" / "synonym_classes.json.gz"
_ENDS = frozenset("。！？!?；;…\n")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_MAX_SEEN = 500_000  # words whose token is remembered (a dictionary's worth)


class Sentence(NamedTuple):
    """One sentence: ``start``, ``end`` (character offsets in its text, end exclusive),
    ``token_codes`` (the CRC-32 of each distinct token, ascending, an int64 array: what the
    rewrite keys are made of and what the alignment counts; its length is the sentence's
    token count), ``char_codes`` (an int64 array of its distinct characters: a Han character
    of its words as its code point, a pair of adjacent English stems as the pair's CRC-32
    plus 2**32) and ``number_codes`` (the distinct values of its runs of digits, ASCII or
    full-width, modulo 2**64, as int64). Derived when asked (a tuple: made fast, as every
    page's sentences are): ``words`` ((word, token) of each kept word, in order: what the
    evidence view marks) and ``tokens`` (distinct tokens)."""

    start: int
    end: int
    token_codes: np.ndarray
    char_codes: np.ndarray
    number_codes: np.ndarray
    page_words: list[str]  # the whole text's words
    kept: np.ndarray  # numbers of its kept words in ``page_words``
    entries: dict[str, str]  # word -> token

    def __repr__(self) -> str:
        return f"Sentence({self.start}, {self.end}, {len(self.token_codes)} tokens)"

    @property
    def words(self) -> tuple[tuple[str, str], ...]:
        return tuple((self.page_words[n], self.entries[self.page_words[n]])
                     for n in self.kept.tolist())

    @property
    def tokens(self) -> frozenset[str]:
        return frozenset(token for _, token in self.words)


class Codes(NamedTuple):
    """The codes of a run of sentences, one sentence after the other (what the alignment and
    the keys take): ``tokens``, ``chars`` and ``numbers`` (int64 arrays: each sentence's
    ``token_codes``, ``char_codes`` and ``number_codes`` concatenated) and how many each
    sentence has of each (``token_sizes``, ``char_sizes``, ``number_sizes``: lists of int, one
    per sentence)."""

    tokens: np.ndarray
    token_sizes: list[int]
    chars: np.ndarray
    char_sizes: list[int]
    numbers: np.ndarray
    number_sizes: list[int]


def codes_of(sentences: list[Sentence]) -> Codes:
    """The Codes of ``sentences`` (in their order; empty arrays for none)."""
    if not sentences:
        empty = np.zeros(0, dtype=np.int64)
        return Codes(empty, [], empty, [], empty, [])
    tokens = [s.token_codes for s in sentences]
    chars = [s.char_codes for s in sentences]
    numbers = [s.number_codes for s in sentences]
    return Codes(np.concatenate(tokens), list(map(len, tokens)), np.concatenate(chars),
                 list(map(len, chars)), np.concatenate(numbers), list(map(len, numbers)))


class Cut:
    """A text cut into sentences, kept as the cutter's flat arrays: ``size`` (sentences),
    ``starts`` and ``ends`` (each sentence's character offsets in the text, end exclusive),
    ``codes`` (their Codes); ``sentences()`` builds the ``Sentence`` tuples only when asked
    (a page that matches nothing never needs them)."""

    __slots__ = ("starts", "ends", "codes", "size", "_parts")

    def __init__(self, starts: list[int], ends: list[int], tokens: np.ndarray,
                 token_at: list[int], chars: np.ndarray, char_at: list[int],
                 numbers: np.ndarray, number_at: list[int], kept: np.ndarray,
                 kept_at: list[int], words: list[str], entries: dict[str, str]):
        self.starts, self.ends, self.size = starts, ends, len(starts)
        self.codes = Codes(tokens, _sizes(token_at), chars, _sizes(char_at), numbers,
                           _sizes(number_at))
        self._parts = (token_at, char_at, number_at, kept, kept_at, words, entries)

    def sentences(self) -> list[Sentence]:
        """The sentences, in order."""
        token_at, char_at, number_at, kept, kept_at, words, entries = self._parts
        tokens, _, chars, _, numbers, _ = self.codes
        starts, ends = self.starts, self.ends
        return [Sentence(starts[i], ends[i], tokens[token_at[i]:token_at[i + 1]],
                         chars[char_at[i]:char_at[i + 1]], numbers[number_at[i]:number_at[i + 1]],
                         words, kept[kept_at[i]:kept_at[i + 1]], entries)
                for i in range(self.size)]

    def head(self, n: int) -> Cut:
        """The first ``n`` sentences (this Cut when it has no more)."""
        if n >= self.size:
            return self
        token_at, char_at, number_at, kept, kept_at, words, entries = self._parts
        tokens, _, chars, _, numbers, _ = self.codes
        return Cut(self.starts[:n], self.ends[:n], tokens[:token_at[n]], token_at[:n + 1],
                   chars[:char_at[n]], char_at[:n + 1], numbers[:number_at[n]],
                   number_at[:n + 1], kept[:kept_at[n]], kept_at[:n + 1], words, entries)


def _sizes(at: list[int]) -> list[int]:
    """How many codes each sentence has, from the offsets ``at`` (one more than sentences)."""
    return [b - a for a, b in pairwise(at)]


class _Seen:
    """The words seen: ``codes`` (a WordCodes: word -> the CRC-32 of its token, or
    ``NO_TOKEN``, ``SENTENCE_END`` (a word ending in ``_ENDS``) or ``FULL_STOP``, see
    ``fingerprint.compiled.rewrite``) and ``entries`` (word -> token of each word with one).
    Each word's are made once, on its first lookup."""

    def __init__(self, token: Callable[[str], str | None]) -> None:
        self._token = token
        self.entries: dict[str, str] = {}
        self.codes = WordCodes(self._code)

    def _code(self, word: str) -> int:
        if word[-1] in _ENDS:
            return SENTENCE_END
        if word == ".":
            return FULL_STOP
        token = self._token(word)
        if token is None:
            return NO_TOKEN
        self.entries[word] = token
        return zlib.crc32(token.encode("utf-8"))

    def __len__(self) -> int:
        return len(self.codes)

    def forget(self) -> None:
        """Forget every word (sentences already cut keep the entries they were cut with)."""
        self.codes.clear()
        self.entries = {}


class SynonymClasses:
    """Word -> synonym class, stop tokens, and the sentences of a text.

    ``classes``: lists of words, class n = the n-th list (a word in several: its first);
    ``stop``: tokens dropped from every sentence.
    """

    def __init__(self, classes: list[list[str]], stop: frozenset[str]):
        self.word_class: dict[str, str] = {}
        for n, words in enumerate(classes):
            for word in words:
                self.word_class.setdefault(word, f"#{n}")
        self.classes = classes
        self.stop = stop
        # word -> its token's hash, or a code of no token: each word looked up once
        self._seen = _Seen(self.token)

    def token(self, word: str) -> str | None:
        """The token of a word: its class, else itself; None for a word whose token is a stop
        token. A word without a Han character: its ``english_token`` (None for digits,
        punctuation and English function words)."""
        if not _HAN.search(word):
            return english_token(word)
        token = self.word_class.get(word, word)
        return None if token in self.stop else token

    def sentences(self, text: str) -> list[Sentence]:
        """The sentences of ``text`` (str): ``cut(text).sentences()``."""
        return self.cut(text).sentences()

    def cut(self, text: str) -> Cut:
        """``text`` (str) cut into the sentences that keep at least one token, in order: cut
        after a word ending in 。！？!?；;… or a line end, and after a full stop followed by a
        space or the end (``cut_words`` of its ``words``)."""
        return self.cut_words(self.words(text))

    def words(self, text: str) -> list[str]:
        """The words of ``text`` (str, in order, together the whole text), by rjieba (jieba-rs:
        jieba's algorithm and dictionary in Rust, the same words as ``jieba.lcut`` and ten times
        as fast) in dictionary mode (no HMM: new words are not guessed, so both texts of a pair
        are cut alike). A lone surrogate (text decoded with ``surrogateescape``) is cut as
        U+FFFD, which keeps no token."""
        import rjieba  # late: its dictionary takes 0.1 s to load, which only the second stage needs

        if len(self._seen) > _MAX_SEEN:
            self._seen.forget()
        try:
            return rjieba.cut(text, False)
        except UnicodeEncodeError:  # a lone surrogate: cut as U+FFFD, the offsets unchanged
            return rjieba.cut(LONE_SURROGATE.sub("\ufffd", text), False)

    def cut_words(self, words: list[str]) -> Cut:
        """The Cut of a text's ``words`` (``words(text)``): see ``cut``."""
        seen = self._seen
        return Cut(*cut_sentences(words, seen.codes, seen.entries), words, seen.entries)

    @property
    def word_codes(self) -> WordCodes:
        """Each word seen and the CRC-32 of its token, or a code of no token (see ``_Seen``):
        what ``fingerprint.compiled.rewrite`` reads words with."""
        return self._seen.codes


@cache
def default_classes() -> SynonymClasses:
    """The shipped classes and stop tokens (loaded once per process)."""
    record = json.loads(gzip.decompress(CLASSES_FILE.read_bytes()))
    return SynonymClasses(record["classes"], frozenset(record["stop"]))
