"""Uploads: a file's format told by its content and checked against its name, then its reader."""

from __future__ import annotations

import re
from pathlib import PurePath

from . import formats
from .archives import open_zip
from .config import DEFAULT, TextConfig
from .encoding import decode_bytes
from .errors import TextError
from .html import extract_document
from .normalize import normalize
from .result import Extracted

# File name suffix -> format.
SUFFIXES = {".txt": "txt", ".text": "txt", ".docx": "docx", ".pdf": "pdf",
            ".epub": "epub", ".html": "html", ".htm": "html", ".xhtml": "html"}
# Magic bytes of formats people upload by mistake -> the key of what they are.
FOREIGN = [(b"\xd0\xcf\x11\xe0", "doc"), (b"Rar!", "rar"), (b"7z\xbc\xaf", "7z"),
           (b"\x89PNG", "image"), (b"\xff\xd8\xff", "image"), (b"GIF8", "image"),
           (b"\x1f\x8b", "gzip"), (b"{\\rtf", "rtf")]
_HTML_RE = re.compile(rb"<(?:!doctype\s+html|html|head|body|meta|title|p|div|article)[\s>/]",
                      re.IGNORECASE)
_TEXT_LIKE = {"txt", "html"}


def supported_suffixes() -> list[str]:
    """File name suffixes accepted for upload (lower case, with the dot), sorted."""
    return sorted(SUFFIXES)


def sniff(data: bytes, config: TextConfig = DEFAULT, what: str = "ZIP") -> str:
    """Tell a file's format from its first bytes; ``what`` names a ZIP container in the
    errors of opening it (the format its name declares, e.g. "DOCX").

    Returns:
        "pdf", "docx", "epub", "zip" (another ZIP), "html", "txt", or "foreign:KEY" for a
        recognised format that is not accepted (KEY: "doc", "rar", "7z", "image", "gzip",
        "rtf", "binary").

    Raises:
        TextError: "archive_bomb" or "corrupt" from opening a ZIP container.
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        names = set(open_zip(data, what, config).namelist())
        if "word/document.xml" in names:
            return "docx"
        if "META-INF/container.xml" in names:
            return "epub"
        return "zip"
    for magic, key in FOREIGN:
        if data.startswith(magic):
            return f"foreign:{key}"
    head = data[:4096]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "foreign:binary"
    return "html" if _HTML_RE.search(head) else "txt"


def extract_file(name: str, data: bytes, config: TextConfig = DEFAULT) -> Extracted:
    """Extract a work's text from an uploaded file.

    HTML goes through the crawler's own path (``decode_bytes`` with no header, then
    ``extract_document``), so a page gives the same text whether uploaded or crawled; plain
    text is decoded strictly.

    Args:
        name: the file's name as uploaded (its suffix must be one of ``supported_suffixes()``).
        data: its bytes.
        config: the limits.

    Returns:
        The Extracted text, sections and metadata.

    Raises:
        TextError: ("too_large", "too_large", size=, limit=) over ``config.upload_max_bytes``;
            ("too_large", "text_chars", name=, chars=, limit=) over ``config.text_max_chars``;
            ("unsupported", "suffix", name=, suffix=, types=); ("empty", "no_bytes", name=);
            ("unsupported", "foreign", name=, suffix=, what=KEY); ("mismatch", "mismatch",
            name=, suffix=, found=FORMAT); ("empty", "no_text", name=) when the text has no
            letter or digit (e.g. a scanned PDF); and the readers' "corrupt", "encrypted",
            "archive_bomb", "encoding" errors.
    """
    check_size(len(data), config)
    declared = check_name(name)
    suffix = PurePath(name).suffix.lower()
    if not data:
        raise TextError("empty", "no_bytes", name=name)
    found = sniff(data, config, suffix.lstrip(".").upper() or "ZIP")
    if found.startswith("foreign:"):
        raise TextError("unsupported", "foreign", name=name, suffix=suffix, what=found[8:])
    if found != declared and not (found in _TEXT_LIKE and declared in _TEXT_LIKE):
        raise TextError("mismatch", "mismatch", name=name, suffix=suffix, found=found)
    if declared in _TEXT_LIKE:
        decoded = decode_bytes(data, strict=declared == "txt", config=config)
        extracted = extract_document(decoded.text, "html" if declared == "html" else "text",
                                     encoding=decoded.encoding, config=config)
    else:
        extracted = {"docx": formats.read_docx, "pdf": formats.read_pdf,
                     "epub": formats.read_epub}[declared](data, config)
    check_text(extracted.text, name, config)
    return extracted


def extract_pasted(text: str, config: TextConfig = DEFAULT) -> Extracted:
    """Prepare pasted text (str) as a work: normalised, chapter headings become sections.

    Raises:
        TextError: ("too_large", "too_large", size=, limit=) when its UTF-8 size is over
            ``config.upload_max_bytes``; ("too_large", "text_chars", ...) over
            ``config.text_max_chars`` characters; ("empty", "no_text", name=None).
    """
    check_size(len(text.encode("utf-8")), config)
    extracted = extract_document(normalize(text), "text", config=config)
    check_text(extracted.text, None, config)
    return Extracted(extracted.text, "pasted", "plain", extracted.sections)


def check_size(size: int, config: TextConfig = DEFAULT) -> None:
    """Raise TextError("too_large", "too_large", size=, limit=) when ``size`` (bytes) is over
    ``config.upload_max_bytes``."""
    if size > config.upload_max_bytes:
        raise TextError("too_large", "too_large", size=size, limit=config.upload_max_bytes)


def check_name(name: str) -> str:
    """The format ("txt", "html", "docx", "pdf", "epub") ``name``'s suffix declares.

    Raises:
        TextError("unsupported", "suffix", name=, suffix=, types=): a suffix not accepted.
    """
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUFFIXES:
        raise TextError("unsupported", "suffix", name=name, suffix=suffix or "(-)",
                        types=" ".join(supported_suffixes()))
    return SUFFIXES[suffix]


def check_text(text: str, name: str | None, config: TextConfig = DEFAULT) -> None:
    """Raise TextError("too_large", "text_chars", name=, chars=, limit=) when ``text`` is longer
    than ``config.text_max_chars`` characters, TextError("empty", "no_text", name=) when it has
    no letter or digit; ``name`` is the file's name, None for pasted text."""
    if len(text) > config.text_max_chars:
        raise TextError("too_large", "text_chars", name=name, chars=len(text),
                        limit=config.text_max_chars)
    if not any(ch.isalnum() for ch in text):
        raise TextError("empty", "no_text", name=name)
