"""MemoryWorkStore: work records in a dict, saved to and loaded from a directory.

On disk (``save(dir)``): ``works.bson``, one BSON document ``{"_id": work_id, "record": ...}``
per work (``_id`` first), values encoded by :mod:`fingerprint.store.codec` (packed arrays),
and ``manifest.json`` (format, count), each written under a temporary name and renamed.

``load`` maps ``works.bson`` into memory and reads only each document's length and ``_id``;
a record is decoded when ``get`` asks for it. So a query over a large corpus starts without
decoding every work (measured: a full decode costs about 0.07 s per million characters), and
``save`` copies records that were never decoded byte for byte.
"""

from __future__ import annotations

import itertools
import mmap
import os
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

import bson

from fingerprint.index.files import read_manifest, write_atomic, write_manifest
from fingerprint.store import codec
from fingerprint.store.base import check_work_id

FORMAT = "fingerprint-memory-store"
FORMAT_VERSION = 1
_ID_HEAD = b"\x02_id\x00"  # BSON: string element named "_id"


class MemoryWorkStore:
    """Work records in process memory (implements :class:`fingerprint.store.base.WorkStore`).

    Records put are kept as given (not copied); records loaded are decoded on each ``get``
    (callers cache what they reuse, as the Engine does). Not thread-safe for writers.
    Revisions are serial numbers of this store object (loaded records get one at load).
    """

    def __init__(self) -> None:
        # a dict record, or (offset, length) of its BSON document in self._file
        self._records: dict[str, dict | tuple[int, int]] = {}
        self._revisions: dict[str, str] = {}
        self._serial = itertools.count(1)
        self._file: mmap.mmap | None = None

    def _saved(self, start: int, length: int) -> bytes:
        """The bytes of a loaded record's BSON document (``start``, ``length``: bytes)."""
        assert self._file is not None  # only a loaded store has (offset, length) records
        return self._file[start:start + length]

    def _revise(self, work_id: str) -> None:
        self._revisions[work_id] = str(next(self._serial))

    def put(self, work_id: str, record: dict) -> None:
        """Store or replace a record. Raises ValueError on an empty work_id, TypeError when
        the record is not a dict."""
        check_work_id(work_id)
        if not isinstance(record, dict):
            raise TypeError(f"record must be a dict, got {type(record).__name__}")
        self._records[work_id] = record
        self._revise(work_id)

    def get(self, work_id: str) -> dict | None:
        """The record, or None.

        Raises:
            ValueError: the saved document of this work is corrupt.
        """
        record = self._records.get(work_id)
        if isinstance(record, tuple):
            start, length = record
            try:
                doc = bson.decode(self._saved(start, length))
            except bson.errors.InvalidBSON as exc:
                raise ValueError(f"work {work_id!r}: corrupt document in works.bson ({exc})") \
                    from exc
            return codec.decode(doc["record"])
        return record

    def revisions(self, work_ids: Iterable[str]) -> dict[str, str]:
        """{work_id: revision} of the given ids that are stored (a dict lookup each)."""
        revs = self._revisions
        return {w: revs[w] for w in work_ids if w in revs}

    def delete(self, work_id: str) -> bool:
        """Delete a record; True when there was one."""
        self._revisions.pop(work_id, None)
        return self._records.pop(work_id, None) is not None

    def ids(self) -> Iterator[str]:
        """Stored work ids, in insertion order (a snapshot)."""
        return iter(list(self._records))

    def count(self) -> int:
        """Number of stored works."""
        return len(self._records)

    def save(self, directory: str | os.PathLike) -> None:
        """Write every record to ``directory`` (created if missing), replacing a previous save.

        Raises:
            TypeError: a record value the codec cannot encode (nothing is replaced).
            OSError: the directory cannot be written.
        """
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        encoded = [
            self._saved(*r) if isinstance(r, tuple)
            else bson.encode({"_id": work_id, "record": codec.encode(r)})
            for work_id, r in self._records.items()
        ]
        write_atomic(path / "works.bson", lambda f: f.writelines(encoded))
        write_manifest(path, FORMAT, FORMAT_VERSION, works=len(encoded))

    @classmethod
    def load(cls, directory: str | os.PathLike) -> MemoryWorkStore:
        """Open a store written by :meth:`save` (records are decoded on ``get``).

        Raises:
            FileNotFoundError: no store in ``directory``.
            ValueError: the files are not a complete store of this format.
        """
        path = Path(directory)
        manifest = read_manifest(path, FORMAT, FORMAT_VERSION, "work store")
        store = cls()
        with open(path / "works.bson", "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size:
                store._file = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        pos = 0
        while pos < size:
            assert store._file is not None  # size > 0: mapped above
            work_id, length = _head(store._file, pos, size)
            store._records[work_id] = (pos, length)
            store._revise(work_id)
            pos += length
        if len(store._records) != manifest["works"]:
            raise ValueError(f"{path}: works.bson does not match manifest.json (interrupted save?)")
        return store


def _head(data: mmap.mmap, pos: int, size: int) -> tuple[str, int]:
    """(work id, document length in bytes) of the BSON document at ``pos``.

    Raises:
        ValueError: the bytes there are not a document starting with a string ``_id``.
    """
    try:
        (length,) = struct.unpack_from("<i", data, pos)
        start = pos + 4 + len(_ID_HEAD)
        (id_length,) = struct.unpack_from("<i", data, start)
        if (length < 5 or pos + length > size or data[pos + 4:start] != _ID_HEAD
                or not 0 < id_length < length):
            raise ValueError
        return data[start + 4:start + 3 + id_length].decode(), length
    except (ValueError, struct.error) as exc:
        raise ValueError(f"works.bson: corrupt at byte {pos}") from exc
