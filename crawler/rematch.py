"""Stored pages searched for newly indexed works (retro-match), without crawling again.

When a work's text is indexed (``core.ingestion.work_indexed``), its id joins a Redis set
of pending works and one ``crawler.rematch_pending`` task (queue "match") is scheduled
settings.REMATCH_COALESCE_SECONDS later, unless one is scheduled already: a 1,000-work import
is one pass over the page library, not 1,000.

The pass (``run``): the pending works' postings (``Engine.postings``, as ``Engine.add_work``
makes them) go into a small in-memory index (``fingerprint.index.MemoryIndex``); the query keys
of each current page version of the library are looked up in it, after a vectorised test per
chunk of versions that drops pages sharing no key with the new works. With the engine's rewrite
stage on, the texts of the other versions are cut into sentences and looked up in the new works'
rewrite keys (``fingerprint.rewrite``), so that a rewritten copy (洗稿) is searched too. The keys are those kept
with the version when it was matched (lib.crawl.pagekeys); a version without keys, or with keys
of another fingerprint version or configuration, has its text fingerprinted again (and the
keys stored). A page where the small index names a candidate among the new works is matched
again with the platform's engine through ``crawler.matching.match_version`` (the same
whitelists, chapters and upsert as a crawl; thresholds and template discounts of the full
corpus), recording only the new works' matches. Progress is kept in a RematchJob row; once the
job is closed (finished or failed), ``search_closed`` is sent after commit (the alerts tell of
the cases it opened or grew, as for a scan).
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np
from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from core.connections import get_redis
from core.models import Work, WorkStatus
from core.queueing import queue_after_commit
from crawler import matching
from crawler.models import RematchJob
from fingerprint import TextTooLargeError
from fingerprint.index import MemoryIndex
from fingerprint.rewrite.stage import RewriteStage
from lib.crawl import pagekeys
from lib.crawl.hanpairs import PairIndex, han_pairs

log = logging.getLogger(__name__)
PENDING_KEY = "crawl:rematch:pending"  # Redis set of Work ids waiting for a pass
SCHEDULED_KEY = "crawl:rematch:scheduled"  # set while a pass is scheduled and not yet started

# Sent once a RematchJob is closed (finished or failed), after commit: keyword argument
# ``job_id`` (int). Receivers: the alerts (one message per recipient about the job's cases).
search_closed = Signal()


def work_indexed(sender, work_id: int, **kwargs) -> None:
    """Receiver of ``work_indexed``: add the work to the pending set and schedule one pass."""
    schedule([work_id])


def schedule(work_ids: list[int]) -> bool:
    """Add ``work_ids`` to the pending set; send ``rematch_pending`` with a countdown of
    settings.REMATCH_COALESCE_SECONDS unless a pass is already scheduled. Returns True when a
    task was sent."""
    redis = get_redis()
    redis.sadd(PENDING_KEY, *work_ids)
    if not redis.set(SCHEDULED_KEY, 1, nx=True, ex=settings.REMATCH_SCHEDULED_TTL_SECONDS):
        return False
    queue_after_commit("crawler.rematch_pending", countdown=settings.REMATCH_COALESCE_SECONDS)
    return True


def take_pending() -> list[int]:
    """Take every pending work id (int) out of the set, atomically, and allow the next pass to
    be scheduled."""
    pipe = get_redis().pipeline()
    pipe.smembers(PENDING_KEY)
    pipe.delete(PENDING_KEY, SCHEDULED_KEY)
    members, _ = pipe.execute()
    return sorted(int(m) for m in members)


def run(work_ids: list[int], engine, pages) -> RematchJob | None:
    """Search every current page version of ``pages`` (a lib.crawl.pagestore.PageStore) for the
    indexed works among ``work_ids`` and record their matches with ``engine`` (the platform's
    fingerprint.Engine). Returns the RematchJob (None when no such work is indexed).

    Raises the storage errors of MongoDB and Redis (the job is marked failed with the reason).
    """
    works = list(Work.objects.filter(pk__in=work_ids, status=WorkStatus.INDEXED))
    if not works:
        return None
    job = RematchJob.objects.create(pages_total=pages.count_current())
    job.works.set(works)
    tally = {"pages_searched": 0, "candidates": 0, "matches_found": 0, "matches_new": 0}
    rekeyed = 0
    try:
        small, wanted, known, rewrite = _small_index(works, engine)
        for chunk in pages.iter_current_keys(settings.REMATCH_PROGRESS_EVERY_PAGES):
            keys, fresh = _chunk_keys(chunk, engine, pages)
            rekeyed += fresh
            maybe = _touching(keys, known)
            tally["pages_searched"] += len(chunk)
            chosen = {i.version_id for i in chunk if i.version_id in maybe and _hits(
                small, keys[i.version_id], engine.config.min_window_hits)}
            if rewrite is not None:
                chosen |= rewrite.candidates([i.version_id for i in chunk
                                              if i.version_id not in chosen], pages)
            for item in chunk:
                if item.version_id not in chosen:
                    continue
                tally["candidates"] += 1
                page, version = pages.page(item.page_id), pages.version(item.version_id)
                if page is not None and version is not None:
                    report = matching.match_version(engine, page, version, None, only_works=wanted)
                    tally["matches_found"] += report.found
                    tally["matches_new"] += report.new
            RematchJob.objects.filter(pk=job.pk).update(**tally)
        RematchJob.objects.filter(pk=job.pk).update(
            state=RematchJob.State.FINISHED, finished_at=timezone.now(), **tally)
    except Exception as exc:
        RematchJob.objects.filter(pk=job.pk).update(
            state=RematchJob.State.FAILED, finished_at=timezone.now(),
            error=f"{type(exc).__name__}: {exc}"[:2000])
        _closed(job.pk)  # the pages recorded before the failure are told of too
        raise
    _closed(job.pk)
    job.refresh_from_db()
    log.info("stored pages searched for works %s: %s (%d fingerprinted again)", work_ids, job,
             rekeyed)
    return job


def _closed(job_id: int) -> None:
    transaction.on_commit(lambda: search_closed.send(sender=RematchJob, job_id=job_id))


def _chunk_keys(chunk, engine, pages) -> tuple[dict[str, np.ndarray], int]:
    """({version_id: uint64 query keys} of a list of KeyedVersion, number of versions whose
    keys had to be computed from their text). Keys stored with another tag, or none (a version
    matched before keys were kept), are computed again with ``engine`` and stored; a text over
    the engine's size limit gets none (a crawl cannot match it either)."""
    current = pagekeys.tag(engine.config)
    out = {i.version_id: pagekeys.unpack(i.keys.data) for i in chunk
           if i.keys is not None and i.keys.tag == current}
    missing = [i.version_id for i in chunk if i.version_id not in out]
    fresh = {}
    for version_id, text in (pages.texts(missing) if missing else {}).items():
        try:
            fresh[version_id] = pagekeys.compute(engine, text)
        except TextTooLargeError:
            continue
    pages.save_keys(fresh)
    out.update((v, pagekeys.unpack(k.data)) for v, k in fresh.items())
    return out, len(fresh)


