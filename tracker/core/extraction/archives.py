"""Opening ZIP containers (.docx, .epub, imported .zip) with a guard against archive bombs."""

from __future__ import annotations

import io
import zipfile

from django.conf import settings

from .errors import UploadError

MAX_ENTRIES = 10_000
RATIO_MIN_BYTES = 1024 * 1024  # entries smaller than this (uncompressed) skip the ratio test


def open_zip(data: bytes, what: str = "archive") -> zipfile.ZipFile:
    """Open ``data`` as a ZIP after checking what its entries would expand to.

    The declared sizes are checked before anything is decompressed; Python's zipfile never
    reads past an entry's declared size, so they bound the real expansion. Limits come from
    settings ARCHIVE_MAX_UNCOMPRESSED_BYTES (bytes, all entries together) and ARCHIVE_MAX_RATIO
    (uncompressed / compressed size of one entry of at least 1 MB), and MAX_ENTRIES entries.

    Args:
        data: the file's bytes.
        what: the name of the format for messages ("DOCX", "EPUB", "ZIP archive").

    Returns:
        An open zipfile.ZipFile over an in-memory copy of ``data``.

    Raises:
        UploadError("corrupt"): not a readable ZIP.
        UploadError("archive_bomb"): too many entries, too large once expanded, or an entry
            expands more than the allowed ratio.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise UploadError("corrupt", f"The {what} is damaged and cannot be opened ({exc}).") from exc
    if len(infos) > MAX_ENTRIES:
        raise UploadError("archive_bomb", f"The {what} holds {len(infos)} files; at most "
                          f"{MAX_ENTRIES} are accepted.")
    total = sum(info.file_size for info in infos)
    if total > settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES:
        raise UploadError("archive_bomb", f"The {what} would expand to {total / 2**20:.0f} MB, "
                          f"more than the {settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES / 2**20:.0f} MB "
                          "allowed: refused as a possible archive bomb.")
    for info in infos:
        if info.file_size >= RATIO_MIN_BYTES and \
                info.file_size > settings.ARCHIVE_MAX_RATIO * max(info.compress_size, 1):
            raise UploadError("archive_bomb", f"{info.filename!r} in the {what} expands "
                              f"{info.file_size // max(info.compress_size, 1)} times, more than "
                              f"{settings.ARCHIVE_MAX_RATIO}: refused as a possible archive bomb.")
    return archive
