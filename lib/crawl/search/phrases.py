"""Distinctive query phrases of a work, for exact-phrase web search (Django-free).

A phrase is a clause of ``MIN_CHARS``..``MAX_CHARS`` characters of the work's own text (cut at
sentence and clause punctuation; a longer clause is cut into pieces of ``MAX_CHARS``), so that a
copy that keeps the sentence keeps the phrase. Phrases are ranked by the rarity of their
character bigrams, times the chance that a reprint's edits leave all its characters
(``SURVIVAL`` per character: shorter phrases survive more edits), in a reference corpus (``Rarity``: inverse document frequency over the
registered works' text, cut into documents of ``DOC_CHARS``); left out are clauses that name a
person (jieba's part-of-speech ``nr`` on a word of two characters or more: copies change
names), boilerplate (too few Chinese
characters, digits and URLs, stock phrases of web pages, lines repeated in the work) and
clauses that share a run of ``SHARED_RUN`` characters with the holder's other works (a series'
shared preface would find the other works' copies). ``choose`` spreads its picks over the text:
the text is cut into as many equal stretches as phrases are wanted and each stretch gives its
best phrase, so that a copy of one part of the work is found too. Design and measurements:
docs/decisions/search-phrases.md.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

MIN_CHARS, MAX_CHARS = 12, 30  # characters of a phrase
DOC_CHARS = 500  # characters of one reference document (a work is cut into several)
SHARED_RUN = 8  # characters in a row shared with another work of the holder: not distinctive
MIN_HAN_SHARE = 0.7  # share of Chinese characters a phrase needs (else boilerplate)
# chance that one character survives a reprint's edits: a phrase of n characters is still
# found by an exact search with probability SURVIVAL ** n (bench/search_discovery.py)
SURVIVAL = 0.97

_STRONG = re.compile(r"[^。！？；!?;\n\r…]+")  # a sentence: the text between these
_WEAK = re.compile(r"[，、：,:]")
_EDGES = "“”‘’「」『』\"'《》〈〉（）()【】[] \t\u3000"
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_BOILERPLATE = re.compile(
    r"□|https?://|www\.|\d{3,}|版权|转载|未经|本章完|求收藏|求推荐|月票|点击|下一页|上一页|目录|"
    r"首发|更新|广告|免责|声明|作者：|来源：|责任编辑")


@dataclass(frozen=True)
class Phrase:
    """A query phrase: ``text`` (the exact characters to search), ``start`` (its offset in the
    work's text, characters) and ``score`` (mean bigram rarity times SURVIVAL ** length, higher
    is better; 0 for the baseline's)."""

    text: str
    start: int
    score: float


class Rarity:
    """Inverse document frequency of character bigrams over a reference corpus.

    Built from texts (``from_texts``): each text is cut into documents of ``DOC_CHARS``
    characters; ``idf(bigram) = log((N + 1) / (df + 1))`` with N documents. ``score(phrase)``
    is the mean over the phrase's bigrams (an unseen bigram scores log(N + 1)).
    """

    def __init__(self, df: Counter, documents: int):
        self.df, self.documents = df, documents

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Rarity:
        """The bigram document frequencies of ``texts`` (str each)."""
        df: Counter = Counter()
        documents = 0
        for text in texts:
            for first in range(0, max(len(text), 1), DOC_CHARS):
                df.update(set(_bigrams(text[first:first + DOC_CHARS])))
                documents += 1
        return cls(df, documents)

    def score(self, phrase: str) -> float:
        """Mean idf of the bigrams of ``phrase`` (0.0 for a phrase shorter than 2 characters)."""
        grams = _bigrams(phrase)
        if not grams:
            return 0.0
        top = math.log(self.documents + 1)
        return sum(top - math.log(self.df.get(g, 0) + 1) for g in grams) / len(grams)


def clauses(text: str) -> list[tuple[int, str]]:
    """The candidate phrases of ``text``: [(offset, clause)] with clauses of MIN_CHARS to
    MAX_CHARS characters of the text as written (its inner commas kept; quotes and brackets at
    either end dropped), in text order. A sentence longer than MAX_CHARS is cut at its commas,
    neighbouring clauses joined while they fit; a clause still longer is cut into pieces of
    MAX_CHARS."""
    out: list[tuple[int, str]] = []
    for sentence in _STRONG.finditer(text):
        start, body = sentence.start(), sentence.group().strip(_EDGES)
        start += sentence.group().find(body)
        if len(body) <= MAX_CHARS:
            if len(body) >= MIN_CHARS:
                out.append((start, body))
            continue
        first = last = 0  # the clauses body[first:last] joined so far
        for comma in [m.end() for m in _WEAK.finditer(body)] + [len(body)]:
            if comma - first <= MAX_CHARS or last == first:
                last = comma
                continue
            out.extend(_pieces(start + first, body[first:last].strip(_EDGES + "，、：,:")))
            first = last
            last = comma
        out.extend(_pieces(start + first, body[first:last].strip(_EDGES + "，、：,:")))
    return out


def choose(text: str, count: int, rarity: Rarity, others: Iterable[str] = (),
           skip_names: bool = True) -> list[Phrase]:
    """Up to ``count`` distinctive phrases of ``text`` (str), best first within the spread
    described in the module docstring. ``rarity``: the reference corpus's Rarity; ``others``:
    the texts of the holder's other works (their shared runs are left out); ``skip_names``:
    leave out clauses naming a person. Returns fewer when the text has fewer usable clauses;
    [] for ``count`` < 1."""
    if count < 1:
        return []
    repeated = {c for c, n in Counter(c for _, c in clauses(text)).items() if n > 1}
    shared = _runs(others)
    usable = [Phrase(c, start, rarity.score(c) * SURVIVAL ** len(c)) for start, c in clauses(text)
              if c not in repeated and not _boilerplate(c)
              and not (shared and _shares_run(c, shared)) and not (skip_names and names_person(c))]
    if not usable:
        return []
    stretch = max(len(text), 1) / count
    best: dict[int, Phrase] = {}
    for phrase in usable:
        part = min(int(phrase.start / stretch), count - 1)
        if part not in best or phrase.score > best[part].score:
            best[part] = phrase
    picked = sorted(best.values(), key=lambda p: -p.score)
    if len(picked) < count:  # stretches without a usable clause: the best of the rest
        taken = {p.start for p in picked}
        rest = sorted((p for p in usable if p.start not in taken), key=lambda p: -p.score)
        picked += rest[:count - len(picked)]
    return picked


def first_sentences(text: str, count: int) -> list[Phrase]:
    """The naive baseline: the first ``count`` clauses of ``text`` (as ``clauses`` cuts them),
    scored 0."""
    return [Phrase(c, start, 0.0) for start, c in clauses(text)[:max(count, 0)]]


def names_person(clause: str) -> bool:
    """True when jieba tags a word of two characters or more of ``clause`` as a person's name
    (``nr``; its single characters tagged ``nr`` are mostly wrong: 狐, 府)."""
    return any(flag == "nr" and len(word) > 1 for word, flag in _tagger()(clause))


@functools.lru_cache(maxsize=1)
def _tagger():
    """jieba's part-of-speech tagger, its dictionary loaded once per process (about 1.5 s)."""
    # Imported here for start-up cost: jieba loads only when a phrase is tagged.
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    return jieba.posseg.lcut


def _pieces(start: int, clause: str) -> list[tuple[int, str]]:
    if len(clause) < MIN_CHARS:
        return []
    return [(start + i, clause[i:i + MAX_CHARS]) for i in range(0, len(clause), MAX_CHARS)
            if len(clause[i:i + MAX_CHARS]) >= MIN_CHARS]


def _boilerplate(clause: str) -> bool:
    han = len(_HAN.findall(clause))
    return han < MIN_HAN_SHARE * len(clause) or bool(_BOILERPLATE.search(clause))


def _bigrams(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(len(text) - 1)]


def _runs(texts: Iterable[str]) -> set[str]:
    return {t[i:i + SHARED_RUN] for t in texts for i in range(len(t) - SHARED_RUN + 1)}


def _shares_run(clause: str, runs: set[str]) -> bool:
    return any(clause[i:i + SHARED_RUN] in runs for i in range(len(clause) - SHARED_RUN + 1))