def _small_index(works, engine
                 ) -> tuple[MemoryIndex, set[str], np.ndarray, _RewriteSearch | None]:
    """(in-memory index of the works' postings, their engine ids, sorted distinct uint64 keys of
    those postings, the search for rewritten copies of those works or None when ``engine`` has
    no rewrite stage), made as ``Engine.add_work`` makes them; works missing from the engine's
    store are left out."""
    index, wanted, keys = MemoryIndex(), set(), [np.zeros(0, np.uint64)]
    rewrite = None if engine.rewrite is None else _RewriteSearch(
        RewriteStage(engine.config, MemoryIndex(), engine.rewrite.classes))
    for work in works:
        record = engine.store.get(work.engine_id)
        if record is not None:
            postings = engine.postings(engine.letters(record["text"]))
            index.add(work.engine_id, postings)
            wanted.add(work.engine_id)
            keys.append(np.fromiter((k for k, _ in postings), np.uint64, len(postings)))
            if rewrite is not None:
                rewrite.add(work.engine_id, record["text"])
    return index, wanted, np.unique(np.concatenate(keys)), rewrite


class _RewriteSearch:
    """The stored pages that may be rewritten copies (洗稿) of the new works: they share too
    few window keys with their work to be chosen by them, and the engine's rewrite stage, which
    ``match_version`` runs, would find them. ``stage``: a RewriteStage over an empty index of
    its own, to which the new works are added (``add``)."""

    def __init__(self, stage: RewriteStage):
        self.stage = stage
        self._pairs: list[np.ndarray] = []  # the new works' han_pairs
        self._index: PairIndex | None = None

    def add(self, work_id: str, text: str) -> None:
        """Add a new work's rewrite keys and character pairs."""
        self.stage.add(work_id, text)
        self._pairs.append(han_pairs(text))
        self._index = None

    def candidates(self, version_ids: list[str], pages) -> set[str]:
        """The versions among ``version_ids`` (read from ``pages``, a PageStore) whose text
        holds enough rewrite keys of the new works (``RewriteStage.candidates``). Only a text
        of which one new work holds at least settings.REMATCH_REWRITE_MIN_PAIR_SHARE of the
        ``han_pairs`` (pairs common to more than REMATCH_REWRITE_COMMON_PAIR_SHARE of the new
        works, and to more than 2, left out) is cut into sentences and words (the costly
        step)."""
        if self._index is None:
            common = max(2, int(settings.REMATCH_REWRITE_COMMON_PAIR_SHARE * len(self._pairs)))
            self._index = PairIndex(self._pairs, common)
        texts = pages.texts(version_ids) if version_ids else {}
        least = settings.REMATCH_REWRITE_MIN_PAIR_SHARE
        return {version_id for version_id, text in texts.items()
                if self._index.best_share(han_pairs(text)) >= least
                and self.stage.candidates(self.stage.keys(text))}


def _touching(keys: dict[str, np.ndarray], known: np.ndarray) -> set[str]:
    """Version ids among ``keys`` ({version_id: uint64 query keys}) with at least one key in
    ``known`` (sorted uint64): the only pages that can get a posting of the new works (one
    vectorised test per chunk instead of one index lookup per page)."""
    if not keys or not len(known):
        return set()
    ids = list(keys)
    flat = np.concatenate([keys[v] for v in ids])
    owner = np.repeat(np.arange(len(ids)), [len(keys[v]) for v in ids])
    at = np.minimum(np.searchsorted(known, flat), len(known) - 1)
    return {ids[i] for i in np.unique(owner[known[at] == flat])}


def _hits(small: MemoryIndex, keys: np.ndarray, need: int) -> bool:
    """True when the index of the new works names a candidate for a page of these query
    ``keys``: some work has at least ``need`` (``min_window_hits``) postings among them, as in
    ``Engine.candidates``."""
    found = small.lookup(keys.tolist())
    per_work = Counter(w for postings in found.values() for w, _ in postings)
    return bool(per_work) and max(per_work.values()) >= need
