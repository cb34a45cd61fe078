"""The WorkStore protocol: what verification needs of each indexed work.

A *work record* is a dict built by the engine: the work's text, its letters and offset map
(letter index -> character index in the text), its FINGERPRINT_VERSION and whatever else
verification needs. Stores keep it as given and return it with the same value types
(str, int, float, bool, None, bytes, ``array.array``, ``numpy.ndarray``, lists and dicts of
those; tuples may come back as lists); see :mod:`fingerprint.store.codec`.

Each put gives the stored record a new *revision* (an opaque str chosen by the store), so a
process that caches something derived from a record (the Engine's prepared works) can tell,
with one cheap ``revisions`` call, whether another process has replaced the record since (the
Engine does so when its index reports no revisions of its own, see
``fingerprint.index.base.RevisedIndex``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, runtime_checkable

from fingerprint.index.base import check_work_id

__all__ = ["StoreUnavailableError", "WorkStore", "check_work_id"]


class StoreUnavailableError(ConnectionError):
    """The work store's server (MongoDB) cannot be reached; the message names the server."""


@runtime_checkable
class WorkStore(Protocol):
    """Work id -> work record. Implementations: :class:`fingerprint.store.memory.MemoryWorkStore`
    (in process, save/load to a directory) and :class:`fingerprint.store.mongo.MongoWorkStore`.
    """

    def put(self, work_id: str, record: dict) -> None:
        """Store (or replace) the record of ``work_id``.

        Raises:
            ValueError: empty work_id. TypeError: a value the store cannot encode.
            StoreUnavailableError: the server is unreachable (server backends).
        """
        ...

    def get(self, work_id: str) -> dict | None:
        """The record of ``work_id``, or None. Callers must not mutate it."""
        ...

    def revisions(self, work_ids: Iterable[str]) -> dict[str, str]:
        """{work_id: revision} of the given ids that are stored (missing ids are left out).

        A revision is an opaque str that changes with every ``put`` of that id (also a put of
        an equal record) and stays the same otherwise; records stored before revisions existed
        have one too. Cheap: no record is read (MongoDB: one query for all ids).
        """
        ...

    def delete(self, work_id: str) -> bool:
        """Delete the record; True when there was one."""
        ...

    def ids(self) -> Iterator[str]:
        """Ids of the stored works (any order)."""
        ...

    def count(self) -> int:
        """Number of stored works."""
        ...

