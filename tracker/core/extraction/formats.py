"""One reader per file format: bytes -> Extracted (text, sections, title, author).

Libraries: python-docx (.docx), pypdf (.pdf), EbookLib (.epub), trafilatura (.html body text,
favouring recall), lxml (XHTML chapters of an EPUB), w3lib (the charset an HTML page declares).
"""

from __future__ import annotations

import io
import re
import warnings

from django.utils.translation import gettext as _

from .archives import open_zip
from .chapters import find_sections, join_sections
from .encoding import decode_text, detect_chinese_encoding
from .errors import UploadError
from .result import Extracted

_AUTHOR_RE = re.compile(r"^\s*(?:作者|著者|Author|By)\s*[:：]\s*(.{1,100}?)\s*$", re.IGNORECASE)
_BLOCK_TAGS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
               "article", "blockquote", "pre", "table", "ul", "ol", "dd", "dt"}


def read_txt(data: bytes) -> Extracted:
    """Plain text in UTF-8 (with or without BOM), UTF-16, GB18030/GBK/GB2312 or Big5.

    The first line is taken as the title when it is at most 60 characters long and more text
    follows; a second line ``作者：NAME`` (or ``Author: NAME``) gives the author. Chapter
    headings (第X章, 第X回) become sections.
    """
    text, encoding = decode_text(data)
    text = normalize(text)
    lines = text.split("\n", 2)
    title = lines[0].strip() if len(lines) > 1 and len(lines[0].strip()) <= 60 else ""
    match = _AUTHOR_RE.match(lines[1]) if title and len(lines) > 1 else None
    return Extracted(text=text, format="txt", sections=find_sections(text), encoding=encoding,
                     title=title, author=match.group(1) if match else "")


def read_html(data: bytes) -> Extracted:
    """An HTML page: its body text by trafilatura (recall favoured), else all visible text.

    The encoding comes from a byte-order mark, then the page's meta charset, then detection.
    """
    import trafilatura
    from w3lib.encoding import html_to_unicode

    encoding, html = html_to_unicode(None, data, auto_detect_fun=_detect_for_w3lib)
    body = trafilatura.extract(html, favor_recall=True, include_comments=False,
                               include_tables=True)
    if not body:
        body = xhtml_text(html.encode("utf-8"))
    meta = trafilatura.extract_metadata(html)
    text = normalize(body)
    return Extracted(text=text, format="html", sections=find_sections(text), encoding=encoding,
                     title=(meta.title or "") if meta else "",
                     author=(meta.author or "") if meta else "")


def _detect_for_w3lib(data: bytes) -> str | None:
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return detect_chinese_encoding(data)


def read_docx(data: bytes) -> Extracted:
    """A Word .docx: paragraphs in order; Heading 1/2 paragraphs (or 第X章 lines) start sections.

    Raises:
        UploadError("corrupt"): python-docx cannot read the document.
    """
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    open_zip(data, "DOCX")
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, SyntaxError) as exc:
        raise UploadError("corrupt", _("The %(what)s file is damaged and cannot be opened "
                                       "(%(error)s).") % {"what": "DOCX", "error": exc}) from exc
    paragraphs = [(p.style.name if p.style is not None else "", p.text)
                  for p in document.paragraphs]
    props = document.core_properties
    if any(style.startswith(("Heading 1", "Heading 2", "Title")) for style, _ in paragraphs):
        parts: list[tuple[str, str]] = []
        for style, line in paragraphs:
            if style.startswith(("Heading 1", "Heading 2")) or not parts:
                parts.append((line, line + "\n"))
            else:
                parts[-1] = (parts[-1][0], parts[-1][1] + line + "\n")
        # Normalized per chapter, as in read_epub: normalizing the joined text would shift
        # the section offsets join_sections computed.
        text, sections = join_sections([(title, normalize(body)) for title, body in parts])
    else:
        text = normalize("\n".join(line for _, line in paragraphs))
        sections = find_sections(text)
    return Extracted(text=text, format="docx", sections=sections, title=props.title or "",
                     author=props.author or "")


def read_pdf(data: bytes) -> Extracted:
    """A PDF's text layer, page by page (pypdf). Scanned pages without text give no text.

    Raises:
        UploadError("encrypted"): the PDF needs a password.
        UploadError("corrupt"): pypdf cannot parse it.
    """
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise UploadError("encrypted", _("The PDF is encrypted with a password. Remove "
                                                 "the password (print to a new PDF) and upload "
                                                 "it again."))
            pages = [page.extract_text() or "" for page in reader.pages]
            meta = reader.metadata
    except (FileNotDecryptedError, DependencyError) as exc:
        raise UploadError("encrypted", _("The PDF is encrypted and cannot be read (%(error)s).")
                          % {"error": exc}) from exc
    except UploadError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise UploadError("corrupt", _("The %(what)s file is damaged and cannot be opened "
                                       "(%(error)s).") % {"what": "PDF", "error": exc}) from exc
    text = normalize("\n".join(pages))
    return Extracted(text=text, format="pdf", sections=find_sections(text),
                     title=str(meta.title or "") if meta else "",
                     author=str(meta.author or "") if meta else "")


def read_epub(data: bytes) -> Extracted:
    """An EPUB: each document of the reading order (spine) with text becomes a section, titled
    by its first heading (else its first line).

    Raises:
        UploadError("corrupt"): not a readable EPUB.
    """
    import ebooklib
    from ebooklib import epub

    open_zip(data, "EPUB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except (epub.EpubException, KeyError, ValueError, AttributeError, OSError,
            SyntaxError) as exc:
        raise UploadError("corrupt", _("The %(what)s file is damaged and cannot be opened "
                                       "(%(error)s).") % {"what": "EPUB", "error": exc}) from exc
    parts = []
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        body = normalize(xhtml_text(item.get_content()))
        parts.append((_heading(item.get_content()) or body.split("\n", 1)[0][:60], body))
    text, sections = join_sections(parts)
    titles = book.get_metadata("DC", "title")
    creators = book.get_metadata("DC", "creator")
    return Extracted(text=text, format="epub", sections=sections,
                     title=titles[0][0] if titles else "",
                     author=creators[0][0] if creators else "")


def xhtml_text(content: bytes) -> str:
    """Visible text of an (X)HTML document, one line per block element; scripts and styles
    dropped. Returns "" for a document without a body."""
    import lxml.html

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
    import lxml.html

    try:
        found = lxml.html.fromstring(content).xpath("(//h1|//h2|//h3)[1]")
    except (ValueError, lxml.etree.ParserError):
        return ""
    return " ".join(found[0].text_content().split()) if found else ""


def normalize(text: str) -> str:
    """Canonical form of extracted text: ``\\n`` newlines, no NUL or BOM characters, trailing
    spaces removed from lines, at most one blank line in a row, no blank start or end."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\ufeff", "")
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n").rstrip()
