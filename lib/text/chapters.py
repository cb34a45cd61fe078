"""Chapters: heading lines of Chinese novels (第X章 / 第X回) and English "Chapter N" lines, or
chapters given separately (EPUB documents, DOCX headings), as sections with character offsets."""

from __future__ import annotations

import re
from typing import TypedDict

# A heading is a line of its own, at most 60 characters: 第 + a number in Chinese or Arabic
# digits + 章 (chapter) or 回 (chapter of a classical novel), then an optional chapter title.
HEADING_RE = re.compile(
    r"^[ \t\u3000]*(第[0-9０-９零〇一二三四五六七八九十百千万两]{1,8}[章回](?:[ \t\u3000:：].{0,50})?"
    r"|(?:Chapter|CHAPTER)[ \t]+(?:[0-9]+|[IVXLC]+)\b.{0,50})[ \t\u3000]*$",
    re.MULTILINE,
)
_TITLE_MAX = 200  # characters of a section title kept


class Section(TypedDict):
    """One chapter: ``title`` (str, at most 200 characters), ``start`` and ``end`` (character
    offsets into the text, end exclusive). Stored as a plain dict (Work.sections)."""

    title: str
    start: int
    end: int


def is_heading(line: str) -> bool:
    """True when ``line`` (str, one line) is a chapter heading (第X章, 第X回, Chapter N)."""
    return HEADING_RE.fullmatch(line.strip()) is not None


def find_sections(text: str) -> list[Section]:
    """Split ``text`` at its chapter heading lines.

    Args:
        text: the normalised text (``\\n`` newlines).

    Returns:
        One Section per heading line, running to the next heading or the end of the text
        (contiguous); text before the first heading belongs to no section. Empty when there is
        no heading.
    """
    return sections_at([(m.start(1), m.group(1).strip()) for m in HEADING_RE.finditer(text)],
                       len(text))


def sections_at(heads: list[tuple[int, str]], length: int) -> list[Section]:
    """Sections starting at given offsets.

    Args:
        heads: ``[(start, title)]``, character offsets in increasing order.
        length: the text's length in characters (the last section's end).

    Returns:
        One Section per head, each running to the next head's start (the last to ``length``).
    """
    return [{"title": title.strip()[:_TITLE_MAX], "start": start,
             "end": heads[i + 1][0] if i + 1 < len(heads) else length}
            for i, (start, title) in enumerate(heads)]


def join_sections(parts: list[tuple[str, str]]) -> tuple[str, list[Section]]:
    """Concatenate chapters given separately (EPUB spine documents).

    Args:
        parts: ``[(title, text)]`` in reading order, each text already normalised; empty texts
            are dropped.

    Returns:
        (text, sections): the chapters joined by a blank line, and one Section per chapter
        (contiguous, as ``find_sections`` gives them).
    """
    chunks: list[str] = []
    heads: list[tuple[int, str]] = []
    pos = 0
    for title, body in parts:
        if not body:
            continue
        if chunks:
            chunks.append("\n\n")
            pos += 2
        heads.append((pos, title))
        chunks.append(body)
        pos += len(body)
    return "".join(chunks), sections_at(heads, pos)
