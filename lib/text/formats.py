"""Office formats: bytes -> Extracted. Titles and authors come from the content, never from a
file's properties (a Word file's author and "last modified by" are a PC user name, or the
generator's name such as "python-docx"; a PDF's /Title is often "Microsoft Word - x.docx").

Libraries: python-docx (.docx), pypdf (.pdf), EbookLib (.epub), lxml (XHTML chapters).
"""

from __future__ import annotations

import io
import warnings
import zipfile
import zlib

import ebooklib
import lxml.html
from ebooklib import epub
from lxml import etree
from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

from .archives import open_zip
from .chapters import find_sections, is_heading, join_sections, sections_at
from .config import DEFAULT, TextConfig
from .errors import TextError
from .html import front_matter
from .normalize import normalize
from .result import Extracted
from .wordml import body_paragraphs

_BLOCK_TAGS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
               "article", "blockquote", "pre", "table", "ul", "ol", "dd", "dt"}
_CHAPTER_STYLES = ("Heading 1", "Heading 2")


def _within_limit(read: int, config: TextConfig, parts: int = 0, what: str = "") -> int:
    """``read`` (characters of text read so far, counted so as to be at most the final text's
    length), or TextError("too_large", "text_chars_over", limit=) once it passes
    ``config.text_max_chars``, or TextError("too_large", "parts", what=, limit=) once
    ``parts`` (paragraphs, pages or documents read so far) passes ``config.max_parts``: a
    reader stops there instead of reading the rest."""
    if read > config.text_max_chars:
        raise TextError("too_large", "text_chars_over", limit=config.text_max_chars)
    if parts > config.max_parts:
        raise TextError("too_large", "parts", what=what, limit=config.max_parts)
    return read


def read_docx(data: bytes, config: TextConfig = DEFAULT) -> Extracted:
    """A Word .docx: paragraphs in order; Heading 1/2 paragraphs start sections (else 第X章
    lines do).

    Title: the first paragraph in the Title style, else the first Heading 1 that is not a
    chapter heading, else the first short paragraph (``front_matter``). Author: an
    ``作者：NAME`` paragraph among the first ones. The core properties are never read.

    The body is read as a stream (``wordml.body_paragraphs``, python-docx's paragraphs and
    style names) and reading stops once the text is longer than ``config.text_max_chars``.

    Raises:
        TextError: from ``open_zip``; ("corrupt", "corrupt", what="DOCX", error=) when the
            document part is missing or not XML; ("too_large", "text_chars_over", limit=)
            once its text passes ``config.text_max_chars`` characters; ("too_large",
            "parts", what="DOCX", limit=) past ``config.max_parts`` paragraphs.
    """
    archive = open_zip(data, "DOCX", config)
    paragraphs: list[tuple[str, str]] = []
    # the text is the normalised paragraphs joined by "\n", one blank line for blank ones;
    # a paragraph normalises to itself there, so heading offsets can be counted while joining
    chunks: list[str] = []
    heads: list[tuple[int, str]] = []
    pos, blank, read = 0, False, 0
    try:
        for style, raw in body_paragraphs(archive):
            paragraphs.append((style, normalize(raw)))
            line = paragraphs[-1][1]  # one line break at least before each but the first
            read = _within_limit(read + len(line) + (1 if line and read else 0), config,
                                 len(paragraphs), "DOCX")
    except TextError:
        raise
    except (KeyError, ValueError, etree.XMLSyntaxError, zipfile.BadZipFile, zlib.error,
            EOFError, OSError, RuntimeError) as exc:  # bad CRC or deflate data, encrypted entry
        raise TextError("corrupt", "corrupt", what="DOCX", error=exc) from exc
    for style, line in paragraphs:
        if not line:
            blank = bool(chunks)
            continue
        if chunks:
            sep = "\n\n" if blank else "\n"
            chunks.append(sep)
            pos += len(sep)
        blank = False
        if style.startswith(_CHAPTER_STYLES):
            heads.append((pos, line.split("\n", 1)[0]))
        chunks.append(line)
        pos += len(line)
    text = "".join(chunks)
    sections = sections_at(heads, len(text)) if heads else find_sections(text)
    styled = [line for style, line in paragraphs if line and style.startswith("Title")] or \
        [line for style, line in paragraphs if line and style.startswith("Heading 1")
         and not is_heading(line) and len(line) <= config.title_max_chars]
    title, author = front_matter(text.split("\n"), config)
    return Extracted(text, "docx", "python-docx", sections, title=styled[0] if styled else title,
                     author=author)


