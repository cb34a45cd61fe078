"""MemoryWorkStore: work records in a dict, saved to and loaded from a directory.

On disk (``save(dir)``): ``works.bson``, one BSON document ``{"_id": work_id, "record": ...}``
per work, values encoded by :mod:`fingerprint.store.codec` (packed arrays), and
``manifest.json`` (format, count), each written under a temporary name and renamed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import bson

from fingerprint.index.files import read_manifest, write_atomic, write_manifest
from fingerprint.store import codec
from fingerprint.store.base import check_work_id

FORMAT = "fingerprint-memory-store"
FORMAT_VERSION = 1


class MemoryWorkStore:
    """Work records in process memory (implements :class:`fingerprint.store.base.WorkStore`).

    Records are kept as given (not copied). Not thread-safe for writers.
    """

    def __init__(self):
        self._records: dict[str, dict] = {}

    def put(self, work_id: str, record: dict) -> None:
        """Store or replace a record. Raises ValueError on an empty work_id, TypeError when
        the record is not a dict."""
        check_work_id(work_id)
        if not isinstance(record, dict):
            raise TypeError(f"record must be a dict, got {type(record).__name__}")
        self._records[work_id] = record

    def get(self, work_id: str) -> dict | None:
        """The record, or None."""
        return self._records.get(work_id)

    def delete(self, work_id: str) -> bool:
        """Delete a record; True when there was one."""
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
        encoded = [bson.encode({"_id": work_id, "record": codec.encode(record)})
                   for work_id, record in self._records.items()]
        write_atomic(path / "works.bson", lambda f: f.writelines(encoded))
        write_manifest(path, FORMAT, FORMAT_VERSION, works=len(encoded))

    @classmethod
    def load(cls, directory: str | os.PathLike) -> MemoryWorkStore:
        """Read a store written by :meth:`save`.

        Raises:
            FileNotFoundError: no store in ``directory``.
            ValueError: the files are not a complete store of this format.
        """
        path = Path(directory)
        manifest = read_manifest(path, FORMAT, FORMAT_VERSION, "work store")
        store = cls()
        try:
            with open(path / "works.bson", "rb") as f:
                for doc in bson.decode_file_iter(f):
                    store._records[doc["_id"]] = codec.decode(doc["record"])
        except bson.errors.InvalidBSON as exc:
            raise ValueError(f"{path / 'works.bson'}: corrupt ({exc})") from exc
        if len(store._records) != manifest["works"]:
            raise ValueError(f"{path}: works.bson does not match manifest.json (interrupted save?)")
        return store
