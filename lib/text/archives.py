"""Opening ZIP containers (.docx, .epub, imported .zip) with a guard against archive bombs."""

from __future__ import annotations

import io
import zipfile

from .config import DEFAULT, TextConfig
from .errors import TextError


def open_zip(data: bytes, what: str = "ZIP", config: TextConfig = DEFAULT) -> zipfile.ZipFile:
    """Open ``data`` as a ZIP after checking what its entries would expand to.

    The declared sizes are checked before anything is decompressed; Python's zipfile never
    reads past an entry's declared size, so they bound the real expansion.

    Args:
        data: the file's bytes.
        what: the name of the format for messages ("DOCX", "EPUB", "ZIP").
        config: ``archive_max_entries``, ``archive_max_bytes`` (all entries together, bytes),
            ``archive_max_ratio`` and ``archive_ratio_min_bytes`` are used.

    Returns:
        An open zipfile.ZipFile over an in-memory copy of ``data``.

    Raises:
        TextError("corrupt", "corrupt", what=, error=): not a readable ZIP.
        TextError("archive_bomb", "too_many_entries", what=, entries=, limit=),
        TextError("archive_bomb", "too_large", what=, size=, limit=) (bytes), or
        TextError("archive_bomb", "ratio", what=, entry=, ratio=, limit=).
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise TextError("corrupt", "corrupt", what=what, error=exc) from exc
    check_sizes(infos, what, config)
    return archive


def check_sizes(infos: list[zipfile.ZipInfo], what: str = "ZIP", config: TextConfig = DEFAULT) -> None:
    """Check what the entries ``infos`` of a ZIP declare they expand to, before anything is
    decompressed (``open_zip`` and the evidence verifier both call it).

    Args:
        infos: the ZIP's entries (``ZipFile.infolist()``).
        what: the name of the format for messages ("DOCX", "EPUB", "ZIP", "WACZ").
        config: ``archive_max_entries``, ``archive_max_bytes`` (all entries together, bytes),
            ``archive_max_ratio`` and ``archive_ratio_min_bytes`` are used.

    Raises:
        TextError("archive_bomb", ...) as ``open_zip`` says.
    """
    if len(infos) > config.archive_max_entries:
        raise TextError("archive_bomb", "too_many_entries", what=what, entries=len(infos),
                        limit=config.archive_max_entries)
    total = sum(info.file_size for info in infos)
    if total > config.archive_max_bytes:
        raise TextError("archive_bomb", "too_large", what=what, size=total,
                        limit=config.archive_max_bytes)
    for info in infos:
        ratio = info.file_size // max(info.compress_size, 1)
        if info.file_size >= config.archive_ratio_min_bytes and \
                info.file_size > config.archive_max_ratio * max(info.compress_size, 1):
            raise TextError("archive_bomb", "ratio", what=what, entry=info.filename,
                            ratio=ratio, limit=config.archive_max_ratio)
