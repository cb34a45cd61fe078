"""Synonym classes and sentences of the rewrite stage (word segmentation by jieba).

A page or a work is cut into sentences; each sentence's words become
tokens: ``#<n>`` for a word of synonym class n (``fingerprint/data/synonym_classes.json.gz``,
built by ``fingerprint.rewrite.build_classes``), the word itself otherwise; tokens of no Han
character (digits, Latin, punctuation) and stop tokens (very frequent ones) are dropped.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CLASSES_FILE = Path(__file__).resolve().parents[1] / "data" / "synonym_classes.json.gz"
_ENDS = frozenset("。！？!?；;…\n")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_DIGITS = re.compile(r"[0-9０-９]+")
_FOLD = str.maketrans("０１２３４５６７８９", "0123456789")
_MAX_SEEN = 500_000  # words whose token is remembered (a dictionary's worth)


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``start``, ``end`` (character offsets in its text, end exclusive),
    ``tokens`` (distinct tokens), ``chars`` (distinct Han characters of its tokens' words),
    ``words`` ((word, token) of each kept word, in order: what the evidence view marks),
    ``numbers`` (its runs of digits, full-width folded to ASCII, leading zeros dropped) and
    ``hashes`` (the CRC-32 of each token, what the rewrite keys are made of)."""

    start: int
    end: int
    tokens: frozenset[str]
    chars: frozenset[str]
    words: tuple[tuple[str, str], ...]
    numbers: frozenset[str] = frozenset()
    hashes: frozenset[int] = frozenset()


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
        self._seen: dict[str, tuple[str, int, tuple[str, ...]] | None] = {}

    def token(self, word: str) -> str | None:
        """The token of a word: its class, else itself; None for a word without a Han
        character or whose token is a stop token."""
        if not _HAN.search(word):
            return None
        token = self.word_class.get(word, word)
        return None if token in self.stop else token

    def sentences(self, text: str) -> list[Sentence]:
        """The sentences of ``text`` (str) that keep at least one token, in order: cut after
        a word ending in 。！？!?；;… or a line end. Words by rjieba (jieba-rs: jieba's
        algorithm and dictionary in Rust, the same words as ``jieba.lcut`` and ten times as
        fast) in dictionary mode (no HMM: new words are not guessed, so both texts of a pair
        are cut alike)."""
        import rjieba

        out: list[Sentence] = []
        start = at = 0
        words: list[tuple[str, tuple[str, int, tuple[str, ...]]]] = []
        seen = self._seen
        if len(seen) > _MAX_SEEN:
            seen.clear()
        for word in rjieba.cut(text, False):
            at += len(word)
            if word not in seen:
                token = self.token(word)
                seen[word] = None if token is None else (
                    token, zlib.crc32(token.encode("utf-8")), tuple(_HAN.findall(word)))
            known = seen[word]
            if known is not None:
                words.append((word, known))
            if word[-1] in _ENDS or at == len(text):
                if words:
                    out.append(self._sentence(text, start, at, words))
                start, words = at, []
        return out

    @staticmethod
    def _sentence(text: str, start: int, end: int,
                  words: list[tuple[str, tuple[str, int, tuple[str, ...]]]]) -> Sentence:
        numbers = frozenset(n.translate(_FOLD).lstrip("0") or "0"
                            for n in _DIGITS.findall(text, start, end))
        return Sentence(start, end, frozenset(k[0] for _, k in words),
                        frozenset(c for _, k in words for c in k[2]),
                        tuple((w, k[0]) for w, k in words), numbers,
                        frozenset(k[1] for _, k in words))


@cache
def default_classes() -> SynonymClasses:
    """The shipped classes and stop tokens (loaded once per process)."""
    record = json.loads(gzip.decompress(CLASSES_FILE.read_bytes()))
    return SynonymClasses(record["classes"], frozenset(record["stop"]))
