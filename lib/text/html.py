"""Body text, title, author and date of an HTML page, and the plain-text reading of a document.

Body text: resiliparse's main-content extraction (Bevendorff et al., "An Empirical Comparison of
Web Content Extraction Algorithms", SIGIR 2023; lexbor parser, built for web-archive scale),
and the page's whole visible text when the main-content heuristics keep nothing (a page whose
article sits in markup they take for furniture); one lexbor tree serves both. Chosen by ``bench/extract_bench.py`` and
docs/decisions/extraction.md: 20 times faster than trafilatura's recall mode with a higher
body-text recall. Title, author and date come from one lxml tree (trafilatura's meta-tag,
JSON-LD and title steps, htmldate), which the crawler also reads links from (``parse_html``).
The same code serves uploads and crawled pages, so the same HTML gives the same text and
offsets whichever way it arrives.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any

from htmldate import find_date
from lxml import html as lxml_html
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.html import HTMLTree
from trafilatura import metadata as trafilatura_metadata
from trafilatura.settings import set_date_params

from .chapters import find_sections, is_heading
from .config import DEFAULT, TextConfig
from .normalize import normalize
from .result import Extracted

# htmldate without its "extensive" dateparser fallback: that fallback took 23 of 33 s crawling
# the demo site (measured with cProfile), for dates the metadata and URL patterns already give
_DATE_PARAMS = set_date_params(extensive=False)
_AUTHOR_RE = re.compile(r"^(?:作者|著者|Author|By)\s*[:：]\s*(.{1,100}?)$", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedHtml:
    """An HTML document parsed once: ``document`` (str), ``tree`` (the lxml root element, or
    None when lxml refused the markup) and ``error`` ("parse_error: ..." then, else None).
    Give it to ``extract_document`` and to the crawler's link readers instead of the string."""

    document: str
    tree: Any
    error: str | None = None


def parse_html(document: str) -> ParsedHtml:
    """Parse HTML ``document`` (str) with lxml; never raises (a refusal is in ``error``)."""
    try:
        return ParsedHtml(document, lxml_html.fromstring(document))
    except Exception as exc:  # lxml raises several unrelated types on broken markup
        return ParsedHtml(document, None, f"parse_error: {type(exc).__name__}: {exc}")


def extract_document(document: str | ParsedHtml, kind: str = "html", url: str | None = None,
                     encoding: str | None = None, config: TextConfig = DEFAULT,
                     with_author: bool = True, with_date: bool = True) -> Extracted:
    """Extract the text of a decoded document.

    Args:
        document: the decoded str (``lib.text.decode_bytes``), or for HTML its
            ``parse_html`` result (the caller reuses the tree).
        kind: "html" or "text" (plain text: normalised as it is, title and author from its
            first lines, see ``front_matter``).
        url: the page's URL, helps the date heuristics; None for uploads.
        encoding: recorded in the result.
        config: ``min_text_chars`` and the front-matter limits are used.
        with_author: look for an author in the page body when its meta tags name none
            (trafilatura's author heuristics, the costliest metadata step); the crawler, which
            stores no author, passes False. The text is the same either way.
        with_date: find the page's publication date (htmldate, ~1.7 ms of CPU a news page:
            Chinese news pages rarely state it in meta tags or JSON-LD, so it searches the
            body); False leaves ``date`` None (the crawler: nothing reads a page's date).

    Returns:
        Extracted (method "resiliparse" or "visible") with sections found by ``find_sections``.
        Never raises on bad markup: the failure is in ``error`` ("empty_document",
        "no_text", "parse_error: ...").
    """
    if isinstance(document, ParsedHtml):
        parsed, document = document, document.document
    else:
        parsed = None
    if kind != "html":
        text = normalize(document)
        title, author = front_matter(text.split("\n"), config)
        return Extracted(text, "txt", "plain", find_sections(text), encoding, title, author,
                         error=None if len(text) >= config.min_text_chars else "no_text")
    if not document.strip():
        return Extracted("", "html", "resiliparse", encoding=encoding, error="empty_document")
    parsed = parsed or parse_html(document)
    title, author, date = ("", "", None) if parsed.tree is None else \
        _metadata(parsed.tree, url, with_author, with_date)
    try:
        tree = HTMLTree.parse(document)
        for method, main in (("resiliparse", True), ("visible", False)):
            # list bullets and image alt texts are not the page's text: a copy has neither
            text = normalize(extract_plain_text(tree, main_content=main, list_bullets=False,
                                                alt_texts=False))
            if len(text) >= config.min_text_chars:
                return Extracted(text, "html", method, find_sections(text), encoding, title,
                                 author, date)
    except Exception as exc:  # noqa: BLE001 - resiliparse's parser exception, or a bug of it
        return Extracted("", "html", "resiliparse", encoding=encoding, title=title,
                         author=author, date=date,
                         error=f"parse_error: {type(exc).__name__}: {exc}")
    return Extracted("", "html", "resiliparse", encoding=encoding, title=title, author=author,
                     date=date, error=parsed.error or "no_text")


def front_matter(lines: list[str], config: TextConfig = DEFAULT) -> tuple[str, str]:
    """Title and author from the first lines (or paragraphs) of a document's content.

    Title: the first non-empty line when it is at most ``config.title_max_chars`` characters,
    is not a chapter heading or an author line, and more text follows. Author: a line
    ``作者：NAME`` (also 著者, Author:, By) among the first ``config.front_matter_lines``
    non-empty lines.

    Args:
        lines: the lines in order (str).
        config: the TextConfig.

    Returns:
        (title, author), each "" when not found.
    """
    first = [line.strip() for line in lines if line.strip()][:config.front_matter_lines]
    author = next((m.group(1).strip() for m in map(_AUTHOR_RE.match, first) if m), "")
    title = ""
    if len(first) > 1 and len(first[0]) <= config.title_max_chars and \
            not _AUTHOR_RE.match(first[0]) and not is_heading(first[0]):
        title = first[0]
    return title, author


def _metadata(tree, url: str | None, with_author: bool,
              with_date: bool) -> tuple[str, str, str | None]:
    """(title, author, date) of a parsed page: the steps of trafilatura's ``extract_metadata``
    that we use (meta tags, JSON-LD, title heuristics, author heuristics, htmldate), without
    the site name, categories, tags and license it also looks for: those took 43% of its time
    on the 35 pages of news_html_dev (bench/extract_bench.py), for fields nobody reads."""
    meta = trafilatura_metadata.examine_meta(tree)
    if meta.author and " " not in meta.author:  # as extract_metadata does
        meta.author = None
    with contextlib.suppress(Exception):  # trafilatura's JSON-LD parser has bugs on odd markup
        meta = trafilatura_metadata.extract_meta_json(tree, meta)
    title = meta.title or trafilatura_metadata.extract_title(tree)
    author = meta.author or (trafilatura_metadata.extract_author(tree) if with_author else None)
    date = None
    if with_date:
        with contextlib.suppress(Exception):  # htmldate asserts on some trees (a lone <iframe>)
            date = find_date(tree, **{**_DATE_PARAMS, "url": meta.url or url})
    meta.title, meta.author = title, author
    meta.clean_and_trim()
    return meta.title or _html_title(tree) or "", meta.author or "", date


def _html_title(tree) -> str | None:
    found = tree.findtext(".//title")
    return found.strip() if found and found.strip() else None
