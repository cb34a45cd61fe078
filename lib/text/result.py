"""The one result of the text package: normalised text, its chapters and what was found about it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .chapters import Section


@dataclass(frozen=True)
class Extracted:
    """Text of an upload or of a crawled page.

    Attributes:
        text: the normalised text (``lib.text.normalize``); every offset (sections, matched
            passages) refers to it, in characters. '' when extraction failed.
        format: what the bytes were: "html", "txt" (plain text: a .txt upload or a text/plain
            page), "docx", "pdf", "epub" or "pasted".
        method: how the text was found: "resiliparse" (HTML main content), "visible" (HTML,
            the whole visible text when the main content is empty), "plain", "python-docx",
            "pypdf", "ebooklib"; stored pages of earlier releases also say "trafilatura",
            "baseline" or "html2txt".
        sections: chapters with character offsets (contiguous, in order), empty when none.
        encoding: the byte encoding used for text and HTML (e.g. "utf-8", "gb18030",
            "big5hkscs"), else None.
        title: the title found in the content (see ``lib.text.formats``), or "".
        author: the author found in the content, or "".
        date: the publication date of an HTML page, ISO "YYYY-MM-DD", or None.
        error: None when body text was found, else why not: "empty_document", "no_text"
            (shorter than ``TextConfig.min_text_chars``), "parse_error: ...". Only the crawl
            path reads it; uploads raise TextError instead.
    """

    text: str
    format: str
    method: str
    sections: list[Section] = field(default_factory=list)
    encoding: str | None = None
    title: str = ""
    author: str = ""
    date: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when body text was found (``error`` is None)."""
        return self.error is None
