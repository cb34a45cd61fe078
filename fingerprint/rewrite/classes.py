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
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import accumulate
from pathlib import Path

import numpy as np

from fingerprint.rewrite.english import english_token

CLASSES_FILE = Path(__file__).resolve().parents[1] / "data" / "synonym_classes.json.gz"
_ENDS = frozenset("。！？!?；;…\n")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_DIGITS = re.compile(r"[0-9０-９]+")
_FOLD = str.maketrans("０１２３４５６７８９", "0123456789")
_MAX_SEEN = 500_000  # words whose token is remembered (a dictionary's worth)


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``start``, ``end`` (character offsets in its text, end exclusive),
    ``hashes`` (the CRC-32 of each distinct token, what the rewrite keys are made of),
    ``numbers`` (its runs of digits, full-width folded to ASCII, leading zeros dropped) and
    ``found`` ((word, (token, hash, characters)) of each kept word, in order). Derived on
    first use, so that a page without candidates pays for its keys only: ``tokens`` (distinct
    tokens), ``chars`` (distinct Han characters of its words, and the pairs of adjacent stems
    of its English words) and ``words`` ((word, token) of
    each kept word: what the evidence view marks)."""

    start: int
    end: int
    hashes: frozenset[int]
    numbers: frozenset[str]
    found: tuple[tuple[str, tuple[str, int, tuple[str, ...]]], ...]

    @cached_property
    def tokens(self) -> frozenset[str]:
        return frozenset(k[0] for _, k in self.found)

    @cached_property
    def chars(self) -> frozenset[str]:
        stems = [k[0] for _, k in self.found if not k[2]]  # English words
        return frozenset([c for _, k in self.found for c in k[2]]
                         + [a + b for a, b in zip(stems, stems[1:], strict=False)])

    @cached_property
    def token_codes(self) -> np.ndarray:
        """``hashes`` as an int64 array (what the alignment counts)."""
        return np.fromiter(self.hashes, dtype=np.int64, count=len(self.hashes))

    @cached_property
    def char_codes(self) -> np.ndarray:
        """``chars`` as an int64 array: a Han character's code point, an English stem's CRC-32
        above 2**32."""
        try:
            return np.fromiter(map(ord, self.chars), dtype=np.int64, count=len(self.chars))
        except TypeError:  # an English stem: more than one character
            return np.fromiter((ord(c) if len(c) == 1 else zlib.crc32(c.encode()) | 1 << 32
                                for c in self.chars), dtype=np.int64, count=len(self.chars))

    @cached_property
    def words(self) -> tuple[tuple[str, str], ...]:
        return tuple((w, k[0]) for w, k in self.found)


_END = ("end",)  # a word that ends a sentence (``_ENDS``)
_STOP = ("full stop",)  # a full stop: it ends a sentence before a space or at the end


class _Seen(dict):
    """word -> (token, its CRC-32, its Han characters), None for a word without token, or
    ``_END`` / ``_STOP`` (compared by identity); each word's entry made once, on its first
    lookup."""

    def __init__(self, token):
        super().__init__()
        self._token = token

    def __missing__(self, word: str):
        if word[-1] in _ENDS:
            self[word] = _END
            return _END
        if word == ".":
            self[word] = _STOP
            return _STOP
        token = self._token(word)
        known = None if token is None else (token, zlib.crc32(token.encode("utf-8")),
                                            tuple(_HAN.findall(word)))
        self[word] = known
        return known


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
        # word -> (token, its hash, its Han characters), or None: each word looked up once
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
        """The sentences of ``text`` (str) that keep at least one token, in order: cut after
        a word ending in 。！？!?；;… or a line end, and after a full stop followed by a space
        or the end. Words by rjieba (jieba-rs: jieba's
        algorithm and dictionary in Rust, the same words as ``jieba.lcut`` and ten times as
        fast) in dictionary mode (no HMM: new words are not guessed, so both texts of a pair
        are cut alike)."""
        import rjieba  # late: its dictionary takes 0.13 s to load, which only the second stage needs

        seen = self._seen
        if len(seen) > _MAX_SEEN:
            seen.clear()
        words = rjieba.cut(text, False)
        known = list(map(seen.__getitem__, words))  # C speed for the words seen before
        ends = list(accumulate(map(len, words)))
        out: list[Sentence] = []
        kept: list[tuple[str, tuple[str, int, tuple[str, ...]]]] = []
        first, last = 0, len(words) - 1
        for n, k in enumerate(known):
            if k is None:
                continue
            if k is _END or k is _STOP and (n == last or words[n + 1][:1].isspace()):
                if kept:
                    out.append(self._sentence(text, ends[first] - len(words[first]), ends[n],
                                              kept))
                    kept = []
                first = n + 1
            elif k is not _STOP:
                kept.append((words[n], k))
        if kept:
            out.append(self._sentence(text, ends[first] - len(words[first]), ends[last], kept))
        return out

    @staticmethod
    def _sentence(text: str, start: int, end: int,
                  words: list[tuple[str, tuple[str, int, tuple[str, ...]]]]) -> Sentence:
        numbers = frozenset(n.translate(_FOLD).lstrip("0") or "0"
                            for n in _DIGITS.findall(text, start, end))
        return Sentence(start, end, frozenset(k[1] for _, k in words), numbers, tuple(words))


@cache
def default_classes() -> SynonymClasses:
    """The shipped classes and stop tokens (loaded once per process)."""
    record = json.loads(gzip.decompress(CLASSES_FILE.read_bytes()))
    return SynonymClasses(record["classes"], frozenset(record["stop"]))
