"""Benchmark corpora built from the real text in ``../shared/data``.

The corpora, each split into indexed works, negatives and host texts (``judgments``,
``english`` and ``dailies`` are described at their builders):

- ``novels``: chapters of classical Chinese novels (``novels_dev.jsonl.gz``). Works are a few
  chapters from each of many novels; the negatives are other chapters of the same novels (same
  names, same style) and chapters of novels not indexed at all; host texts (the unrelated pages
  that receive a 300-character excerpt) are chapters of further unindexed novels.
- ``news``: People's Daily, January 1998 (``peoples_daily_199801_dev.jsonl.gz``), one record per
  paragraph and no article boundaries, so consecutive paragraphs are grouped into news-length
  documents; the negatives and hosts are documents of the same month that are not indexed.

Sampling is deterministic for a given seed. Upstream the novels hold exact and near duplicate
chapters (see the data README), and a negative that really shares a passage with a work would be
a true match, so every candidate is screened with character shingles: no work, negative or host
may share a run of ``PASSAGE`` characters with a work taken before it (a chapter-opening poem
repeated in two chapters of a novel is a real shared passage, which the engine rightly matches);
a work may share at most ``WORK_OVERLAP`` of its 12-grams with the works taken before it, a
negative or host at most ``NEGATIVE_OVERLAP`` with all works (the news repeat titles and stock
phrases, so a stricter rule leaves too few).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
NOVELS_FILE = "novels_dev.jsonl.gz"
NEWS_FILE = "peoples_daily_199801_dev.jsonl.gz"
JUDGMENTS_FILE = "legal_judgments_dev.tsv.gz"

CHAPTER_CHARS = (1000, 12000)  # chapter length kept, characters (5th-95th percentile ~ 630-9000)
NEWS_CHARS = (500, 2000)  # target document length drawn uniformly in this range, characters
MAX_WORKS_PER_NOVEL = 3  # so that most indexed novels have unindexed chapters left as negatives
# (raised to 1.5 x works / novels when more works are asked than that allows)
SHINGLE = 12  # characters; long enough that stock phrases of the novels do not count as copying
WORK_OVERLAP = 0.05  # a work sharing more than this share of its 12-grams is a duplicate
NEGATIVE_OVERLAP = 0.02  # scattered shared stock phrases are tolerated in a negative ...
PASSAGE = 40  # ... but no copied passage of this many characters
JUDGMENT_CHARS = 150  # shortest judgment kept, characters (the engine's documented floor)
# Judgments share template clauses by design, so the 12-gram rules above would reject most of
# them; instead a judgment is a sibling of another (a batch of cases that differ in one name or
# amount, with the same dates and lawyers) when it shares more than this share of its 12-grams
# with that single judgment. Works are not siblings of each other, negatives of no work.
SIBLING_OVERLAP = 0.6

_SPACE = re.compile(r"\s+")


class CorpusError(ValueError):
    """Raised when the data folder is missing or holds too little text for the sizes asked."""


@dataclass(frozen=True)
class Doc:
    """One text of a corpus.

    Attributes:
        id: unique id (the upstream record id, or ``pd-NNNN`` for grouped news paragraphs).
        text: the text, characters as stored upstream.
        group: the novel's title for chapters, ``"news"`` for news documents.
    """

    id: str
    text: str
    group: str


@dataclass
class Corpus:
    """A benchmark corpus.

    Attributes:
        name: ``"novels"`` or ``"news"``.
        works: the documents that every detector indexes.
        negatives: kind -> documents that must match no work (``"same_novel"`` and ``"unrelated"``
            for the novels, ``"unrelated"`` for the news).
        hosts: unrelated documents used as the surrounding page of the excerpt edit.
        english: True for English text (``bench.edits.ENGLISH_EDITS`` apply, not ``EDITS``).
    """

    name: str
    works: list[Doc]
    negatives: dict[str, list[Doc]] = field(default_factory=dict)
    hosts: list[Doc] = field(default_factory=list)
    english: bool = False


def speed_options(description: str, corpora: str, pages: int | None = None,
                  repeat: str = "repeat") -> argparse.ArgumentParser:
    """The command line of a speed benchmark over the corpora: ``--corpora`` (comma-separated
    names, default ``corpora``), ``--works`` (300), ``--pages`` (least pages queried; only
    when ``pages`` is given, the default), ``--<repeat>`` (3 interleaved runs or passes),
    ``--seed`` (0) and ``--data`` (DATA_DIR). Returns the parser."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpora", default=corpora)
    parser.add_argument("--works", type=int, default=300)
    if pages is not None:
        parser.add_argument("--pages", type=int, default=pages)
    parser.add_argument(f"--{repeat}", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    return parser


def _shingles(text: str, size: int) -> set[int]:
    flat = _SPACE.sub("", text)
    return {hash(flat[i:i + size]) for i in range(max(1, len(flat) - size + 1))}


class _OverlapGuard:
    """What a text shares with the accepted works: its 12-gram share and any 40-character run."""

    def __init__(self, shingle: int = SHINGLE, passage: int = PASSAGE) -> None:
        self._seen: set[int] = set()
        self._passages: set[int] = set()
        self._size, self._passage = shingle, passage

    def overlap(self, text: str) -> float:
        shingles = _shingles(text, self._size)
        return len(shingles & self._seen) / len(shingles)

    def shares_passage(self, text: str) -> bool:
        return not self._passages.isdisjoint(_shingles(text, self._passage))

    def accept(self, text: str) -> None:
        self._seen |= _shingles(text, self._size)
        self._passages |= _shingles(text, self._passage)


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise CorpusError(f"{path} not found: the benchmark reads ../shared/data "
                          f"(set --data to another folder)")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def load_chapters(data_dir: Path = DATA_DIR,
                  chars: tuple[int, int] = CHAPTER_CHARS) -> list[Doc]:
    """Read the novels' chapters whose length is within ``chars``.

    Args:
        data_dir: folder holding ``novels_dev.jsonl.gz``.
        chars: (shortest, longest) chapter kept, characters.

    Returns:
        Docs in file order, ``group`` = the novel's title.

    Raises:
        CorpusError: the file is missing.
    """
    low, high = chars
    return [Doc(r["id"], r["text"], r["novel"]) for r in _read_jsonl(data_dir / NOVELS_FILE)
            if low <= len(r["text"]) <= high]


def load_news(data_dir: Path = DATA_DIR, seed: int = 0) -> list[Doc]:
    """Group People's Daily paragraphs, in reading order, into news-length documents.

    Each document takes consecutive paragraphs until it reaches a length drawn uniformly from
    ``NEWS_CHARS`` (characters); paragraphs are joined with newlines. The corpus has no article
    boundaries, so a document may span the end of one article and the start of the next, as a
    page of a news portal often does.

    Args:
        data_dir: folder holding ``peoples_daily_199801_dev.jsonl.gz``.
        seed: seed of the length draws.

    Returns:
        Docs with ids ``pd-0000``, ``pd-0001``, ... and ``group`` ``"news"``.

    Raises:
        CorpusError: the file is missing.
    """
    rng = random.Random(seed)
    docs: list[Doc] = []
    paragraphs: list[str] = []
    target = rng.randint(*NEWS_CHARS)
    for record in _read_jsonl(data_dir / NEWS_FILE):
        text = record["text"].strip()
        if not text:
            continue
        paragraphs.append(text)
        if sum(map(len, paragraphs)) >= target:
            docs.append(Doc(f"pd-{len(docs):04d}", "\n".join(paragraphs), "news"))
            paragraphs, target = [], rng.randint(*NEWS_CHARS)
    return docs


def load_judgments(data_dir: Path = DATA_DIR, min_chars: int = JUDGMENT_CHARS) -> list[Doc]:
    """Read the court judgments of ``legal_judgments_dev.tsv.gz`` (``category<TAB>text``).

    Args:
        data_dir: folder holding the file.
        min_chars: shortest judgment kept, characters.

    Returns:
        Docs in file order, ids ``j-NNNN`` (the line number from 0), ``group`` = the category;
        exact duplicate texts are kept once.

    Raises:
        CorpusError: the file is missing.
    """
    path = data_dir / JUDGMENTS_FILE
    if not path.exists():
        raise CorpusError(f"{path} not found: the benchmark reads ../shared/data "
                          f"(set --data to another folder)")
    docs, seen = [], set()
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            category, _, text = line.rstrip("\n").partition("\t")
            if len(text) >= min_chars and text not in seen:
                seen.add(text)
                docs.append(Doc(f"j-{number:04d}", text, category))
    return docs


class _SiblingGuard:
    """Largest share of a text's 12-grams that it shares with any single accepted text."""

    def __init__(self) -> None:
        self._postings: dict[int, list[int]] = defaultdict(list)
        self._count = 0

    def overlap(self, text: str) -> float:
        shingles = _shingles(text, SHINGLE)
        shared: dict[int, int] = defaultdict(int)
        for shingle in shingles:
            for owner in self._postings.get(shingle, ()):
                shared[owner] += 1
        return max(shared.values(), default=0) / len(shingles)

    def accept(self, text: str) -> None:
        for shingle in _shingles(text, SHINGLE):
            self._postings[shingle].append(self._count)
        self._count += 1


def build_judgments(works: int, negatives: int, hosts: int, seed: int = 0,
                    data_dir: Path = DATA_DIR) -> Corpus:
    """Sample the templated corpus of court judgments.

    Works are judgments of at least ``JUDGMENT_CHARS`` characters, no two of them siblings
    (see ``SIBLING_OVERLAP``); negatives (kind ``same_category``) are other judgments of the
    categories of the works, sharing their template clauses but no sibling of any work; hosts
    (for the excerpt edit) are People's Daily documents, as a news page quoting a judgment.

    Args:
        works: number of judgments to index.
        negatives: number of negatives.
        hosts: number of host documents.
        seed: sampling seed.
        data_dir: folder of the shared data.

    Returns:
        The Corpus.

    Raises:
        CorpusError: the data is missing or too small for the sizes asked (about 1,000
            judgments have 150 characters or more).
    """
    rng = random.Random(seed)
    docs = load_judgments(data_dir)
    rng.shuffle(docs)
    guard = _SiblingGuard()
    indexed: list[Doc] = []
    rest: list[Doc] = []
    for doc in docs:
        if len(indexed) < works and guard.overlap(doc.text) <= SIBLING_OVERLAP:
            guard.accept(doc.text)
            indexed.append(doc)
        else:
            rest.append(doc)
    _require(indexed, works, "distinct judgments")
    categories = {doc.group for doc in indexed}
    same = [doc for doc in rest if doc.group in categories
            and guard.overlap(doc.text) <= SIBLING_OVERLAP][:negatives]
    _require(same, negatives, "negative judgments")
    news = build_news(1, 0, hosts, seed, data_dir)
    return Corpus("judgments", indexed, {"same_category": same}, news.hosts)


def _take(candidates: list[Doc], count: int, guard: _OverlapGuard, limit: float,
          accept: bool) -> list[Doc]:
    taken = []
    for doc in candidates:
        if len(taken) == count:
            break
        if guard.overlap(doc.text) > limit or guard.shares_passage(doc.text):
            continue
        taken.append(doc)
        if accept:
            guard.accept(doc.text)
    return taken


def _require(docs: list[Doc], count: int, what: str) -> list[Doc]:
    if len(docs) < count:
        raise CorpusError(f"only {len(docs)} {what} available, {count} asked: lower the sizes")
    return docs


def build_novels(works: int, negatives: int, hosts: int, seed: int = 0,
                 data_dir: Path = DATA_DIR) -> Corpus:
    """Sample the novels corpus.

    Args:
        works: number of chapters to index.
        negatives: number of negatives of each kind (``same_novel``, ``unrelated``).
        hosts: number of host chapters for the excerpt edit.
        seed: sampling seed; the same seed gives the same corpus.
        data_dir: folder of the shared data.

    Returns:
        The Corpus.

    Raises:
        CorpusError: the data is missing or too small for the sizes asked.
    """
    rng = random.Random(seed)
    by_novel: dict[str, list[Doc]] = defaultdict(list)
    for doc in load_chapters(data_dir):
        by_novel[doc.group].append(doc)
    novels = sorted(by_novel)
    rng.shuffle(novels)
    for chapters in by_novel.values():
        rng.shuffle(chapters)
    guard = _OverlapGuard()
    indexed: list[Doc] = []
    used_novels: list[str] = []
    eligible = [novel for novel in novels if len(by_novel[novel]) >= 2]
    quota = max(MAX_WORKS_PER_NOVEL, math.ceil(1.5 * works / max(1, len(eligible))))
    for novel in eligible:  # a novel with one chapter leaves none for the same-novel negatives
        if len(indexed) >= works:
            break
        chapters = by_novel[novel]
        share = min(quota, len(chapters) - 1, works - len(indexed))
        picked = _take(chapters, share, guard, WORK_OVERLAP, accept=True)
        if picked:
            indexed.extend(picked)
            used_novels.append(novel)
    _require(indexed, works, "distinct chapters")
    indexed_ids = {doc.id for doc in indexed}
    same = [doc for novel in used_novels for doc in by_novel[novel] if doc.id not in indexed_ids]
    rng.shuffle(same)
    others = [doc for novel in novels if novel not in set(used_novels) for doc in by_novel[novel]]
    rng.shuffle(others)
    same_negatives = _require(_take(same, negatives, guard, NEGATIVE_OVERLAP, accept=False),
                              negatives, "same-novel negative chapters")
    pool = _take(others, negatives + hosts, guard, NEGATIVE_OVERLAP, accept=False)
    _require(pool, negatives + hosts, "unrelated chapters")
    return Corpus("novels", indexed,
                  {"same_novel": same_negatives, "unrelated": pool[:negatives]},
                  pool[negatives:])


def build_news(works: int, negatives: int, hosts: int, seed: int = 0,
               data_dir: Path = DATA_DIR) -> Corpus:
    """Sample the news corpus.

    Args:
        works: number of news documents to index.
        negatives: number of unrelated negatives (unindexed documents of the same month).
        hosts: number of host documents for the excerpt edit.
        seed: sampling seed.
        data_dir: folder of the shared data.

    Returns:
        The Corpus.

    Raises:
        CorpusError: the data is missing or too small for the sizes asked (about 700 documents
            exist in total).
    """
    rng = random.Random(seed)
    docs = load_news(data_dir, seed)
    rng.shuffle(docs)
    guard = _OverlapGuard()
    indexed = _require(_take(docs, works, guard, WORK_OVERLAP, accept=True), works,
                       "distinct news documents")
    indexed_ids = {doc.id for doc in indexed}
    rest = [doc for doc in docs if doc.id not in indexed_ids]
    pool = _require(_take(rest, negatives + hosts, guard, NEGATIVE_OVERLAP, accept=False),
                    negatives + hosts, "unindexed news documents")
    return Corpus("news", indexed, {"unrelated": pool[:negatives]}, pool[negatives:])


ANSWER_WORDS = (200, 300)  # words of an English answer, drawn uniformly
MAX_ANSWERS = 60  # English works at most; the rest are negatives
EN_SHINGLE = 30  # characters (about 5 words): 12 characters are stock phrases in English
EN_PASSAGE = 80  # characters: the longest shared run allowed (the reference's stock sentences)


def load_answers(seed: int = 0, lengths: tuple[int, int] = ANSWER_WORDS) -> list[Doc]:
    """English "answers" of 200-300 words from the Python language reference.

    The text is the reference documentation that ships with CPython in every installation
    (``pydoc_data.topics``, PSF licence): each topic's prose paragraphs (code examples and
    indented blocks left out) are joined, in order, into answers whose length is drawn from
    ``lengths``; a topic's remainder shorter than that is dropped.

    Args:
        seed: seed of the length draws.
        lengths: (least, most) words of an answer, drawn uniformly.

    Returns:
        Docs with ids ``en-NNN`` and ``group`` = the topic.
    """
    from pydoc_data.topics import topics

    rng = random.Random(seed)
    docs: list[Doc] = []
    for topic in sorted(topics):
        words: list[str] = []
        target = rng.randint(*lengths)
        for paragraph in re.split(r"\n\s*\n", topics[topic]):
            if paragraph.startswith(" ") or ">>>" in paragraph:
                continue
            words += paragraph.split()
            if len(words) >= target:
                docs.append(Doc(f"en-{len(docs):03d}", " ".join(words[:target]), topic))
                words, target = words[target:], rng.randint(*lengths)
    return docs


def build_english(works: int, negatives: int, hosts: int, seed: int = 0,
                  data_dir: Path = DATA_DIR, lengths: tuple[int, int] = ANSWER_WORDS) -> Corpus:
    """Sample the English corpus: 200-300-word answers (``load_answers``).

    At most ``MAX_ANSWERS`` works are indexed whatever ``works`` asks (126 answers exist, the
    overlap rules of the news apply, on 30-character shingles and 80-character passages: the
    reference repeats some sections under several topics); negatives are the other answers (same style and vocabulary), hosts are People's
    Daily documents (unused by the English edits, kept for a uniform Corpus).

    Args:
        works: number of answers to index (at most MAX_ANSWERS).
        negatives: number of negatives (at most the answers left).
        hosts: number of host documents.
        seed: sampling seed.
        data_dir: folder of the shared data (for the hosts).
        lengths: (least, most) words of an answer (``load_answers``).

    Returns:
        The Corpus, ``english`` set.

    Raises:
        CorpusError: the shared data is missing.
    """
    docs = load_answers(seed, lengths)
    random.Random(seed).shuffle(docs)
    guard = _OverlapGuard(EN_SHINGLE, EN_PASSAGE)  # the reference repeats sections under several topics
    indexed = _take(docs, min(works, MAX_ANSWERS), guard, WORK_OVERLAP, accept=True)
    taken = {doc.id for doc in indexed}
    rest = _take([doc for doc in docs if doc.id not in taken], negatives, guard,
                 NEGATIVE_OVERLAP, accept=False)
    news = build_news(1, 0, hosts, seed, data_dir)
    return Corpus("english", indexed, {"other_answers": rest}, news.hosts, english=True)


# The templated People's Daily paragraphs (``dailies``): wire datelines, meeting and visit
# reports, law articles, photo captions. Formula is text shared, up to its digits, by several
# paragraphs: digits become 0 so that "１月１３日电" and "１月８日电" are the same formula.
FORMULA_K = 8  # characters of a formula shingle (the formulas are short: datelines, titles)
FORMULA_DF = 3  # paragraphs sharing a shingle for it to be formula (2 is one story retold)
FORMULA_SHARE = 0.2  # share of a paragraph's shingles that are formula for it to be formulaic
NEGATIVE_FORMULA_SHARE = 0.1  # the same for a negative's first paragraph (more of them)
FORMULA_SHARED = 3  # formula shingles a negative shares with a work: "the same formula"
DAILY_CHARS = (60, 150)  # shortest formulaic paragraph; a work is extended to this length
DAILY_PARAGRAPHS = 3  # paragraphs of a work at most
MAX_DAILIES = 100  # works at most whatever --works asks (164 formulaic documents exist)
_DIGIT = re.compile(r"[0-9０-９]")


def _formula_shingles(text: str) -> set[str]:
    flat = _DIGIT.sub("0", _SPACE.sub("", text))
    return {flat[i:i + FORMULA_K] for i in range(len(flat) - FORMULA_K + 1)}


def load_dailies(data_dir: Path = DATA_DIR, share: float = FORMULA_SHARE
                 ) -> list[tuple[Doc, set[str]]]:
    """The formulaic People's Daily paragraphs, each made into a short templated document.

    A paragraph is formulaic when at least ``share`` of its ``FORMULA_K``-character
    shingles (digits replaced by 0) occur in ``FORMULA_DF`` or more distinct paragraphs, and it
    has at least ``DAILY_CHARS[0]`` characters. Its document is the paragraph followed, while
    shorter than ``DAILY_CHARS[1]`` characters, by the next paragraphs in reading order (at most
    ``DAILY_PARAGRAPHS`` in all, joined with newlines), as a wire item's opening; a paragraph
    already in a document starts none.

    Args:
        data_dir: folder holding ``peoples_daily_199801_dev.jsonl.gz``.
        share: least share of formula shingles in the first paragraph (0..1).

    Returns:
        (Doc, its formula shingles) in reading order; ids ``pdf-`` + the first paragraph's
        record number, ``group`` ``"dailies"``.

    Raises:
        CorpusError: the file is missing.
    """
    texts = [record["text"].strip() for record in _read_jsonl(data_dir / NEWS_FILE)]
    shingles = [_formula_shingles(text) for text in texts]
    df: Counter[str] = Counter()
    for text in dict.fromkeys(texts):  # a duplicated paragraph counts once
        df.update(_formula_shingles(text))
    formula = {s for s, n in df.items() if n >= FORMULA_DF}
    docs: list[tuple[Doc, set[str]]] = []
    used = -1
    for i, text in enumerate(texts):
        if (i <= used or len(text) < DAILY_CHARS[0]
                or len(shingles[i] & formula) < share * len(shingles[i])):
            continue
        used = i
        parts = [text]
        while (sum(map(len, parts)) < DAILY_CHARS[1] and len(parts) < DAILY_PARAGRAPHS
               and used + 1 < len(texts)):
            used += 1
            if texts[used]:
                parts.append(texts[used])
        docs.append((Doc(f"pdf-{i:04d}", "\n".join(parts), "dailies"), shingles[i] & formula))
    return docs


def build_dailies(works: int, negatives: int, hosts: int, seed: int = 0,
                  data_dir: Path = DATA_DIR) -> Corpus:
    """Sample the templated corpus of formulaic People's Daily paragraphs (``load_dailies``).

    At most ``MAX_DAILIES`` works are indexed whatever ``works`` asks. As for the judgments, no
    two works are siblings (``SIBLING_OVERLAP`` of their 12-grams shared: one item quoting
    another) and no work, negative or host shares a ``PASSAGE``-character run with a work (a
    story retold with copied sentences is a real match); negatives (kind ``same_formula``) are
    the other formulaic documents that share at least ``FORMULA_SHARED`` formula shingles with
    a work (documents of ``load_dailies`` at ``NEGATIVE_FORMULA_SHARE``, holding no paragraph
    of a work); hosts (for the excerpt edit) are news documents (``load_news``) holding no paragraph
    of a work or negative, screened as the news hosts are.

    Args:
        works: number of documents to index (at most MAX_DAILIES).
        negatives: number of negatives (at most those left).
        hosts: number of host documents.
        seed: sampling seed.
        data_dir: folder of the shared data.

    Returns:
        The Corpus.

    Raises:
        CorpusError: the data is missing, or fewer hosts than asked are left.
    """
    rng = random.Random(seed)
    docs = load_dailies(data_dir)
    rng.shuffle(docs)
    siblings, passages = _SiblingGuard(), _OverlapGuard()
    indexed: list[Doc] = []
    formula: set[str] = set()
    for doc, shingles in docs:
        if (len(indexed) < min(works, MAX_DAILIES) and siblings.overlap(doc.text)
                <= SIBLING_OVERLAP and not passages.shares_passage(doc.text)):
            siblings.accept(doc.text)
            passages.accept(doc.text)
            indexed.append(doc)
            formula |= shingles
    taken = {line for doc in indexed for line in doc.text.split("\n")}
    rest = load_dailies(data_dir, NEGATIVE_FORMULA_SHARE)
    rng.shuffle(rest)
    same = [doc for doc, shingles in rest if taken.isdisjoint(doc.text.split("\n"))
            and len(shingles & formula) >= FORMULA_SHARED
            and siblings.overlap(doc.text) <= SIBLING_OVERLAP
            and not passages.shares_passage(doc.text)][:negatives]
    taken |= {line for doc in same for line in doc.text.split("\n")}
    news = [doc for doc in load_news(data_dir, seed) if taken.isdisjoint(doc.text.split("\n"))]
    rng.shuffle(news)
    pool = _require(_take(news, hosts, passages, NEGATIVE_OVERLAP, accept=False), hosts,
                    "host news documents")
    return Corpus("dailies", indexed, {"same_formula": same}, pool)
