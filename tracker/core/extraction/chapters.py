"""Chapter headings of Chinese novels (第X章 / 第X回) and English "Chapter N" lines -> sections."""

from __future__ import annotations

import re

# A heading is a line of its own, at most 60 characters: 第 + a number in Chinese or Arabic
# digits + 章 (chapter) or 回 (chapter of a classical novel), then an optional chapter title.
HEADING_RE = re.compile(
    r"^[ \t\u3000]*(第[0-9０-９零〇一二三四五六七八九十百千万两]{1,8}[章回](?:[ \t\u3000:：].{0,50})?"
    r"|(?:Chapter|CHAPTER)[ \t]+(?:[0-9]+|[IVXLC]+)\b.{0,50})[ \t\u3000]*$",
    re.MULTILINE,
)


def find_sections(text: str) -> list[dict]:
    """Split ``text`` at its chapter heading lines.

    Args:
        text: the canonical text (``\\n`` newlines).

    Returns:
        ``[{"title": str, "start": int, "end": int}]``: each heading line starts a section that
        runs to the next heading or the end of the text (character offsets, end exclusive);
        text before the first heading belongs to no section. Empty when there is no heading.
    """
    heads = [(m.start(1), m.group(1).strip()) for m in HEADING_RE.finditer(text)]
    return [{"title": title, "start": start,
             "end": heads[i + 1][0] if i + 1 < len(heads) else len(text)}
            for i, (start, title) in enumerate(heads)]


def join_sections(parts: list[tuple[str, str]]) -> tuple[str, list[dict]]:
    """Concatenate chapters given separately (EPUB spine documents, DOCX headings).

    Args:
        parts: ``[(title, text)]`` in reading order; empty texts are dropped.

    Returns:
        (text, sections): the chapters joined by a blank line, and one section per chapter
        with its character offsets into that text.
    """
    chunks: list[str] = []
    sections: list[dict] = []
    pos = 0
    for title, body in parts:
        body = body.strip()
        if not body:
            continue
        if chunks:
            chunks.append("\n\n")
            pos += 2
        sections.append({"title": title.strip()[:200], "start": pos, "end": pos + len(body)})
        chunks.append(body)
        pos += len(body)
    return "".join(chunks), sections
