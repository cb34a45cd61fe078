"""Outgoing links of a fetched document: HTML anchors, sitemap <loc>s, RSS/Atom item links.

Sitemaps follow sitemaps.org 0.9 (urlset and sitemapindex); feeds are RSS 2.0 (<item><link>)
and Atom 1.0 (<entry><link href>). Links are returned absolute, in document order, unfiltered:
canonicalization, scope and trap checks are the caller's.
"""

from __future__ import annotations

from urllib.parse import urljoin

from lxml import etree
from lxml import html as lxml_html

_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "#")


def html_links(document: str, base_url: str) -> list[str]:
    """Absolute URLs of the <a href> and <area href> of an HTML ``document`` (str).

    Honours <base href>; skips javascript:, mailto:, tel:, data: and fragment-only links and
    rel="nofollow" anchors. Returns a list of str (empty for unparsable markup).
    """
    try:
        tree = lxml_html.fromstring(document)
    except (etree.ParserError, ValueError):
        return []
    base_el = tree.find(".//base[@href]")
    base = urljoin(base_url, base_el.get("href")) if base_el is not None else base_url
    out = []
    for el in tree.iter("a", "area"):
        href = (el.get("href") or "").strip()
        if not href or href.lower().startswith(_SKIP_SCHEMES):
            continue
        if "nofollow" in (el.get("rel") or "").lower().split():
            continue
        out.append(urljoin(base, href))
    return out


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
    return [urljoin(base_url, u) for u in out]