def read_pdf(data: bytes, config: TextConfig = DEFAULT) -> Extracted:
    """A PDF's text layer, page by page (pypdf). Scanned pages without text give no text.

    Title: the first heading line: the text set in the largest font on the first page when it
    is larger than the rest, else the first short line (``front_matter``). Author: an
    ``作者：NAME`` line. The document information (/Title, /Author) is never read.

    Raises:
        TextError("encrypted", "password"): the PDF needs a password.
        TextError("encrypted", "unreadable", error=): its encryption cannot be read.
        TextError("corrupt", "corrupt", what="PDF", error=): pypdf cannot parse it.
        TextError("too_large", "text_chars_over", limit=): the pages read so far hold more
            than ``config.text_max_chars`` characters (the rest is not read).
        TextError("too_large", "parts", what="PDF", limit=): more than ``config.max_parts``
            pages.
    """
    runs: list[tuple[float, str]] = []

    def visit(text, cm, tm, font, size):  # pypdf's visitor: effective size = size x scale
        if text.strip():
            runs.append((abs(size * tm[3] * cm[3]) or size, text.strip()))

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise TextError("encrypted", "password")
            pages, read = [], 0
            for n, page in enumerate(reader.pages):
                pages.append(page.extract_text(visitor_text=visit if n == 0 else None) or "")
                read = _within_limit(read + len(normalize(pages[-1])), config, n + 1, "PDF")
    except (FileNotDecryptedError, DependencyError) as exc:
        raise TextError("encrypted", "unreadable", error=exc) from exc
    except TextError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise TextError("corrupt", "corrupt", what="PDF", error=exc) from exc
    text = normalize("\n".join(pages))
    title, author = front_matter(text.split("\n"), config)
    sizes = {size for size, _ in runs}
    if len(sizes) > 1:
        largest = max(sizes)
        heading = normalize(" ".join(run for size, run in runs if size == largest))
        if heading and len(heading) <= config.title_max_chars:
            title = heading
    return Extracted(text, "pdf", "pypdf", find_sections(text), title=title, author=author)


def read_epub(data: bytes, config: TextConfig = DEFAULT) -> Extracted:
    """An EPUB: each document of the reading order (spine) with text becomes a section, titled
    by its first heading (else its first line). Title and author: dc:title and dc:creator.

    Raises:
        TextError: from ``open_zip``; ("corrupt", "corrupt", what="EPUB", error=) when
            EbookLib cannot read it; ("too_large", "text_chars_over", limit=) once the
            documents read hold more than ``config.text_max_chars`` characters;
            ("too_large", "parts", what="EPUB", limit=) past ``config.max_parts`` documents.
    """
    open_zip(data, "EPUB", config)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except (epub.EpubException, LookupError, ValueError, AttributeError, TypeError, OSError,
            SyntaxError) as exc:  # a package without spine or manifest: TypeError, IndexError
        raise TextError("corrupt", "corrupt", what="EPUB", error=exc) from exc
    parts: list[tuple[str, str]] = []
    read = 0
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        body = normalize(xhtml_text(item.get_content()))
        read = _within_limit(read + len(body), config, len(parts) + 1, "EPUB")
        parts.append((_heading(item.get_content()) or body.split("\n", 1)[0][:60], body))
    text, sections = join_sections(parts)
    return Extracted(text, "epub", "ebooklib", sections,
                     title=_first_metadata(book, "title"), author=_first_metadata(book, "creator"))


def _first_metadata(book, name: str) -> str:
    """The first non-empty Dublin Core ``name`` of an EbookLib book, normalised; "" when none
    (an empty element such as ``<dc:creator/>`` has the value None)."""
    values = (normalize(value) for value, _attrs in book.get_metadata("DC", name) if value)
    return next((value for value in values if value), "")


def xhtml_text(content: bytes) -> str:
    """Visible text of an (X)HTML document (bytes), one line per block element; scripts and
    styles dropped. Returns "" for a document without a body."""
    try:
        root = lxml.html.fromstring(content)
    except (ValueError, lxml.etree.ParserError):
        return ""
    for bad in root.xpath("//script|//style|//head"):
        bad.drop_tree()
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.lower() in _BLOCK_TAGS:
            element.tail = "\n" + (element.tail or "")
    return root.text_content()


def _heading(content: bytes) -> str:
    try:
        found = lxml.html.fromstring(content).xpath("(//h1|//h2|//h3)[1]")
    except (ValueError, lxml.etree.ParserError):
        return ""
    return " ".join(found[0].text_content().split()) if found else ""
