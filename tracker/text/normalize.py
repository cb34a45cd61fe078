"""The one normalisation of extracted text: every offset (chapters, matched passages) refers to
its result."""

from __future__ import annotations

import re

_BLANKS = re.compile(r"[ \t\u3000\xa0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def normalize(text: str) -> str:
    """Canonical form of extracted text.

    ``\\r\\n`` and ``\\r`` become ``\\n``; NUL and byte-order-mark (U+FEFF) characters are
    dropped; runs of spaces, tabs, ideographic spaces (U+3000) and no-break spaces become one
    space; lines are stripped; runs of blank lines become one blank line; the whole is stripped.
    Line breaks between paragraphs are kept, so passages stay readable. Idempotent.

    Args:
        text: str.

    Returns:
        The normalised str.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\ufeff", "")
    lines = (_BLANKS.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
