"""The rewrite stage: rewrite-robust keys of a text and the judgement of a page against a work.

Keys (order-free over a sentence window): for each sentence, alone and joined with the next
(a sentence split or merged on the page keeps one of them), the token hashes (CRC-32 of the
synonym class or word) of its distinct tokens; the ``KEY_TOKENS`` smallest are taken (a
bottom-k sketch: the same set of tokens gives the same ones whatever their order) and every
pair of them is a key. A rewrite that keeps two of a window's smallest tokens, whatever it did
to the rest, keeps that window's key.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fingerprint.compiled.rewrite import key_evidence, page_keys
from fingerprint.compiled.rewrite import window_keys as compiled_window_keys
from fingerprint.index.hits import key_hits
from fingerprint.rewrite.align import AlignLimits, SentencePair, align_codes
from fingerprint.rewrite.classes import Codes, Cut, Sentence, codes_of, default_classes

KEY_TOKENS = 3


def window_keys(codes: np.ndarray) -> list[int]:
    """The keys of one sentence's token hashes (``Sentence.token_codes``, ascending): each
    pair of the ``KEY_TOKENS`` smallest, as ints below 2**64."""
    return compiled_window_keys(codes, [len(codes)], 0, KEY_TOKENS)


def codes_keys(codes: Codes, min_tokens: int) -> list[int]:
    """The rewrite keys (duplicates possible) of sentences given as ``codes``: ``window_keys``
    of each sentence (in order) that has at least ``min_tokens`` tokens, then of each two
    adjacent sentences together that have (compiled:
    ``fingerprint.compiled.rewrite.window_keys``)."""
    return compiled_window_keys(codes.tokens, codes.token_sizes, min_tokens, KEY_TOKENS)


@dataclass(frozen=True)
class RewriteVerdict:
    """A work found rewritten in a page: ``score`` (share of the work's eligible sentences
    paired, 0..1), ``paired`` and ``eligible`` (work sentences), ``pairs`` (SentencePair,
    in work order)."""

    score: float
    paired: int
    eligible: int
    pairs: list[SentencePair]


def judge_rewrite(work: list[Sentence], page: list[Sentence], limits: AlignLimits,
                  min_tokens: int, min_share: float, min_pairs: int,
                  template: frozenset[int] = frozenset()) -> RewriteVerdict | None:
    """A verdict when enough of the work's sentences pair with the page's: at least
    ``min_pairs`` pairs and ``min_share`` of the work's eligible sentences (those with at
    least ``min_tokens`` tokens and whose number is not in ``template``); else None."""
    if not page:
        return None
    return _Eligible.of(work, min_tokens, template).verdict(codes_of(page), limits, min_share,
                                                            min_pairs)


class _Eligible(NamedTuple):
    """A work's eligible sentences (``judge_rewrite``): their ``numbers`` among the work's
    sentences and their ``codes``."""

    numbers: list[int]
    codes: Codes

    @classmethod
    def of(cls, work: list[Sentence], min_tokens: int, template: frozenset[int]) -> _Eligible:
        numbers = [j for j, s in enumerate(work) if len(s.token_codes) >= min_tokens
                   and j not in template]
        return cls(numbers, codes_of([work[j] for j in numbers]))

    def verdict(self, page: Codes, limits: AlignLimits, min_share: float, min_pairs: int
                ) -> RewriteVerdict | None:
        """``judge_rewrite``'s verdict against a page of at least one sentence (``page``)."""
        if not self.numbers or len(self.numbers) < min_pairs:
            return None
        pairs = align_codes(self.codes, page, limits, self.numbers)
        share = len(pairs) / len(self.numbers)
        if len(pairs) < min_pairs or share < min_share:
            return None
        return RewriteVerdict(round(share, 4), len(pairs), len(self.numbers), pairs)


