"""The Index protocol: window fingerprint -> postings (work, window number).

A *posting* is one indexed window: ``(key, window)`` at add time, ``(work_id, window)`` at
lookup time, where ``key`` is the window's fingerprint (a non-negative int below 2**64) and
``window`` the window's number in its work (an int, 0 <= window < 2**32).

Stop-list (document frequency): the document frequency (df) of a key is the number of distinct
works that hold it. ``lookup`` ignores keys whose df exceeds ``max_df``: such fingerprints come
from boilerplate (copyright notices, stock phrases) or from chance collisions of the quantized
letter vectors and only cost time and precision. The idea is MOSS's (Schleimer, Wilkerson,
Aiken, "Winnowing", SIGMOD 2003; MOSS option ``-m``, default 10 for hashed k-grams). The default
here is higher (:data:`DEFAULT_MAX_DF`) because letter-frequency fingerprints collide by chance
far more often than hashes of k-grams; it also bounds the postings one key can return.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

#: Default stop-list limit, in works. A copied passage is shared by the original work and its
#: few legitimate editions, far fewer than 100; a key in more than 100 works is boilerplate or
#: a chance collision, and with at most 100 works per key a lookup stays bounded. Measured with
#: the engine's keys (``python -m bench.index_measure --windows 1000000``): over 1M
#: windows of 6,124 novel chapters no key is in more than 10 works, so the limit costs no
#: recall on ordinary text and only removes boilerplate.
DEFAULT_MAX_DF = 100

MAX_KEY = 2**64 - 1
MAX_WINDOW = 2**32 - 1


class IndexVersionError(RuntimeError):
    """The index was built with another FINGERPRINT_VERSION than the running code.

    Its fingerprints cannot be compared with the current ones: rebuild the index
    (``Engine.rebuild_index()`` after ``index.clear()``).
    """


class IndexLayoutError(IndexVersionError):
    """The index was written in an older storage layout (Redis keys or saved files) that this
    code no longer reads; the message says how to rebuild it (``manage.py reindex`` for Redis,
    ``python -m fingerprint index`` for a saved MemoryIndex). A subclass of
    IndexVersionError: whoever rebuilds an index of another fingerprint version rebuilds this
    one too."""


class IndexUnavailableError(ConnectionError):
    """The index server (Redis) cannot be reached; the message names the server."""


@runtime_checkable
class Index(Protocol):
    """Fingerprint index: window fingerprint key -> postings ``(work_id, window)``.

    Implementations: :class:`fingerprint.index.memory.MemoryIndex` (in process, save/load to a
    directory) and :class:`fingerprint.index.redis.RedisIndex` (the platform's).

    Attributes:
        max_df: stop-list limit in works; keys held by more works are ignored by ``lookup``.
        version: the FINGERPRINT_VERSION the index holds fingerprints of.
    """

    max_df: int
    version: str

    def add(self, work_id: str, postings: Iterable[tuple[int, int]]) -> int:
        """Index one work's windows, replacing any postings of the same ``work_id``.

        Args:
            work_id: the work's id (non-empty str).
            postings: ``(key, window)`` pairs: key 0 <= key < 2**64, window 0 <= window < 2**32.

        Returns:
            int: postings stored (duplicate pairs count once).

        Raises:
            ValueError: empty work_id, or a key or window out of range (nothing is stored).
            IndexUnavailableError: the server is unreachable (server backends; the postings
                written so far are removed when the server can still be reached).
        """
        ...

    def remove(self, work_id: str) -> int:
        """Remove exactly this work's postings and update the document frequencies.

        Returns:
            int: postings removed (0 when the work is not indexed).
        """
        ...

    def lookup(self, keys: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """Postings of many keys at once, skipping stop-listed keys.

        Args:
            keys: fingerprint keys (duplicates allowed).

        Returns:
            dict: key -> list of ``(work_id, window)``, only for keys that are indexed and
            whose document frequency is at most ``max_df``.
        """
        ...

    def has_work(self, work_id: str) -> bool:
        """True when ``work_id`` has postings in the index."""
        ...

    def work_ids(self) -> Iterator[str]:
        """Ids of the indexed works (any order)."""
        ...

    def clear(self) -> None:
        """Remove every posting and work; the index then holds ``version`` (its own)."""
        ...

    def stats(self) -> dict:
        """Counts for reports: ``backend``, ``works``, ``windows`` (postings), ``max_df``,
        ``version``, and backend-specific figures (see each implementation)."""
        ...


@runtime_checkable
class RevisedIndex(Index, Protocol):
    """An :class:`Index` that also reports, with the same lookup, a revision of each work found.

    Optional: the Engine uses ``lookup_revisions`` when the index has it and otherwise reads the
    candidates' revisions from the work store (``WorkStore.revisions``, one more round trip).
    Implemented by MemoryIndex and RedisIndex.
    """

    def lookup_revisions(
        self, keys: Sequence[int]
    ) -> tuple[dict[int, list[tuple[str, int]]], dict[str, str]]:
        """``lookup(keys)`` and the index revision of every work in its postings.

        Args:
            keys: fingerprint keys (duplicates allowed).

        Returns:
            tuple: (postings, revisions): postings exactly as ``lookup`` returns them;
            revisions maps each work_id found in them to an opaque str that changes with
            every ``add`` of that id (it differs from the revisions of all earlier adds of
            that id, also across a ``clear`` or a data loss of a server backend) and stays the
            same otherwise. A work seen under two adds in one lookup (a re-add racing the
            lookup) gets the revision of the later add.
        """
        ...


def check_posting(key: int, window: int) -> None:
    """Raise ValueError unless 0 <= key < 2**64 and 0 <= window < 2**32 (both ints)."""
    if not (0 <= key <= MAX_KEY):
        raise ValueError(f"fingerprint key out of range 0..2**64-1: {key!r}")
    if not (0 <= window <= MAX_WINDOW):
        raise ValueError(f"window number out of range 0..2**32-1: {window!r}")


def check_work_id(work_id: str) -> None:
    """Raise ValueError unless work_id is a non-empty str."""
    if not isinstance(work_id, str) or not work_id:
        raise ValueError(f"work_id must be a non-empty str, got {work_id!r}")
