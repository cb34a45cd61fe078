"""Django side of the text package: limits from settings, TextError worded in the user's language.

``extract_file`` and ``extract_pasted`` call ``lib.text`` with a ``TextConfig`` built from
settings (UPLOAD_MAX_BYTES, ARCHIVE_MAX_UNCOMPRESSED_BYTES, ARCHIVE_MAX_RATIO) and turn its
``TextError`` into ``UploadError``, whose ``str()`` is the message for the user (gettext,
zh-hans and English).
"""

from __future__ import annotations

import zipfile

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from lib import text
from lib.text import Extracted, TextError, supported_suffixes

from .errors import CoreError

__all__ = ["Extracted", "UploadError", "check_size", "check_upload", "extract_file",
           "extract_pasted", "open_zip", "supported_suffixes", "text_config"]

_FOREIGN = {"doc": gettext_lazy("a Word 97-2003 (.doc) or other old Office file: save it as .docx"),
            "rar": gettext_lazy("a RAR archive"), "7z": gettext_lazy("a 7-Zip archive"),
            "image": gettext_lazy("an image"), "gzip": gettext_lazy("a gzip archive"),
            "rtf": gettext_lazy("an RTF file"), "binary": gettext_lazy("a binary file, not text")}
_FORMATS = {"pdf": gettext_lazy("a PDF"), "docx": gettext_lazy("a Word document (.docx)"),
            "epub": gettext_lazy("an EPUB book"), "zip": gettext_lazy("a ZIP archive"),
            "html": gettext_lazy("an HTML page"), "txt": gettext_lazy("plain text")}
_MESSAGES = {
    ("too_large", "too_large"): gettext_lazy("The file is %(size).1f MB; the limit is %(mb)d MB."),
    ("too_large", "text_chars"): gettext_lazy("The text has %(chars)d characters; a work may "
                                              "have at most %(limit)d."),
    ("too_large", "text_chars_over"): gettext_lazy("The text has more than %(limit)d "
                                                   "characters, the most a work may have."),
    ("too_large", "parts"): gettext_lazy("The %(what)s file has more than %(limit)d paragraphs, "
                                         "pages or chapters, the most a work may have."),
    ("unsupported", "suffix"): gettext_lazy("%(name)s: files of type %(type)s are not accepted; "
                                            "use one of %(types)s."),
    ("empty", "no_bytes"): gettext_lazy("%(name)s is empty."),
    ("unsupported", "foreign"): gettext_lazy("%(name)s is %(what)s, not a %(type)s file."),
    ("mismatch", "mismatch"): gettext_lazy("%(name)s is named %(type)s but its content is "
                                           "%(what)s. Rename it or upload the right file."),
    ("empty", "no_text"): gettext_lazy("%(what)s contains no text (no letters or digits were "
                                       "found; a scanned PDF has no text layer)."),
    ("corrupt", "corrupt"): gettext_lazy("The %(what)s file is damaged and cannot be opened "
                                         "(%(error)s)."),
    ("archive_bomb", "too_many_entries"): gettext_lazy(
        "The %(what)s file holds %(n)d files; at most %(max)d are accepted."),
    ("archive_bomb", "too_large"): gettext_lazy(
        "The %(what)s file would expand to %(mb).0f MB, more than the %(max).0f MB allowed: "
        "refused as a possible archive bomb."),
    ("archive_bomb", "ratio"): gettext_lazy(
        "%(name)s in the %(what)s file expands %(ratio)d times, more than %(max)d: "
        "refused as a possible archive bomb."),
    ("encoding", "bad_bom"): gettext_lazy("The file starts with a %(codec)s byte-order mark but "
                                          "is not valid %(codec)s: %(error)s"),
    ("encoding", "unknown"): gettext_lazy("Could not tell the text's encoding: it is not UTF-8, "
                                          "GB18030/GBK/GB2312 or Big5. Save the file as UTF-8 "
                                          "and upload it again."),
    ("encrypted", "password"): gettext_lazy("The PDF is encrypted with a password. Remove the "
                                            "password (print to a new PDF) and upload it again."),
    ("encrypted", "unreadable"): gettext_lazy("The PDF is encrypted and cannot be read "
                                              "(%(error)s)."),
}


