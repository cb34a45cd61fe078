"""Validating an upload and choosing its reader: by the file's content, checked against its name."""

from __future__ import annotations

import re
from pathlib import PurePath

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import formats
from .archives import open_zip
from .chapters import find_sections
from .errors import UploadError
from .result import Extracted

# File name suffix -> format.
SUFFIXES = {".txt": "txt", ".text": "txt", ".docx": "docx", ".pdf": "pdf",
            ".epub": "epub", ".html": "html", ".htm": "html", ".xhtml": "html"}
READERS = {"txt": formats.read_txt, "html": formats.read_html, "docx": formats.read_docx,
           "pdf": formats.read_pdf, "epub": formats.read_epub}
# Magic bytes of formats people upload by mistake -> what to tell them.
_FOREIGN = [(b"\xd0\xcf\x11\xe0", gettext_lazy("a Word 97-2003 (.doc) or other old Office file: save "
                                        "it as .docx")),
            (b"Rar!", gettext_lazy("a RAR archive")), (b"7z\xbc\xaf", gettext_lazy("a 7-Zip archive")),
            (b"\x89PNG", gettext_lazy("an image")), (b"\xff\xd8\xff", gettext_lazy("an image")),
            (b"GIF8", gettext_lazy("an image")), (b"\x1f\x8b", gettext_lazy("a gzip archive")),
            (b"{\\rtf", gettext_lazy("an RTF file"))]
_HTML_RE = re.compile(rb"<(?:!doctype\s+html|html|head|body|meta|title|p|div|article)[\s>/]",
                      re.IGNORECASE)


def supported_suffixes() -> list[str]:
    """File name suffixes accepted for upload (lower case, with the dot)."""
    return sorted(SUFFIXES)


def sniff(data: bytes) -> str:
    """Tell a file's format from its first bytes.

    Returns:
        "pdf", "docx", "epub", "zip" (another ZIP), "html", "txt", or "foreign: <what it is>"
        for a recognised format that is not accepted.

    Raises:
        UploadError: "archive_bomb" or "corrupt" from opening a ZIP container.
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        names = set(open_zip(data).namelist())
        if "word/document.xml" in names:
            return "docx"
        if "META-INF/container.xml" in names:
            return "epub"
        return "zip"
    for magic, what in _FOREIGN:
        if data.startswith(magic):
            return f"foreign: {what}"
    head = data[:4096]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "foreign: " + _("a binary file, not text")
    return "html" if _HTML_RE.search(head) else "txt"


def extract_file(name: str, data: bytes) -> Extracted:
    """Extract a work's text from an uploaded file.

    Args:
        name: the file's name as uploaded (its suffix must be one of ``supported_suffixes()``).
        data: its bytes.

    Returns:
        The Extracted text, sections and metadata.

    Raises:
        UploadError: "too_large" (over settings.UPLOAD_MAX_BYTES bytes), "unsupported" (suffix
            or content not accepted), "mismatch" (the content is not what the suffix says),
            "corrupt", "encrypted", "archive_bomb", "encoding", or "empty" (no letters in the
            extracted text, e.g. a scanned PDF without a text layer).
    """
    _check_size(len(data))
    suffix = PurePath(name).suffix.lower()
    declared = SUFFIXES.get(suffix)
    if declared is None:
        raise UploadError("unsupported", _("%(name)s: files of type %(type)s are not accepted; "
                                           "use one of %(types)s.") % {
            "name": name, "type": suffix or "(-)", "types": " ".join(supported_suffixes())})
    if not data:
        raise UploadError("empty", _("%(name)s is empty.") % {"name": name})
    found = sniff(data)
    if found.startswith("foreign: "):
        raise UploadError("unsupported", _("%(name)s is %(what)s, not a %(type)s file.") % {
            "name": name, "what": found[9:], "type": suffix})
    text_like = {"txt", "html"}
    if found != declared and not (found in text_like and declared in text_like):
        raise UploadError("mismatch", _("%(name)s is named %(type)s but its content is "
                                        "%(what)s. Rename it or upload the right file.") % {
            "name": name, "type": suffix, "what": _describe(found)})
    extracted = READERS[declared](data)
    _check_text(extracted.text, name)
    return extracted


def extract_pasted(text: str) -> Extracted:
    """Prepare pasted text as a work (chapter headings become sections).

    Raises:
        UploadError: "too_large" (UTF-8 size over settings.UPLOAD_MAX_BYTES) or "empty".
    """
    _check_size(len(text.encode("utf-8")))
    clean = formats.normalize(text)
    _check_text(clean, _("The pasted text"))
    return Extracted(text=clean, format="pasted",
                     sections=find_sections(clean))


def _describe(found: str) -> str:
    return {"pdf": _("a PDF"), "docx": _("a Word document (.docx)"), "epub": _("an EPUB book"),
            "zip": _("a ZIP archive"), "html": _("an HTML page"), "txt": _("plain text")}[found]


def _check_size(size: int) -> None:
    limit = settings.UPLOAD_MAX_BYTES
    if size > limit:
        raise UploadError("too_large", _("The file is %(size).1f MB; the limit is %(mb)d MB.")
                          % {"size": size / 2**20, "mb": limit // 2**20})


def _check_text(text: str, what: str) -> None:
    if not any(ch.isalnum() for ch in text):
        raise UploadError("empty", _("%(what)s contains no text (no letters or digits were "
                                     "found; a scanned PDF has no text layer).") % {"what": what})
