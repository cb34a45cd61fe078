"""The body paragraphs of a .docx read as a stream (lxml iterparse), with their style names.

python-docx builds the whole document tree first: a 6.5 MB file whose document.xml holds
100 MB of small paragraphs took 138 s and 1.3 GB. Here each body paragraph is dropped once
read, and reading stops as soon as the text passes the limit. The text of a paragraph and the
name of its style are python-docx's (``Paragraph.text``, ``Paragraph.style.name``).
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator

from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_OFFICE_DOCUMENT = "/officeDocument"
_STYLES = "/styles"
# python-docx's BabelFish: styles.xml names these in lower case, Word's interface capitalised.
_UI_NAMES = {"caption": "Caption", "footer": "Footer", "header": "Header",
             **{f"heading {n}": f"Heading {n}" for n in range(1, 10)}}
_RUN_TEXT = {W + "tab": "\t", W + "ptab": "\t", W + "cr": "\n", W + "noBreakHyphen": "-"}


def _parser() -> etree.XMLParser:
    """No entities resolved, no network, no DTD: a document is data."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _target(archive: zipfile.ZipFile, rels: str, kind: str, default: str) -> str:
    """The part a relationship of type ending in ``kind`` in part ``rels`` points to."""
    try:
        root = etree.fromstring(archive.read(rels), _parser())
    except (KeyError, etree.XMLSyntaxError):
        return default
    base = posixpath.dirname(posixpath.dirname(rels))
    for rel in root.iter(_REL):
        if rel.get("Type", "").endswith(kind) and rel.get("TargetMode") != "External":
            return posixpath.normpath(posixpath.join(base, rel.get("Target", ""))).lstrip("/")
    return default


def _styles(archive: zipfile.ZipFile, part: str) -> tuple[dict[str, str], str]:
    """Paragraph style id -> name as python-docx gives it, and the default paragraph style's
    name ("" when styles.xml is missing or says none)."""
    rels = posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")
    try:
        root = etree.fromstring(archive.read(_target(archive, rels, _STYLES, "word/styles.xml")),
                                _parser())
    except (KeyError, etree.XMLSyntaxError):
        return {}, ""
    names, default = {}, ""
    for style in root.iter(W + "style"):
        if style.get(W + "type") != "paragraph":
            continue
        node = style.find(W + "name")
        name = _UI_NAMES.get(node.get(W + "val"), node.get(W + "val")) if node is not None else ""
        names[style.get(W + "styleId")] = name or ""
        if style.get(W + "default") in ("1", "true", "on"):
            default = name or ""
    return names, default


def _run_text(run: etree._Element) -> str:
    parts = []
    for child in run:
        if child.tag == W + "t":
            parts.append(child.text or "")
        elif child.tag == W + "br":
            parts.append("\n" if child.get(W + "type", "textWrapping") == "textWrapping" else "")
        else:
            parts.append(_RUN_TEXT.get(child.tag, ""))
    return "".join(parts)


def _paragraph_text(paragraph: etree._Element) -> str:
    """python-docx's ``Paragraph.text``: its runs and its hyperlinks' runs, in order."""
    parts = []
    for child in paragraph:
        if child.tag == W + "r":
            parts.append(_run_text(child))
        elif child.tag == W + "hyperlink":
            parts.extend(_run_text(run) for run in child if run.tag == W + "r")
    return "".join(parts)


def body_paragraphs(archive: zipfile.ZipFile) -> Iterator[tuple[str, str]]:
    """``(style name, text)`` of each paragraph directly in the document's body, in order (as
    python-docx's ``Document.paragraphs``: not those inside tables or content controls).

    Raises:
        KeyError: no main document part; lxml.etree.XMLSyntaxError: it is not well-formed XML.
    """
    part = _target(archive, "_rels/.rels", _OFFICE_DOCUMENT, "word/document.xml")
    names, default = _styles(archive, part)
    body = W + "body"
    with archive.open(part) as stream:
        for _event, element in etree.iterparse(stream, events=("end",), resolve_entities=False,
                                               no_network=True, load_dtd=False,
                                               tag=(W + "p", W + "tbl", W + "sdt")):
            parent = element.getparent()
            if parent is None or parent.tag != body:
                continue  # inside a table or a content control: dropped with it
            if element.tag == W + "p":
                style = element.find(f"{W}pPr/{W}pStyle")
                name = names.get(style.get(W + "val"), default) if style is not None else default
                yield name, _paragraph_text(element)
            element.clear()
            while element.getprevious() is not None:  # what was read is dropped
                del parent[0]
