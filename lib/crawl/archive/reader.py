"""WARC and WET records with their byte offsets, read in one pass with warcio.

``read_records`` walks a stream (plain or gzip, one member per record as Common Crawl writes
them, or one gzip stream for the whole file) and yields an ``ArchiveRecord`` per record, or a
``Fault`` where the file turns out truncated or corrupt, after which it stops: the records
before the fault are kept by the caller. A record's payload is read at most ``max_bytes``
bytes (the crawl's page byte limit); a longer one (a gzip member that inflates to gigabytes)
is cut there and the rest of its member is inflated into nothing, block by block, in constant
memory, to find the next record.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from lib.text.untrusted import ascii_int

# Records whose text is matched: WARC responses (HTML or plain text) and WET conversions.
TEXT_KINDS = frozenset({"response", "conversion"})


@dataclass(frozen=True)
class ArchiveRecord:
    """One record: ``offset`` (bytes from the start of the file, of the record's first byte,
    as CDX indexes give it), ``kind`` (WARC-Type: 'response', 'conversion', 'warcinfo' ...),
    ``uri`` (WARC-Target-URI, '' if none), ``date`` (WARC-Date as written), ``content_type``
    (the HTTP Content-Type of a response, the WARC Content-Type of other records), ``status``
    (HTTP status of a response, else None), ``body`` (the payload, decoded from its transfer
    and content encodings, at most ``max_bytes`` bytes; b'' for kinds not in TEXT_KINDS) and
    ``cut`` (True when the payload was longer and cut)."""

    offset: int
    kind: str
    uri: str
    date: str
    content_type: str
    status: int | None
    body: bytes
    cut: bool


@dataclass(frozen=True)
class Fault:
    """Where reading stopped: ``offset`` (bytes from the start of the file) of the record that
    could not be read whole, and ``reason`` (English, for the log and the scan's note)."""

    offset: int
    reason: str


def read_records(stream: BinaryIO, *, max_bytes: int, base_offset: int = 0,
                 end_offset: int | None = None) -> Iterator[ArchiveRecord | Fault]:
    """Yield the records of ``stream`` (a readable binary file object positioned at a record's
    first byte, which is ``base_offset`` bytes into the file) in file order, then stop; or
    stop after yielding one Fault. ``end_offset``: no record starting at or after this file
    offset is read (a byte range of a large file; a record starting before it is read whole).
    ``max_bytes``: the most payload bytes kept per record (see the module docstring).
    Raises only what reading ``stream`` raises outside warcio (OSError of a local file).
    """
    counted = _Counted(stream)
    it = ArchiveIterator(counted)
    offset = base_offset
    try:
        for record in it:
            offset = base_offset + it.offset  # the record's first byte (before it is read)
            if end_offset is not None and offset >= end_offset:
                return
            item = _record(record, offset, max_bytes)
            if isinstance(item, ArchiveRecord):
                it.read_to_end()  # the rest of a cut payload: inflated into nothing
                item = _whole(it, record, counted, offset) or item
            yield item
            if isinstance(item, Fault):
                return
        # warcio ends quietly when a record's header breaks off: bytes after the last whole record
        if counted.position > (it.offset or 0):
            yield Fault(base_offset + (it.offset or 0),
                        f"truncated: {counted.position - it.offset} bytes after the last whole "
                        "record are no whole record")
    except (ArchiveLoadFailed, zlib.error, EOFError, ValueError) as exc:
        yield Fault(_fault_offset(it, base_offset, offset), f"unreadable record: {exc}"[:300])
    except OSError as exc:  # a connection lost under an HTTP stream, a corrupt gzip header
        yield Fault(_fault_offset(it, base_offset, offset), f"read failed: {exc}")


def _fault_offset(it: ArchiveIterator, base_offset: int, last: int) -> int:
    """The file offset of the record being read when the iterator failed: the one after the
    last record yielded when warcio had moved on to it, else the last one."""
    return max(last, base_offset + (it.offset or 0))


class _Counted:
    """``stream`` whose ``tell`` counts the bytes read through it (warcio computes record
    offsets from ``tell``: a local file opened at an offset, or an HTTP body, would not)."""

    def __init__(self, stream: BinaryIO):
        self.stream, self.position, self.at_end = stream, 0, False

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.position += len(data)
        self.at_end = self.at_end or not data
        return data

    def tell(self) -> int:
        return self.position

    def close(self) -> None:
        self.stream.close()


def _record(record, offset: int, max_bytes: int) -> ArchiveRecord | Fault:
    headers = record.rec_headers
    kind = record.rec_type or ""
    if ascii_int((headers.get_header("Content-Length") or "").strip()) is None:
        return Fault(offset, "truncated or corrupt: the record's header has no Content-Length")
    status, content_type = None, headers.get_header("Content-Type") or ""
    if record.http_headers is not None and kind == "response":
        content_type = record.http_headers.get_header("Content-Type") or ""
        status = ascii_int((record.http_headers.get_statuscode() or "").strip())
    body, cut = b"", False
    if kind in TEXT_KINDS:
        stream = record.content_stream()
        body = stream.read(max_bytes + 1)
        cut = len(body) > max_bytes
        body = body[:max_bytes]
    return ArchiveRecord(offset, kind, headers.get_header("WARC-Target-URI") or "",
                         headers.get_header("WARC-Date") or "", content_type, status, body, cut)


def _whole(it: ArchiveIterator, record, counted: _Counted, offset: int) -> Fault | None:
    """A Fault at ``offset`` when the record just read to its end was not whole: its block
    shorter than its Content-Length, or its gzip member cut before the member's end. None
    when whole."""
    missing = record.raw_stream.limit
    if missing > 0:
        return Fault(offset, f"truncated: the file ends {missing} bytes before the record's end")
    decompressor = it.reader.decompressor
    if decompressor is not None and not decompressor.eof and counted.at_end \
            and not it.reader.rem_length():
        return Fault(offset, "truncated: the file ends inside the record's gzip member")
    return None
