"""Outgoing links of a fetched document: HTML anchors, sitemap <loc>s, RSS/Atom item links.

Sitemaps follow sitemaps.org 0.9 (urlset and sitemapindex); feeds are RSS 2.0 (<item><link>)
and Atom 1.0 (<entry><link href>). Links are returned absolute, in document order, unfiltered:
canonicalization, scope and trap checks are the caller's.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml import etree

from lib.text.html import ParsedHtml, parse_html
from lib.text.untrusted import ascii_int

_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "#")
# Anchor texts of a "next page" link (brackets, arrows and spaces removed, lower case): the
# wording of Chinese novel and news sites and of English ones. "下一章" (next chapter) is not one.
NEXT_PAGE_WORDS = frozenset({"下一页", "下页", "下一頁", "下頁", "后一页", "後一頁", "nextpage",
                             "next"})
_DECORATION = re.compile(r"[\s\[\]【】()（）<>《》«»‹›→>:：.。…-]+")
# The last path segment of part N (2..999) of a chapter page: 123_2.html, 123-2.html, 123_2/
_PART_SEGMENT = re.compile(r"^(?P<stem>.+?)[_-](?P<n>[2-9]|[1-9]\d{1,2})(?P<ext>\.[A-Za-z]+)?$")
# Query parameters that number the parts of a page: ?page=2, ?p=2, ?pn=2
_PART_PARAMS = ("page", "p", "pn")


def _tree(document: str | ParsedHtml):
    """The lxml tree of ``document`` (parsed here when given as str), or None."""
    return (document if isinstance(document, ParsedHtml) else parse_html(document)).tree


def html_links(document: str | ParsedHtml, base_url: str) -> list[str]:
    """Absolute URLs of the <a href> and <area href> of an HTML ``document`` (str, or its
    ``lib.text.html.parse_html`` result, whose tree is then reused).

    Honours <base href>; skips javascript:, mailto:, tel:, data: and fragment-only links and
    rel="nofollow" anchors. Returns a list of str (empty for unparsable markup).
    """
    tree = _tree(document)
    if tree is None:
        return []
    base_el = tree.find(".//base[@href]")
    base = _join(base_url, base_el.get("href")) if base_el is not None else base_url
    out = []
    for el in tree.iter("a", "area"):
        href = (el.get("href") or "").strip()
        if not href or href.lower().startswith(_SKIP_SCHEMES):
            continue
        if "nofollow" in (el.get("rel") or "").lower().split():
            continue
        out.append(_join(base or base_url, href))
    return [u for u in out if u]


def _join(base: str, href: str) -> str:
    """``urljoin(base, href)``, or '' for an href that is no URL (e.g. "http://[::1")."""
    try:
        return urljoin(base, href)
    except ValueError:
        return ""


def xml_links(document: bytes, base_url: str) -> list[str]:
    """URLs listed by a sitemap, sitemap index, RSS or Atom ``document`` (raw bytes, so the XML
    declaration's encoding applies). Returns a list of absolute str URLs; [] when the bytes are
    not well-formed XML or not one of these formats."""
    try:
        root = etree.fromstring(document, parser=etree.XMLParser(resolve_entities=False,
                                                                 no_network=True, huge_tree=False))
    except etree.XMLSyntaxError:
        return []
    out = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        name = etree.QName(el).localname
        if name == "loc" and el.text:
            out.append(el.text.strip())
        elif name == "link":
            href = el.get("href") if el.get("href") else (el.text or "").strip()
            if href and el.get("rel", "alternate") == "alternate":
                out.append(href)
    return [u for u in (_join(base_url, u) for u in out) if u]


def chapter_part(url: str) -> tuple[str, int]:
    """The chapter page ``url`` (str) is a part of, and its part number, judged by the URL alone:
    ``.../123_2.html`` or ``.../123-2.html`` -> (``.../123.html``, 2); ``...?page=3`` ->
    (the URL without ``page``, 3); any other URL -> (url, 1). Returns (str, int).
    """
    parts = urlsplit(url)
    head, _, last = parts.path.rpartition("/")
    found = _PART_SEGMENT.match(last)
    if found:
        path = f"{head}/{found['stem']}{found['ext'] or ''}"
        return urlunsplit(parts._replace(path=path)), int(found["n"])
    query = parse_qsl(parts.query, keep_blank_values=True)
    for name, value in query:
        number = ascii_int(value) if name in _PART_PARAMS else None
        if number is not None and number >= 2:
            rest = urlencode([(k, v) for k, v in query if k != name])
            return urlunsplit(parts._replace(query=rest)), number
    return url, 1


def chapter_of(url: str, links: list[str], next_parts: list[str]) -> str:
    """The chapter page that the page at ``url`` is a part of, or '' when it is no part of a
    chapter split over several pages. It is one when it has a next part (``next_parts``, from
    ``next_part_links``) or when it is part n >= 2 by its URL and links to another part of the
    same chapter (its "上一页" or the first part), among ``links``. All URLs canonical str.
    Returns the first part's URL (str) or ''."""
    chapter, number = chapter_part(url)
    if next_parts or (number >= 2 and any(chapter_part(u)[0] == chapter and u != url for u in links)):
        return chapter
    return ""


def next_part_links(document: str | ParsedHtml, url: str) -> list[str]:
    """The links of HTML ``document`` (str or ``parse_html`` result, the page at ``url``) to the next part of the same
    chapter page: an anchor labelled "下一页" / "next page" (NEXT_PAGE_WORDS) or rel="next" whose
    URL is part n + 1 of the chapter ``url`` is part n of (``chapter_part``). A "下一页" that
    leads to another chapter does not count. Returns absolute URLs (list of str, usually 0 or 1).
    """
    tree = _tree(document)
    if tree is None:
        return []
    chapter, number = chapter_part(url)
    out = []
    for el in tree.iter("a"):
        href = (el.get("href") or "").strip()
        if not href or href.lower().startswith(_SKIP_SCHEMES):
            continue
        label = _DECORATION.sub("", el.text_content() or "").lower()
        if label not in NEXT_PAGE_WORDS and "next" not in (el.get("rel") or "").lower().split():
            continue
        target = _join(url, href)
        if target and chapter_part(target) == (chapter, number + 1):
            out.append(target)
    return list(dict.fromkeys(out))
