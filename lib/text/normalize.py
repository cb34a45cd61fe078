"""The one normalisation of extracted text: every offset (chapters, matched passages) refers to
its result."""

from __future__ import annotations

import re

from .gbk_pua import map_gbk_private_use

_BLANKS = re.compile(r"[ \t\u3000\xa0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def normalize(text: str) -> str:
    """Canonical form of extracted text.

    ``\\r\\n`` and ``\\r`` become ``\\n``; NUL and byte-order-mark (U+FEFF) characters are
    dropped; runs of spaces, tabs, ideographic spaces (U+3000) and no-break spaces become one
    space; lines are stripped; runs of blank lines become one blank line; the whole is stripped;
    private-use code points of GBK-era converters become their GB 18030 characters
    (``gbk_pua``: U+E82F -> 㳠), one for one. Line breaks between paragraphs are kept, so
    passages stay readable. Idempotent.

    Args:
        text: str.

    Returns:
        The normalised str.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\ufeff", "")
    text = map_gbk_private_use(text)
    lines = (_BLANKS.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
