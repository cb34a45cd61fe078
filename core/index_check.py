"""Compare the platform's Redis fingerprint index with a rebuild from MongoDB (``manage.py
reindex --check``): after a fault, the index must hold exactly the postings that re-indexing
the stored works would give."""

from __future__ import annotations

from dataclasses import dataclass, field

from fingerprint import Engine
from fingerprint.index import MemoryIndex

from .connections import storage_errors
from .engine import get_engine
from .errors import StorageUnavailable


@dataclass
class IndexDifference:
    """What differs between the live index and a rebuild of it from the stored works.

    Attributes:
        indexed: works in the live (Redis) index.
        rebuilt: works a rebuild from MongoDB indexes (stored works the engine accepts).
        missing: engine ids a rebuild indexes but the live index lacks (sorted).
        extra: engine ids in the live index that a rebuild does not index (sorted).
        postings: engine id -> (postings of the rebuild absent from the live index, postings
            of the live index absent from the rebuild), for works in both whose postings
            differ; a posting is a (key, window) pair as ``Index.lookup`` returns it.
        windows: (postings counted by the live index, postings of the rebuild).
    """

    indexed: int = 0
    rebuilt: int = 0
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    postings: dict[str, tuple[int, int]] = field(default_factory=dict)
    windows: tuple[int, int] = (0, 0)

    @property
    def equal(self) -> bool:
        """True when the live index equals the rebuild (works, postings and their count)."""
        return (not self.missing and not self.extra and not self.postings
                and self.windows[0] == self.windows[1])


def _work_postings(index, work_id: str, keys: list[int]) -> set[tuple[int, int]]:
    """(key, window) postings of one work among ``keys``, read through ``Index.lookup``."""
    found = index.lookup(keys)
    return {(key, window) for key, hits in found.items() for wid, window in hits
            if wid == work_id}


def compare_with_rebuild() -> IndexDifference:
    """Rebuild the index in memory from the works stored in MongoDB (``Engine.rebuild_index``
    into a ``fingerprint.index.MemoryIndex`` with the live index's stop-list limit) and compare
    it with the live Redis index: work ids, the total posting count, and per work the postings
    at that work's keys (looked up in both, so stop-listed keys count alike). Reads only, except
    that a stored work of an older letter table is stored again with its letters, as a rebuild
    would. Time: one lookup per stored work in each index.

    Returns:
        IndexDifference.

    Raises:
        StorageUnavailable: MongoDB or Redis is unreachable.
    """
    live_engine = get_engine()
    live = live_engine.index
    try:
        rebuild = Engine(MemoryIndex(max_df=live.max_df), live_engine.store,
                         config=live_engine.config)
        rebuild.rebuild_index()
        indexed = set(live.work_ids())
        rebuilt = set(rebuild.index.work_ids())
        report = IndexDifference(
            indexed=len(indexed), rebuilt=len(rebuilt), missing=sorted(rebuilt - indexed),
            extra=sorted(indexed - rebuilt),
            windows=(int(live.stats()["windows"]), int(rebuild.index.stats()["windows"])))
        for work_id in sorted(indexed & rebuilt):
            record = rebuild.store.get(work_id)
            keys = [key for key, _ in rebuild.postings(rebuild.letters(record["text"]))]
            expected = _work_postings(rebuild.index, work_id, keys)
            actual = _work_postings(live, work_id, keys)
            if expected != actual:
                report.postings[work_id] = (len(expected - actual), len(actual - expected))
    except storage_errors() as exc:
        raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
    return report