class RewriteStage:
    """The second stage of an ``Engine``: rewrite keys of works in their own index, and pages
    that the first stage leaves undecided judged by sentence alignment.

    ``config``: the engine's EngineConfig (its ``rewrite_*`` fields); ``index``: an index for
    the rewrite keys (a ``fingerprint.index`` Index; None: a stage that cuts sentences and
    aligns them, e.g. for ``explain``, but neither keeps keys nor judges pages);
    ``classes``: SynonymClasses (default: the shipped ones); ``cache_size``: works whose
    sentences are kept (LRU, each labelled with its store revision).
    """

    def __init__(self, config, index=None, classes=None, cache_size: int = 1024):
        self.config = config
        self.index = index
        self.classes = classes or default_classes()
        self.limits = AlignLimits(config.rewrite_pair_score, config.rewrite_min_shared,
                                  config.rewrite_max_unit_ratio,
                                  config.rewrite_max_token_sentences)
        self._cache: OrderedDict[str, tuple[str, Cut, _Eligible]] = OrderedDict()
        self._cache_size = cache_size

    def cut(self, text: str) -> Cut:
        """``SynonymClasses.cut`` of ``text``, the first ``rewrite_max_page_sentences``."""
        return self.classes.cut(text).head(self.config.rewrite_max_page_sentences)

    def sentences(self, text: str) -> list[Sentence]:
        """The sentences of ``cut(text)``."""
        return self.cut(text).sentences()

    def postings(self, text: str) -> list[tuple[int, int]]:
        """(key, number) postings of a work's rewrite keys, each key once."""
        keys = dict.fromkeys(codes_keys(self.cut(text).codes, self.config.rewrite_min_tokens))
        return [(key, n) for n, key in enumerate(keys)]

    def add(self, work_id: str, text: str) -> None:
        """Index a work's rewrite keys (replacing its old ones); nothing without an index."""
        self._cache.pop(work_id, None)
        if self.index is not None:
            self.index.add(work_id, self.postings(text))

    def remove(self, work_id: str) -> None:
        """Forget a work's rewrite keys and cached sentences."""
        self._cache.pop(work_id, None)
        if self.index is not None:
            self.index.remove(work_id)

    def page_keys(self, words: list[str]) -> tuple[np.ndarray, int]:
        """(keys, sentences) of a page's ``words`` (``SynonymClasses.words``): the distinct
        rewrite keys (uint64 array) of its first ``rewrite_max_page_sentences`` sentences, as
        ``codes_keys`` of ``cut(text)`` gives them, and how many sentences those are
        (``Cut.size``), without cutting out what only a verification reads
        (``fingerprint.compiled.rewrite.page_keys``)."""
        c = self.config
        return page_keys(words, self.classes.word_codes, c.rewrite_min_tokens, KEY_TOKENS,
                         c.rewrite_max_page_sentences)

    def keys(self, text: str) -> np.ndarray:
        """The distinct rewrite keys of a page's text (uint64 array, see ``page_keys``)."""
        return self.page_keys(self.classes.words(text))[0]

    def candidates(self, keys: np.ndarray) -> list[str]:
        """Work ids to verify, at most ``rewrite_max_candidates``, most hits first, ties by id:
        the works that hold at least ``rewrite_min_key_hits`` and at least
        ``rewrite_min_key_share`` of the distinct rewrite ``keys`` of a page (``keys``), a key
        held by more than ``rewrite_template_works`` works counting for none (template, as in
        ``_template``). Needs the stage's index."""
        c = self.config
        places, hits = key_hits(self.index, keys)
        counts, _, template = key_evidence(places, hits.work, len(keys), len(hits.works),
                                           c.rewrite_template_works)
        least = max(c.rewrite_min_key_hits, c.rewrite_min_key_share * (len(keys) - template))
        ranked = sorted((-n, hits.works[w]) for w, n in enumerate(counts) if n and n >= least)
        return [work_id for _, work_id in ranked[:c.rewrite_max_candidates]]

    def judge(self, text: str, store) -> list[tuple[str, RewriteVerdict, Cut, Cut]]:
        """(work id, verdict, page cut, work cut) of each candidate work (see ``candidates``)
        stored in ``store`` (a WorkStore) and found rewritten in ``text``, best score first,
        ties by id. Raises ValueError on a stage without an index."""
        c = self.config
        if self.index is None:
            raise ValueError("the rewrite stage judges pages only with its index of rewrite keys")
        words = self.classes.words(text)
        keys, sentences = self.page_keys(words)
        if sentences < c.rewrite_min_pairs:
            return []
        ids = self.candidates(keys)
        if not ids:
            return []
        page = self.classes.cut_words(words).head(c.rewrite_max_page_sentences)
        found = []
        revisions = store.revisions(ids)
        for work_id in ids:
            held = self._work(work_id, revisions.get(work_id), store)
            if held is None:
                continue
            work, eligible = held
            verdict = eligible.verdict(page.codes, self.limits, c.rewrite_min_share,
                                       c.rewrite_min_pairs)
            if verdict is not None:
                found.append((work_id, verdict, page, work))
        found.sort(key=lambda f: (-f[1].score, f[0]))
        return found

    def _work(self, work_id: str, revision: str | None, store) -> tuple[Cut, _Eligible] | None:
        """A stored work's cut and its eligible sentences (``judge_rewrite``; template ones,
        ``_template``, left out), from the cache while its revision is unchanged; None when
        the work is not stored."""
        if revision is None:
            self._cache.pop(work_id, None)
            return None
        held = self._cache.get(work_id)
        if held is not None and held[0] == revision:
            self._cache.move_to_end(work_id)
            return held[1], held[2]
        record = store.get(work_id)
        if record is None:
            return None
        cut = self.cut(record["text"])
        sentences = cut.sentences()
        eligible = _Eligible.of(sentences, self.config.rewrite_min_tokens,
                                self._template(sentences))
        self._cache[work_id] = (revision, cut, eligible)
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return cut, eligible

    def _template(self, sentences: list[Sentence]) -> frozenset[int]:
        """Numbers of a work's *template* sentences: every key of the sentence alone is held by
        more than ``rewrite_template_works`` works in the rewrite index, or stop-listed there
        (a clause that registered works share: a judgment's boilerplate, a formula). Such a
        sentence pairing with a page is no evidence that the page rewrites this work."""
        c = self.config
        keyed = {j: window_keys(s.token_codes) for j, s in enumerate(sentences)
                 if len(s.token_codes) >= c.rewrite_min_tokens}
        keys = list({key for own in keyed.values() for key in own})
        places, hits = key_hits(self.index, keys)
        _, holders, _ = key_evidence(places, hits.work, len(keys), len(hits.works),
                                     c.rewrite_template_works)
        common = {key for key, n in zip(keys, holders, strict=True)
                  if n == 0 or n > c.rewrite_template_works}
        return frozenset(j for j, own in keyed.items() if common.issuperset(own))