class UploadError(CoreError, ValueError):
    """An upload that cannot become a work; ``str()`` is the message for the user.

    Attributes:
        code: the TextError code ("too_large", "empty", "unsupported", "mismatch", "corrupt",
            "encrypted", "archive_bomb", "encoding").
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(str(message))
        self.code = code

    @classmethod
    def of(cls, error: TextError) -> UploadError:
        """The UploadError saying ``error`` (a TextError) in the active language."""
        return cls(error.code, str(_MESSAGES[error.code, error.reason]) % _params(error))


def _params(error: TextError) -> dict:
    p = dict(error.params)
    if (error.code, error.reason) == ("too_large", "too_large"):
        return {"size": p["size"] / 2**20, "mb": p["limit"] // 2**20}
    if error.reason in ("suffix", "foreign", "mismatch"):
        p["type"] = p.pop("suffix")
    if error.reason == "foreign":
        p["what"] = _FOREIGN[p["what"]]
    elif error.reason == "mismatch":
        p["what"] = _FORMATS[p.pop("found")]
    elif error.reason == "no_text":
        p["what"] = p.pop("name") or _("The pasted text")
    elif error.reason == "too_many_entries":
        p.update(n=p.pop("entries"), max=p.pop("limit"))
    elif error.code == "archive_bomb" and error.reason == "too_large":
        p.update(mb=p.pop("size") / 2**20, max=p.pop("limit") / 2**20)
    elif error.reason == "ratio":
        p.update(name=p.pop("entry"), max=p.pop("limit"))
    return p


def text_config() -> text.TextConfig:
    """The TextConfig with the limits of Django settings (bytes; ratio)."""
    return text.TextConfig(upload_max_bytes=settings.UPLOAD_MAX_BYTES,
                           archive_max_bytes=settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES,
                           archive_max_ratio=settings.ARCHIVE_MAX_RATIO,
                           text_max_chars=settings.WORK_TEXT_MAX_CHARS,
                           max_parts=settings.WORK_TEXT_MAX_PARTS)


def extract_file(name: str, data: bytes) -> Extracted:
    """``lib.text.extract_file`` with the settings' limits.

    Raises:
        UploadError: every TextError, worded for the user.
    """
    try:
        return text.extract_file(name, data, text_config())
    except TextError as exc:
        raise UploadError.of(exc) from exc


def extract_pasted(pasted: str) -> Extracted:
    """``lib.text.extract_pasted`` with the settings' limits.

    Raises:
        UploadError: "too_large" or "empty", worded for the user.
    """
    try:
        return text.extract_pasted(pasted, text_config())
    except TextError as exc:
        raise UploadError.of(exc) from exc


def check_size(size: int) -> None:
    """Raise UploadError("too_large") when ``size`` (bytes) is over settings.UPLOAD_MAX_BYTES."""
    try:
        text.files.check_size(size, text_config())
    except TextError as exc:
        raise UploadError.of(exc) from exc


def check_upload(name: str, size: int) -> None:
    """What can be told of a work file without reading it: its size (bytes) within
    settings.UPLOAD_MAX_BYTES and not 0, and a suffix of ``supported_suffixes()``.

    Raises:
        UploadError: "too_large", "unsupported" or "empty", worded for the user.
    """
    check_size(size)
    try:
        text.files.check_name(name)
        if not size:
            raise TextError("empty", "no_bytes", name=name)
    except TextError as exc:
        raise UploadError.of(exc) from exc


def open_zip(data: bytes, what: str = "ZIP") -> zipfile.ZipFile:
    """``lib.text.open_zip`` with the settings' limits.

    Raises:
        UploadError: "corrupt" or "archive_bomb", worded for the user.
    """
    try:
        return text.open_zip(data, what, text_config())
    except TextError as exc:
        raise UploadError.of(exc) from exc
