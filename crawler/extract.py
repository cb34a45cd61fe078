"""Body text, title and publication date of a page.

trafilatura (Barbaresi, ACL 2021 demo; best F1 in its own and in ScrapingHub's article-extraction
benchmarks) in its recall-favouring mode: a copied chapter surrounded by portal furniture must
not lose paragraphs, and the engine's containment score tolerates leftover boilerplate better
than missing text. When trafilatura finds no main content, its baseline (all text of <body>
paragraphs) is tried, then plain html2txt; plain-text bodies are taken as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import trafilatura
from lxml import html as lxml_html
from trafilatura.settings import set_date_params

MIN_TEXT_CHARS = 20  # shorter than one sentence: nothing worth matching
# htmldate without its "extensive" dateparser fallback: that fallback took 23 of 33 s crawling
# the demo site (measured with cProfile), for dates the metadata and URL patterns already give
_DATE_PARAMS = set_date_params(extensive=False)
# fast=True skips trafilatura's readability/jusText comparison: on the 35 GeneralNewsExtractor
# pages it gave the same 74,386 characters 22% faster; our own fallbacks below remain
_BLANKS = re.compile(r"[ \t\u3000\xa0]+")
_LINES = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class Extracted:
    """Result of extraction. ``text``: body text (str, '' on failure); ``title`` and ``date``
    (ISO 'YYYY-MM-DD') or None; ``method``: 'trafilatura', 'baseline', 'html2txt' or 'plain';
    ``error``: None on success, else the reason ('empty_document', 'no_text',
    'parse_error: ...')."""

    text: str
    title: str | None
    date: str | None
    method: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when body text was found."""
        return self.error is None


def normalize_text(text: str) -> str:
    """Collapse runs of spaces (ASCII, ideographic U+3000, no-break) and blank lines; strip.

    Takes and returns str. Line breaks between paragraphs are kept, so passages stay readable.
    """
    lines = (_BLANKS.sub(" ", line).strip() for line in text.replace("\r", "\n").split("\n"))
    return _LINES.sub("\n\n", "\n".join(lines)).strip()


def extract(document: str, kind: str = "html", url: str | None = None) -> Extracted:
    """Extract the body text of ``document`` (decoded str).

    ``kind``: 'html' or 'text' (see crawler.fetch.kind_of); ``url`` helps trafilatura resolve
    metadata. Returns Extracted; never raises on bad markup (the failure is in ``error``).
    """
    if kind == "text":
        text = normalize_text(document)
        return Extracted(text, None, None, "plain", None if len(text) >= MIN_TEXT_CHARS else "no_text")
    if not document.strip():
        return Extracted("", None, None, "trafilatura", "empty_document")
    try:
        tree = lxml_html.fromstring(document)
    except Exception as exc:  # lxml raises several unrelated types on broken markup
        return Extracted("", None, None, "trafilatura", f"parse_error: {type(exc).__name__}: {exc}")
    # trafilatura prunes the tree it is given: each method gets the string and parses its own
    doc = trafilatura.bare_extraction(document, url=url, favor_recall=True, with_metadata=True,
                                      include_comments=False, include_tables=True, fast=True,
                                      date_extraction_params=_DATE_PARAMS)
    title = (doc.title if doc else None) or _html_title(tree)
    date = doc.date if doc else None
    for method, text in (("trafilatura", doc.text if doc else ""),
                         ("baseline", trafilatura.baseline(document)[1]),
                         ("html2txt", trafilatura.html2txt(document))):
        text = normalize_text(text or "")
        if len(text) >= MIN_TEXT_CHARS:
            return Extracted(text, title, date, method)
    return Extracted("", title, date, "trafilatura", "no_text")


def _html_title(tree) -> str | None:
    found = tree.findtext(".//title")
    return found.strip() if found and found.strip() else None
