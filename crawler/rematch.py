"""Stored pages searched for newly indexed works (retro-match), without crawling again.

When a work's text is indexed (``tracker.core.services.work_indexed``), its id joins a Redis set
of pending works and one ``crawler.rematch_pending`` task (queue "match") is scheduled
settings.REMATCH_COALESCE_SECONDS later, unless one is scheduled already: a 1,000-work import
is one pass over the page library, not 1,000.

The pass (``run``): the pending works' texts go into a small in-memory engine
(``fingerprint.Engine(MemoryIndex(), MemoryWorkStore())``, public API only); each current page
version of the library is matched with it, and a page where it finds one of the new works is
matched again with the platform's engine through ``crawler.matching.match_version`` (the same
whitelists, chapters and upsert as a crawl; thresholds and template discounts of the full
corpus), recording only the new works' matches. Progress is kept in a RematchJob row.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone

from crawler import matching
from crawler.models import RematchJob
from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore
from tracker.core.connections import get_redis
from tracker.core.models import Work, WorkStatus

log = logging.getLogger(__name__)
PENDING_KEY = "crawl:rematch:pending"  # Redis set of Work ids waiting for a pass
SCHEDULED_KEY = "crawl:rematch:scheduled"  # set while a pass is scheduled and not yet started


def work_indexed(sender, work_id: int, **kwargs) -> None:
    """Receiver of ``work_indexed``: add the work to the pending set and schedule one pass."""
    schedule([work_id])


def schedule(work_ids: list[int]) -> bool:
    """Add ``work_ids`` to the pending set; send ``rematch_pending`` with a countdown of
    settings.REMATCH_COALESCE_SECONDS unless a pass is already scheduled. Returns True when a
    task was sent."""
    from crawler.tasks import rematch_pending

    redis = get_redis()
    redis.sadd(PENDING_KEY, *work_ids)
    if not redis.set(SCHEDULED_KEY, 1, nx=True, ex=settings.REMATCH_SCHEDULED_TTL_SECONDS):
        return False
    rematch_pending.apply_async(countdown=settings.REMATCH_COALESCE_SECONDS)
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
    """Search every current page version of ``pages`` (a crawler.pagestore.PageStore) for the
    indexed works among ``work_ids`` and record their matches with ``engine`` (the platform's
    fingerprint.Engine). Returns the RematchJob (None when no such work is indexed).

    Raises the storage errors of MongoDB and Redis (the job is marked failed with the reason).
    """
    works = list(Work.objects.filter(pk__in=work_ids, status=WorkStatus.INDEXED))
    if not works:
        return None
    job = RematchJob.objects.create(pages_total=pages.count_current())
    job.works.set(works)
    small = Engine(MemoryIndex(), MemoryWorkStore(), config=engine.config)
    wanted = set()
    try:
        for work in works:
            record = engine.store.get(work.engine_id)
            if record is not None:
                small.add_work(work.engine_id, record["text"])
                wanted.add(work.engine_id)
        searched = candidates = found = new = 0
        for page, version in pages.iter_current():
            searched += 1
            if version.text and small.candidates(small.letters(version.text)):
                candidates += 1
                report = matching.match_version(engine, page, version, None, only_works=wanted)
                found, new = found + report.found, new + report.new
            if searched % settings.REMATCH_PROGRESS_EVERY_PAGES == 0:
                RematchJob.objects.filter(pk=job.pk).update(
                    pages_searched=searched, candidates=candidates, matches_found=found,
                    matches_new=new)
        RematchJob.objects.filter(pk=job.pk).update(
            state=RematchJob.State.FINISHED, finished_at=timezone.now(), pages_searched=searched,
            candidates=candidates, matches_found=found, matches_new=new)
    except Exception as exc:
        RematchJob.objects.filter(pk=job.pk).update(
            state=RematchJob.State.FAILED, finished_at=timezone.now(),
            error=f"{type(exc).__name__}: {exc}"[:2000])
        raise
    job.refresh_from_db()
    log.info("stored pages searched for works %s: %s", work_ids, job)
    return job
