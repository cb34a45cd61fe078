"""Which chapters of a work a page copies: the one chapter attribution of the platform.

Matching (``Match.section``), the evidence view and report, takedown notices, the exports and
``manage.py matches`` all name chapters through ``attribute``, so they always agree.

A matched passage's edges are approximate: the engine aligns letters, and a passage may start
or end a few characters into the neighbouring chapter (the Big5 reprint of chapter 2 of 西游记
matches from the last character of chapter 1, 「解」, four characters before 第二回). So a passage
is split at every chapter boundary of the work, and a piece shorter than the engine's shortest
passage (``EngineConfig.min_passage_letters`` characters) is a sliver that merely spills over:
it is dropped, unless it is all there is of the passage. What remains never crosses a chapter
boundary; each chapter is named once, with the matched characters it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fingerprint import EngineConfig, Passage


@dataclass(frozen=True)
class ChapterShare:
    """One chapter of a work that a page copies.

    Attributes:
        title: the chapter's title (``Work.sections[i]["title"]``).
        chars: characters of the work's text in this chapter covered by matched passages.
    """

    title: str
    chars: int


@dataclass(frozen=True)
class Attribution:
    """The chapters a match covers and its passages cut at the chapter boundaries.

    Attributes:
        passages: the passages in the order given, each split where it crossed a chapter
            boundary of the work and without spilled-over slivers; every one lies inside one
            chapter (or wholly outside every chapter: a preface, a work without chapters).
        chapters: the chapters holding matched characters, in the work's order, each once.
    """

    passages: list[Passage]
    chapters: list[ChapterShare]

    @property
    def titles(self) -> list[str]:
        """The chapter titles in the work's order (list of str; empty when none)."""
        return [chapter.title for chapter in self.chapters]

    @property
    def label(self) -> str:
        """The titles joined by "; " (``Match.section``, the exports' chapter column)."""
        return "; ".join(self.titles)


def passages_from_json(stored: Iterable[dict]) -> list[Passage]:
    """Passages from their stored JSON form (``Passage.to_dict()``: a list of dicts with
    ``page_start``, ``page_end``, ``work_start``, ``work_end``, character offsets).

    Raises:
        ValueError: a passage lacks a key, holds a non-integer offset, or ends before it starts.
    """
    passages = []
    for i, item in enumerate(stored or []):
        try:
            passage = Passage(*(int(item[key]) for key in
                                ("page_start", "page_end", "work_start", "work_end")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"passage {i + 1} is malformed: {item!r}") from exc
        if passage.page_end < passage.page_start or passage.work_end < passage.work_start:
            raise ValueError(f"passage {i + 1} ends before it starts: {item!r}")
        passages.append(passage)
    return passages


def attribute(sections: Sequence[dict], passages: Iterable[Passage],
              min_piece_chars: int | None = None) -> Attribution:
    """Split ``passages`` at the chapter boundaries of a work and name the chapters they cover.

    Args:
        sections: ``Work.sections``: ``[{"title": str, "start": int, "end": int}]`` in text
            order, character offsets (end exclusive) into the work's text; may be empty.
        passages: the match's passages (``fingerprint.Passage``), character offsets.
        min_piece_chars: pieces of a split passage shorter than this many characters of the
            work are dropped as slivers (default: ``EngineConfig().min_passage_letters``, the
            engine's shortest passage; a passage is never dropped whole).

    Returns:
        An Attribution. A piece's page offsets are interpolated linearly between the passage's
        page edges (the alignment inside a passage is near one-to-one); an unsplit passage keeps
        its offsets exactly.
    """
    if min_piece_chars is None:
        min_piece_chars = EngineConfig().min_passage_letters
    bounds = sorted({x for s in sections for x in (s["start"], s["end"])})
    chars = [0] * len(sections)
    kept: list[Passage] = []
    for passage in passages:
        cuts = [passage.work_start,
                *(b for b in bounds if passage.work_start < b < passage.work_end),
                passage.work_end]
        pieces = list(zip(cuts, cuts[1:], strict=False)) or [(passage.work_start, passage.work_end)]
        wanted = [(a, b) for a, b in pieces if b - a >= min_piece_chars]
        if not wanted:  # a short passage: keep its longest piece (the first of equals)
            wanted = [max(pieces, key=lambda piece: piece[1] - piece[0])]
        for a, b in wanted:
            kept.append(_piece(passage, a, b))
            for i, section in enumerate(sections):
                if section["start"] <= a and b <= section["end"]:
                    chars[i] += b - a
                    break
    return Attribution(kept, [ChapterShare(section["title"], chars[i])
                              for i, section in enumerate(sections) if chars[i] > 0])


def _piece(passage: Passage, start: int, end: int) -> Passage:
    """The part of ``passage`` between work offsets ``start`` and ``end``, page offsets mapped
    linearly from the work side."""
    if (start, end) == (passage.work_start, passage.work_end):
        return passage
    span = passage.work_end - passage.work_start
    page_span = passage.page_end - passage.page_start

    def page_at(offset: int) -> int:
        return passage.page_start + round((offset - passage.work_start) * page_span / span)

    return Passage(page_at(start), page_at(end), start, end)
