"""The result of extraction: normalized text, its chapters and what was found about it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Extracted:
    """Text ready to register as a work.

    Attributes:
        text: the canonical text (newlines ``\\n``, no BOM or NUL); stored in MongoDB as is,
            and every offset (sections, matched passages) refers to it, in characters.
        sections: chapters ``[{"title": str, "start": int, "end": int}]`` (character offsets,
            end exclusive, in order), empty when none were found.
        format: "pasted", "txt", "docx", "pdf", "epub" or "html".
        encoding: the byte encoding detected for .txt and .html (e.g. "utf-8", "gb18030",
            "big5"), else None.
        title: the title found in the document (metadata, first heading or first line), or "".
        author: the author found in the document, or "".
    """

    text: str
    format: str
    sections: list[dict] = field(default_factory=list)
    encoding: str | None = None
    title: str = ""
    author: str = ""
