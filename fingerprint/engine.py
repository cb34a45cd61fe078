"""The fingerprint engine: index works, match pages (see docs/engine-api.md for the contract).

Pipeline: text -> letters (``fingerprint.letters``) -> windows (``fingerprint.windows``) ->
window keys (``fingerprint.fingerprints``; plus winnowed k-gram keys for short works,
``fingerprint.shortdoc``) -> index postings. A page's keys (and, with ``probe`` > 0, their
quantization neighbours) are looked up, works with enough hits become candidates, and each candidate is verified by aligning
the page's letters with the work's (``fingerprint.verify``); passages are mapped back to
character offsets in both texts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from fingerprint.arrays import sorted_distinct
from fingerprint.compiled.judge import exact_codes as compiled_exact_codes
from fingerprint.compiled.judge import judge_page
from fingerprint.compiled.lookup import rank, template_siblings
from fingerprint.config import EngineConfig, JudgeLimits
from fingerprint.fingerprints import Quantizer
from fingerprint.index.base import check_work_id
from fingerprint.index.hits import Hits, hits_from_lookup, hits_of_each
from fingerprint.letters import (
    DIGIT_LETTER,
    LONE_SURROGATE,
    EmptyTextError,
    Letters,
    TextTooLargeError,
    default_table,
)
from fingerprint.parts import (
    Relations,
    find_relations,
    joined_pairs,
    letters_digest,
    name_parts,
    record_digest,
)
from fingerprint.rewrite.stage import RewriteStage
from fingerprint.same_text import SameTextGroups
from fingerprint.verify import Alignment, SeedIndex, align, align_each
from fingerprint.version import FINGERPRINT_VERSION
from fingerprint.windows import content_radius, kgram_codes

_MAX_PREPARED_NUMBER = 2**31 - 1  # the same-text pair cache packs two numbers in one int64


@dataclass
class Passage:
    """One matched passage: character offsets (Python str indices, end exclusive) in the page
    and in the work, as given to ``match`` and ``add_work``."""

    page_start: int
    page_end: int
    work_start: int
    work_end: int

    def to_dict(self) -> dict:
        """JSON-ready dict with the four offsets."""
        return asdict(self)


@dataclass
class Match:
    """A work found in a page.

    score: overall score in [0, 1], max(containment_page, containment_work): 1.0 when the
    page is entirely from the work or the work is entirely in the page; it grows with the
    amount of the work's distinctive text on the page (see ``Engine._judge``).
    containment_page: the work's distinctive matched letters (each page letter weighted
    1 / number of aligned candidate works matching it; template siblings are not aligned, see
    ``Engine._siblings``) per page letter (0..1).
    containment_work: the same per work letter (0..1).
    passages: matched passages, in page order.
    same_text: ids of the works found in the same page whose text is the same as this work's
    (this one included, sorted; see ``fingerprint.same_text``): more than one id when the
    same text is registered as several works, each reported with its own Match.
    kind: ``"copy"`` (the first stage: letters aligned) or ``"rewritten"`` (洗稿, the rewrite
    stage: sentences aligned; then score and containment_work are the share of the work's
    sentences paired, containment_page the share of the page's sentences paired, and each
    passage is a work sentence and the page sentence(s) it pairs with).
    part_of: ids of the works found in the same page that hold this work's text (a chapter
    registered alone and inside its whole novel: the chapter's Match names the novel; see
    ``fingerprint.parts``), sorted; parts: ids of the works found in the page whose text this
    work holds (the novel's Match names the chapter), sorted; both [] for most matches.
    """

    work_id: str
    score: float
    containment_page: float
    containment_work: float
    passages: list[Passage] = field(default_factory=list)
    same_text: list[str] = field(default_factory=list)
    kind: str = "copy"
    part_of: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict (passages as dicts)."""
        return asdict(self)


@dataclass
class PageMatches:
    """What ``Engine.match_with_keys`` found in a page: ``matches`` (list[Match], best score
    first, as ``Engine.match`` returns them) and ``keys``, the page's query keys
    (``Engine.query_keys`` of its letters, as a uint64 array of shape (n,), duplicates
    possible), so that a caller keeping them does not fingerprint the text again."""

    matches: list[Match]
    keys: np.ndarray


@dataclass(frozen=True)
class _Prepared:
    seeds: SeedIndex
    exact: np.ndarray
    offsets: np.ndarray
    text_length: int
    # ("index", index revision) or ("store", store revision): a revision of the record this was
    # built from or of an older one, never of a newer one (see Engine._prepared)
    revision: tuple[str, str]
    need: int  # matched page letters the work needs (Engine._need of its letters)
    number: int  # names the work and its revision in the same-text pair cache (< 2**31)
    digest: str  # of its letters (fingerprint.parts.letters_digest)
    relations: Relations  # the works it is part of or holds, from its record
    related: bool  # bool(relations), read for every candidate of every page


def exact_codes(letters: Letters, text: str) -> np.ndarray:
    """Letter codes (n_letters,) as uint8 in which digits keep their value: a digit letter
    (code ``DIGIT_LETTER`` + d mod 5) becomes 64 + d, so that verification tells 1 from 6,
    which share a letter (fingerprint keys are unchanged). ``text``: the text the letters were
    made from (ASCII and full-width digits)."""
    return compiled_exact_codes(np.ascontiguousarray(letters.codes, dtype=np.uint8),
                                np.ascontiguousarray(letters.offsets, dtype=np.int64), text,
                                DIGIT_LETTER)


def matches_of(kept: list, page_offsets: np.ndarray) -> list[Match]:
    """The Match of each judged candidate ``kept`` ((same-text group label, work id,
    _Prepared, Alignment, score, containment of the page, containment of the work) tuples),
    passages in characters of the page (``page_offsets``: a letter's character offset) and of
    the work; ``same_text`` lists the works of its group. Sorted by score, then work id."""
    out = []
    for label, work_id, prep, aln, score, cp, cw in kept:
        passages = [Passage(*span) for span in aln.characters(page_offsets, prep.offsets)]
        out.append((label, Match(work_id, round(score, 4), round(cp, 4), round(cw, 4), passages)))
    for label, match in out:
        match.same_text = sorted(m.work_id for g, m in out if g == label)
    matches = [match for _, match in out]
    matches.sort(key=lambda m: (-m.score, m.work_id))
    return matches


class Engine:
    """Near-duplicate detection of Chinese (and Latin-script) text against indexed works.

    index: a ``fingerprint.index.Index`` (MemoryIndex, RedisIndex); store: a
    ``fingerprint.store.WorkStore`` (MemoryWorkStore, MongoWorkStore); config: EngineConfig.
    Keeps an LRU cache of prepared works for verification (``cache_size`` works); an entry is
    used only while its work's revision is unchanged, so a work re-added by another process is
    never verified against its old text. The revision comes with the lookup when the index
    reports one (``RevisedIndex.lookup_revisions``: MemoryIndex, RedisIndex; no store call),
    else from the store (``WorkStore.revisions``, one call per page with candidates); see
    ``_prepared`` for why the index's revision is enough. Not thread-safe: one Engine per thread
    or process (Celery workers are processes).
    A non-default fingerprinting configuration (``EngineConfig.scheme()``) makes other keys:
    give it its own index (the scheme is recorded with each work).
    rewrite_index: the index of the rewrite stage's keys (``fingerprint.rewrite``; another
    prefix or instance than ``index``). The stage runs when ``config.rewrite_stage`` is on and
    this index is given; None: no rewrite stage (``self.rewrite`` is None), because the stage's
    template rule needs to know how many works hold a key (docs/decisions/rewrite-stage.md).
    """

    def __init__(self, index, store, config: EngineConfig | None = None, cache_size: int = 4096,
                 rewrite_index=None):
        self.index = index
        self.store = store
        self.config = config or EngineConfig()
        c = self.config
        self.table = default_table()
        self.quantizer = Quantizer(c.letters, c.window_letters, c.levels, c.anchor_k, c.anchor_bits)
        self._cache: OrderedDict[str, _Prepared] = OrderedDict()
        self._cache_size = cache_size
        self._same_text = SameTextGroups(self._align_letters, c.same_text_share,
                                         c.same_text_frame, 8 * cache_size)
        self._prepared_count = 0  # numbers given to prepared works (_Prepared.number)
        self.rewrite = RewriteStage(c, rewrite_index, cache_size=cache_size // 4) \
            if c.rewrite_stage and rewrite_index is not None else None
        self._judge_limits = JudgeLimits.of(c, DIGIT_LETTER)

    # -- fingerprinting -------------------------------------------------------------------

    def letters(self, text: str) -> Letters:
        """Letters of ``text`` with the engine's letter table (see ``fingerprint.letters``).
        Raises TypeError when text is not a str, TextTooLargeError when it is longer than
        ``max_text_chars`` characters."""
        if isinstance(text, str) and len(text) > self.config.max_text_chars:
            raise TextTooLargeError(f"text of {len(text)} characters is longer than "
                                    f"max_text_chars={self.config.max_text_chars}")
        return self.table.convert(text)

    def _keys(self, letters: Letters, sparsity: int, short_radius: int, distinct: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
        """(keys, window starts) of a letter sequence (``Quantizer.sequence_keys``): keys
        uint64, one exact key per window start, then the short-text k-gram keys of winnowing
        radius ``short_radius`` (none when 0; sorted and each once when ``distinct``);
        windows selected ``sparsity`` times sparser than in works."""
        c = self.config
        return self.quantizer.sequence_keys(
            letters.codes, content_radius(c.stride, sparsity),
            c.stride if c.window_mode == "fixed" else 0, short_radius, c.short_k, distinct)

    def postings(self, letters: Letters) -> list[tuple[int, int]]:
        """(key, window number) postings of a work: one exact key per window, plus winnowed
        k-gram keys (each once, numbered after the windows) when the work is shorter than
        ``short_text_letters``."""
        c = self.config
        short = len(letters) < c.short_text_letters
        keys, _ = self._keys(letters, 1, c.short_radius if short else 0, True)
        return list(zip(keys.tolist(), range(len(keys)), strict=True))

    def query_keys(self, letters: Letters) -> list[int]:
        """Keys a page looks up (duplicates possible): exact and probed window keys, and k-gram
        keys, both selected ``query_sparsity`` times sparser than in works on pages of at least
        ``dense_page_letters`` letters, as densely as in works on shorter ones."""
        return self._query_key_array(letters).tolist()

    def _query_key_array(self, letters: Letters) -> np.ndarray:
        """``query_keys`` as a uint64 array of shape (n,)."""
        c = self.config
        sparsity = c.query_sparsity if len(letters) >= c.dense_page_letters else 1
        keys, starts = self._keys(letters, sparsity, c.short_radius * sparsity)
        if not c.probe:
            return keys
        probed = self.quantizer.probe_keys(letters.codes, starts, c.probe)
        return np.concatenate((probed.astype(np.uint64), keys[len(starts):]))

    # -- works ----------------------------------------------------------------------------

    def add_work(self, work_id: str, text: str) -> int:
        """Index a work (replacing any work with the same id); returns the postings indexed.

        Atomic: the record is stored first (if that fails, the previous state is intact), then
        the postings are indexed; if indexing fails, the work is removed from index and store
        and the error re-raised, so no postings of it remain.
        Raises ValueError on an empty work_id, TypeError when text is not a str,
        EmptyTextError (a ValueError) when the text has no letters or fewer than
        ``min_text_letters`` (such a work could never be matched), TextTooLargeError (a
        ValueError) when it is longer than ``max_text_chars``, ValueError when it holds a lone
        surrogate (no store can encode it); nothing is stored then.
        """
        letters = self._work_letters(work_id, text)
        return self._store_and_index(work_id, text, letters, self.postings(letters))

    def relations(self, work_id: str, letters: Letters) -> tuple[list[list[str]], list[list[str]]]:
        """(part_of, parts) of a work about to be indexed with ``letters``: the indexed works
        that hold its text and those whose text it holds, each as [work id, letters digest]
        (``fingerprint.parts.find_relations`` with ``part_key_share``, ``part_share``,
        ``same_text_frame`` and ``max_candidates``). Raises the index's and store's errors."""
        c = self.config
        keys, _ = self._keys(letters, 1, 0, True)
        return find_relations(work_id, letters.codes, keys, self.index.lookup, self.store.get,
                              lambda record: self._record_letters(record).codes,
                              self._align_letters, c.seed_k, c.part_key_share, c.part_share,
                              c.same_text_frame, c.max_candidates)

    def add_works(self, works: Iterable[tuple[str, str]]) -> list[int]:
        """Index several works, each as ``add_work`` would (same keys, each work atomic, a
        later (work_id, text) replacing an earlier one of the same id); returns the postings
        indexed per work, in order.

        Every work is checked before any is stored: raises as ``add_work`` on the first
        invalid one, and then nothing is stored. An error of the index or store while adding
        leaves the works before it added.
        """
        items = list(works)
        letters = [self._work_letters(work_id, text) for work_id, text in items]
        return [self._store_and_index(work_id, text, work_letters, self.postings(work_letters))
                for (work_id, text), work_letters in zip(items, letters, strict=True)]

    def _work_letters(self, work_id: str, text: str) -> Letters:
        """Letters of a work's text, after the checks of ``add_work`` (raises as it does)."""
        check_work_id(work_id)
        letters = self.letters(text)
        if (surrogate := LONE_SURROGATE.search(text)) is not None:
            raise ValueError(f"work {work_id!r}: text has a lone surrogate "
                             f"(U+{ord(surrogate[0]):04X}) at character {surrogate.start()}: "
                             "not valid Unicode, so it cannot be stored")
        if len(letters) == 0:
            raise EmptyTextError(f"work {work_id!r}: text has no letters (no Han or Latin text)")
        if len(letters) < self.config.min_text_letters:
            raise EmptyTextError(
                f"work {work_id!r}: only {len(letters)} letters; a work needs at least "
                f"min_text_letters={self.config.min_text_letters} to ever be matched")
        return letters

    def _store_and_index(self, work_id: str, text: str, letters: Letters,
                         postings: list[tuple[int, int]]) -> int:
        """Store a checked work's record, with the works it is part of or holds
        (``relations``), then index its postings (see ``add_work``)."""
        part_of, parts = self.relations(work_id, letters)
        record = {
            "text": text,
            "letters": letters.letters,
            "offsets": letters.offsets.astype(np.uint32),
            "version": FINGERPRINT_VERSION,
            "letter_table": self.table.version,
            "scheme": self.config.scheme(),
            "windows": len(postings),
            "digest": letters_digest(letters.letters),
            "part_of": part_of,
            "parts": parts,
        }
        self._cache.pop(work_id, None)
        self.store.put(work_id, record)
        try:
            n = self.index.add(work_id, postings)
            if self.rewrite is not None:
                self.rewrite.add(work_id, text)
        except BaseException:
            self._discard(work_id)
            raise
        return n

    def _discard(self, work_id: str) -> None:
        try:
            self.index.remove(work_id)
            if self.rewrite is not None:
                self.rewrite.remove(work_id)
        finally:
            self.store.delete(work_id)

    def remove_work(self, work_id: str) -> bool:
        """Remove a work's postings and its stored record; True when either existed."""
        self._cache.pop(work_id, None)
        if self.rewrite is not None:
            self.rewrite.remove(work_id)
        removed = self.index.remove(work_id)
        deleted = self.store.delete(work_id)
        return bool(removed) or deleted

    def has_work(self, work_id: str) -> bool:
        """True when the work has postings in the index (cheap; the store is not read)."""
        return self.index.has_work(work_id)

    def rebuild_index(self) -> int:
        """Re-index every stored work with the current configuration (after a Redis loss or a
        FINGERPRINT_VERSION change); returns the works re-indexed.

        Records whose letters were made by the current letter table are re-indexed from their
        stored letters (the store is not rewritten); older ones are re-added from their text.
        A stored work the current rules refuse (EmptyTextError) is left in the store
        unindexed and not counted. Raises the index's or store's connection errors.
        """
        n = 0
        for work_id in list(self.store.ids()):
            record = self.store.get(work_id)
            if record is None:
                continue
            try:
                if record.get("letter_table") == self.table.version:
                    self._cache.pop(work_id, None)
                    self.index.add(work_id, self.postings(self._record_letters(record)))
                    if self.rewrite is not None:
                        self.rewrite.add(work_id, record["text"])
                else:
                    self.add_work(work_id, record["text"])
            except EmptyTextError:
                continue
            n += 1
        return n

    def _record_letters(self, record: dict) -> Letters:
        """Letters of a stored work: from its stored letters and offsets when the current letter
        table made them, else converted again from its text."""
        if record.get("letter_table") != self.table.version:
            return self.letters(record["text"])
        codes = np.frombuffer(record["letters"].encode("ascii"), dtype=np.uint8) - 97
        offsets = np.asarray(record["offsets"], dtype=np.int64)
        return Letters(codes, offsets, len(record["text"]))

    def _prepared(self, candidates: list[tuple[str, tuple[str, str] | None]]
                  ) -> list[tuple[str, _Prepared]]:
        """(work_id, prepared work) of each (work_id, revision) of ``candidates`` (revision
        None: not stored) whose work is stored, in order: from the cache when its entry is
        labelled ``revision``, else built from the record the store holds now and labelled
        ``revision`` (``_prepare``).

        ``revision``: ``("store", r)`` with r the store's revision (``WorkStore.revisions``)
        read before this call, or ``("index", r)`` with r the index's revision of the work
        (``RevisedIndex.lookup_revisions``) from the lookup that made it a candidate.

        Invariant: a label names the record the entry was built from or an older one, never a
        newer one; an entry is reused only while its label is the current revision, so it is
        never older than the record of the current revision.
        Store labels: the revision is read before the record. Index labels: ``add_work`` puts
        the record in the store before ``index.add`` gives the work its new revision, so when a
        lookup shows revision r, the record of the add that made r is already stored, and the
        record read afterwards here is that one or a newer one. A re-add (through any process)
        gives a new index revision once its postings are being written (they replace the old
        ones, removed first), so the next page with that work sees the new revision and
        prepares the work again; between the put and the add, pages still match the old
        postings and may be verified against either text. This holds when every add of a work
        to the index follows the put of its record in this store (all writers use ``Engine``
        over the same index and store), and, for RedisIndex, when Redis never rolls ``P:seq``
        back without a new ``P:epoch`` (see ``fingerprint.index.redis``).
        """
        cache, out = self._cache, []
        for work_id, revision in candidates:
            prep = cache.get(work_id)
            if prep is not None and prep.revision == revision:
                cache.move_to_end(work_id)
            elif (prep := self._prepare(work_id, revision)) is None:
                continue
            out.append((work_id, prep))
        return out

    def _prepare(self, work_id: str, revision: tuple[str, str] | None) -> _Prepared | None:
        """The work prepared again from the record the store holds now, cached and labelled
        ``revision`` (see ``_prepared``); None (and no cache entry) when ``revision`` is None
        or the store holds no record."""
        if revision is None:
            self._cache.pop(work_id, None)
            return None
        record = self.store.get(work_id)
        if record is None:
            self._cache.pop(work_id, None)
            return None
        letters = self._record_letters(record)
        exact = exact_codes(letters, record["text"])
        self._prepared_count += 1
        # labelled with the revision read before the record: if a put came in between, the
        # record is newer than its label and the next page prepares it again (never the reverse)
        prep = _Prepared(SeedIndex.build(letters.codes, self.config.seed_k), exact,
                         letters.offsets, letters.text_length, revision,
                         self._need(len(letters)), self._prepared_count, record_digest(record),
                         relations := Relations.of(record), bool(relations))
        self._cache[work_id] = prep
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return prep

    # -- matching -------------------------------------------------------------------------

    def candidates(self, letters: Letters) -> list[tuple[str, int]]:
        """(work_id, postings hit) of the works worth verifying, most hits first, ties by
        work id (so every index backend, whatever its key order, gives the same list)."""
        hits = self._hits(self._query_key_array(letters))
        return [(hits.works[w], n) for w, n in self._rank(hits)]

    def _hits(self, keys: np.ndarray) -> Hits:
        """The postings of a page's query ``keys`` (uint64 (n,)) as arrays, with each work's
        index revision when the index reports them (``lookup_hits`` of a MemoryIndex; any
        other index through ``lookup_revisions`` or ``lookup``, adapted)."""
        lookup_hits = getattr(self.index, "lookup_hits", None)
        if lookup_hits is not None:
            return lookup_hits(keys)
        lookup_revisions = getattr(self.index, "lookup_revisions", None)
        asked = keys.tolist()
        if lookup_revisions is None:
            return hits_from_lookup(self.index.lookup(asked), None, asked)
        found, revisions = lookup_revisions(asked)
        return hits_from_lookup(found, revisions, asked)

    def _hits_of_each(self, pages: list[np.ndarray]) -> list[Hits]:
        """``[_hits(keys) for keys in pages]``, the index asked once for all pages' keys when
        it is a remote one (``lookup_revisions`` or ``lookup``: one round trip for all); an
        index with ``lookup_hits`` (in this process) is asked page by page."""
        if len(pages) < 2 or getattr(self.index, "lookup_hits", None) is not None:
            return [self._hits(keys) for keys in pages]
        union = sorted_distinct(np.concatenate(pages)).tolist()
        lookup_revisions = getattr(self.index, "lookup_revisions", None)
        if lookup_revisions is None:
            return hits_of_each(self.index.lookup(union), None, pages)
        found, revisions = lookup_revisions(union)
        return hits_of_each(found, revisions, pages)

    def _rank(self, hits: Hits) -> list[tuple[int, int]]:
        """``candidates`` from the postings of a lookup, each work as its place in
        ``hits.works``: the works with the most hits, up to ``max_candidates`` distinct hit
        sets, so that a text registered as several works (the same postings hit in each) takes
        one place."""
        c = self.config
        return rank(hits.work, hits.window, hits.works, c.min_window_hits, c.max_candidates)

    def _siblings(self, hits: Hits, ranked: list[tuple[int, int]], n_keys: int) -> set[str]:
        """The ids of the ``ranked`` candidates (``_rank`` of ``hits``) that are template
        siblings of a better one (``fingerprint.compiled.lookup.template_siblings`` with
        ``sibling_own_keys`` and the same-text least ratio of ``JudgeLimits``; ``n_keys``: the
        number of keys looked up)."""
        if len(ranked) < 2:
            return set()
        places = template_siblings(hits.work, hits.place, len(hits.works), n_keys, ranked,
                                   self.config.sibling_own_keys,
                                   self._judge_limits.same_text_least)
        return {hits.works[ranked[i][0]] for i in places}

    def _revised(self, hits: Hits, ranked: list[tuple[int, int]] | None = None
                 ) -> list[tuple[str, tuple[str, str] | None]]:
        """(work_id, revision) of each ``candidates`` work of a lookup's ``hits`` (``ranked``:
        their ``_rank``, computed when None), in rank order: the index's revision when the
        lookup reported one, else the store's (one call), None for a work the store lacks (see
        ``_prepared``)."""
        works, revisions = hits.works, hits.revisions
        if ranked is None:
            ranked = self._rank(hits)
        if revisions is not None:
            return [(works[w], ("index", revisions[w])) for w, _ in ranked]
        stored = self.store.revisions([works[w] for w, _ in ranked]) if ranked else {}
        return [(works[w], ("store", stored[works[w]]) if works[w] in stored else None)
                for w, _ in ranked]

    def match(self, text: str) -> list[Match]:
        """Works found in ``text`` (str), best score first; [] when none or when the text has
        fewer than ``min_text_letters`` letters. Raises TypeError when text is not a str,
        TextTooLargeError when it is longer than ``max_text_chars``.

        Every candidate but the template siblings of a better one (``_siblings``) is aligned
        first; then each page letter gets a weight of 1 / (number of candidates whose passages
        cover it), so that template text shared by many registered works counts little for
        each of them (see ``_judge``)."""
        return self.match_with_keys(text).matches

    def match_with_keys(self, text: str) -> PageMatches:
        """``match(text)`` together with the page's query keys (PageMatches), computed once for
        both; the keys are returned for a text under ``min_text_letters`` letters too (it is
        not looked up). Raises as ``match``."""
        letters = self.letters(text)
        keys = self._query_key_array(letters)
        if len(letters) < self.config.min_text_letters:
            return PageMatches([], keys)
        return PageMatches(self._matches(text, letters, self._hits(keys), len(keys)), keys)

    def match_many(self, texts: Sequence[str]) -> list[list[Match]]:
        """``[match(text) for text in texts]``, with one index lookup for all the texts' keys
        (one round trip to a RedisIndex instead of one per text: what an archive scan, with
        thousands of short pages a second, waits on). Raises as ``match`` (for the first text
        that fails, before anything is looked up)."""
        letters = [self.letters(text) for text in texts]
        asked = [i for i, page in enumerate(letters) if len(page) >= self.config.min_text_letters]
        keys = [self._query_key_array(letters[i]) for i in asked]
        hits = self._hits_of_each(keys)
        out: list[list[Match]] = [[] for _ in texts]
        for i, page_keys, page_hits in zip(asked, keys, hits, strict=True):
            out[i] = self._matches(texts[i], letters[i], page_hits, len(page_keys))
        return out

    def _matches(self, text: str, letters: Letters, hits: Hits, n_keys: int) -> list[Match]:
        """The matches of a page (``text`` and its ``letters``) from the postings of its
        ``n_keys`` query keys (``hits``): candidates aligned, but for template siblings
        (``_siblings``), then judged (see ``match``)."""
        ranked = self._rank(hits)
        aligned = self._align_candidates(letters, self._revised(hits, ranked),
                                         siblings=self._siblings(hits, ranked, n_keys))
        matches = self._judge(letters, exact_codes(letters, text) if aligned else None, aligned)
        if not matches and self.rewrite is not None:
            matches = self._rewritten(text, hits)
        return matches

    def _rewritten(self, text: str, hits: Hits) -> list[Match]:
        """The rewrite stage on a page the first stage matched nothing in (Match.kind
        "rewritten", best first): run only when the page is undecided, i.e. its best work has
        at least ``rewrite_min_first_hits`` window-key hits; [] otherwise."""
        assert self.rewrite is not None
        counts = np.bincount(hits.work, minlength=len(hits.works))
        if int(counts.max(initial=0)) < self.config.rewrite_min_first_hits:
            return []
        out = []
        for work_id, verdict, page, work in self.rewrite.judge(text, self.store):
            paired = {k for p in verdict.pairs for k in p.page}
            passages = sorted((Passage(page.starts[p.page[0]], page.ends[p.page[-1]],
                                       work.starts[p.work], work.ends[p.work])
                               for p in verdict.pairs), key=lambda q: (q.page_start, q.work_start))
            out.append(Match(work_id, verdict.score, round(len(paired) / page.size, 4),
                             verdict.score, passages, [work_id], "rewritten"))
        return out

    def verify(self, letters: Letters, work_id: str) -> Match | None:
        """Align a page's letters with one stored work, alone (no other work discounts its
        passages); a Match when it passes the thresholds, else None (also when the work is not
        stored).

        A work's k-grams repeated more than ``max_seed_repeats`` times are seeds here too, up
        to the repeats that ``verify_seed_pairs`` allows for a page of this length: a text
        made of one line repeated (every k-gram repeated as often as the line) is then found
        in itself, which ``match`` (many works, many pages) does not afford."""
        c = self.config
        seeds = max(1, len(letters) // c.seed_stride)
        repeats = max(c.max_seed_repeats, c.verify_seed_pairs // seeds)
        revision = self.store.revisions([work_id]).get(work_id)
        aligned = self._align_candidates(
            letters, [(work_id, None if revision is None else ("store", revision))], repeats)
        matches = self._judge(letters, None, aligned)
        return matches[0] if matches else None

    def _align_candidates(self, letters: Letters,
                          candidates: list[tuple[str, tuple[str, str] | None]],
                          max_repeats: int | None = None,
                          siblings: set[str] | frozenset[str] = frozenset()
                          ) -> list[tuple[str, _Prepared, Alignment]]:
        """(work_id, prepared work, alignment) of each of the (work_id, revision)
        ``candidates`` (see ``_prepared``) that is stored and shares at least ``_need`` matched
        letters with the page, in order; every alignment in one compiled call. A work's k-gram
        repeated more than ``max_repeats`` times (default ``max_seed_repeats``) is no seed. The
        ``siblings`` (work ids) are left out, unless a candidate holds or is part of another
        (``fingerprint.parts``, known from either's record: a chapter shares every key of its
        novel's copy)."""
        self._make_room(len(candidates))
        prepared = self._prepared(candidates)
        if siblings and not any(prep.related for _, prep in prepared):
            prepared = [(w, prep) for w, prep in prepared if w not in siblings]
        if not prepared:
            return []
        c = self.config
        works = [prep.seeds for _, prep in prepared]
        found = align_each(letters.codes, works, [prep.need for _, prep in prepared],
                           c.max_gap, c.max_shift, c.min_passage_letters,
                           c.max_seed_repeats if max_repeats is None else max_repeats,
                           c.seed_stride, kgram_codes(letters.codes, c.seed_k)[::c.seed_stride])
        return [(*prepared[i], aln) for i, aln in found]

    def _make_room(self, works: int) -> None:
        """Make sure ``works`` more works can be prepared with distinct numbers
        (``_Prepared.number``): when the numbers would run out, forget every prepared work and
        remembered same-text pair and number from 1 again. Called before a page prepares its
        candidates, so that the works of one page never share a number."""
        if self._prepared_count + works > _MAX_PREPARED_NUMBER:
            self._cache.clear()
            self._same_text.pairs.clear()
            self._prepared_count = 0

    def _align_letters(self, codes: np.ndarray, seeds: SeedIndex) -> Alignment:
        """``fingerprint.verify.align`` of letter codes against a prepared work with the
        engine's alignment parameters."""
        c = self.config
        return align(codes, seeds, c.max_gap, c.max_shift, c.min_passage_letters,
                     c.max_seed_repeats, c.seed_stride)

    def _need(self, n_work: int) -> int:
        """Matched letters a work of ``n_work`` letters needs: ``min_matched_letters``, or 80%
        of a shorter work, and at least ``min_text_letters``."""
        c = self.config
        return max(c.min_text_letters, min(c.min_matched_letters, int(0.8 * n_work)))

    def _judge(self, letters: Letters, exact: np.ndarray | None,
               aligned: list[tuple[str, _Prepared, Alignment]]) -> list[Match]:
        """Matches from the alignments of one page with its candidates, best first.

        ``exact``: the page's ``exact_codes`` (digits compared by value), or None when the
        page's text is not at hand (``verify``: digits compared by letter).

        A candidate whose alignment passed ``_need`` is judged on the text it shares with the
        page, against the other candidates of the same page (template-aware evidence):

        - numbers: the page's numbers (runs of digits) that lie wholly inside its passages,
          next to a matched letter of their sentence, are compared with the work; when more than ``max_number_mismatch`` of them differ, the
          passages are a template filled in with other dates, amounts and case numbers, not a
          copy, and the work is rejected;
        - same text: candidates whose texts are the same text registered as several works
          (``fingerprint.same_text``, ``same_text_share``, ``same_text_frame``) form one group; the rules below
          count a group as one work, and every member that passes them is reported, each
          with the group's ids in ``Match.same_text``;
        - dominance: when a candidate of another group matched more page letters and leaves
          fewer than ``min_own_letters`` of this one's matched letters uncovered, this one only
          shares the other's template (a sibling of the copied work) and is rejected;
          candidates that match the very same letters (two editions of a text) are both kept;
        - document frequency: a page letter matched by n groups weighs 1/n for each (the
          inverse document frequency of that letter among the registered texts that share text
          with the page; Sparck Jones 1972); a work's *distinctive letters* are its matched
          letters so weighted, and it needs ``min_distinct_letters`` of them, each of the
          page's numbers inside its passages that is wholly equal to the work's counting
          ``number_evidence_letters`` more (dates and case numbers filled in the same way;
          a number is a run of digits, so a sibling of the same month shares some of them).

        Containments and score are measured in distinctive letters: the score grows with how
        much text of the work, not shared with other candidates, the page holds.
        """
        if not aligned:
            return []
        same_text = self._same_text

        def same(i: int, j: int) -> bool:  # judge_page has checked grams_shared
            return same_text.aligned(aligned[i][1].seeds, aligned[j][1].seeds)

        joined = joined_pairs([(w, prep.digest, prep.relations) for w, prep, _ in aligned])
        labels, kept = judge_page(
            letters.codes if exact is None else exact, letters.codes, letters.offsets,
            letters.boundaries, aligned, exact is not None, same_text.pairs, same,
            self._judge_limits, joined)
        matches = matches_of([(labels[i], *aligned[i], score, cp, cw)
                              for i, score, cp, cw in kept], letters.offsets)
        if joined:
            name_parts(matches, [w for w, _, _ in aligned], joined)
        return matches
