"""Opening ZIP containers (.docx, .epub, imported .zip) with a guard against archive bombs."""

from __future__ import annotations

import io
import zipfile

from django.conf import settings
from django.utils.translation import gettext as _

from .errors import UploadError

MAX_ENTRIES = 10_000
RATIO_MIN_BYTES = 1024 * 1024  # entries smaller than this (uncompressed) skip the ratio test


def open_zip(data: bytes, what: str = "") -> zipfile.ZipFile:
    """Open ``data`` as a ZIP after checking what its entries would expand to.

    The declared sizes are checked before anything is decompressed; Python's zipfile never
    reads past an entry's declared size, so they bound the real expansion. Limits come from
    settings ARCHIVE_MAX_UNCOMPRESSED_BYTES (bytes, all entries together) and ARCHIVE_MAX_RATIO
    (uncompressed / compressed size of one entry of at least 1 MB), and MAX_ENTRIES entries.

    Args:
        data: the file's bytes.
        what: the name of the format for messages ("DOCX", "EPUB", "ZIP"); default "ZIP".

    Returns:
        An open zipfile.ZipFile over an in-memory copy of ``data``.

    Raises:
        UploadError("corrupt"): not a readable ZIP.
        UploadError("archive_bomb"): too many entries, too large once expanded, or an entry
            expands more than the allowed ratio.
    """
    what = what or "ZIP"
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise UploadError("corrupt", _("The %(what)s file is damaged and cannot be opened "
                                       "(%(error)s).") % {"what": what, "error": exc}) from exc
    if len(infos) > MAX_ENTRIES:
        raise UploadError("archive_bomb", _("The %(what)s file holds %(n)d files; at most "
                                            "%(max)d are accepted.") % {
            "what": what, "n": len(infos), "max": MAX_ENTRIES})
    total = sum(info.file_size for info in infos)
    if total > settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES:
        raise UploadError("archive_bomb", _(
            "The %(what)s file would expand to %(mb).0f MB, more than the %(max).0f MB allowed: "
            "refused as a possible archive bomb.") % {
            "what": what, "mb": total / 2**20,
            "max": settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES / 2**20})
    for info in infos:
        if info.file_size >= RATIO_MIN_BYTES and \
                info.file_size > settings.ARCHIVE_MAX_RATIO * max(info.compress_size, 1):
            raise UploadError("archive_bomb", _(
                "%(name)s in the %(what)s file expands %(ratio)d times, more than %(max)d: "
                "refused as a possible archive bomb.") % {
                "name": info.filename, "what": what, "max": settings.ARCHIVE_MAX_RATIO,
                "ratio": info.file_size // max(info.compress_size, 1)})
    return archive
