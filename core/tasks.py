"""Celery tasks of the core app (queue settings.QUEUE_INGEST, routed by settings.CELERY_TASK_ROUTES).

Each task's name is what queued messages carry, so it keeps the module path under which it was
first queued (``tracker.core.tasks.*``): a message queued before an upgrade still finds its task."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from lib.runtime.backoff import backoff_delay

from . import bulk_import, errors, ingestion, single_upload
from .connections import storage_errors
from .engine import get_engine


def backoff(retries: int) -> float:
    """Seconds before attempt ``retries + 1`` while storage is down: lib.runtime.backoff.backoff_delay
    from settings.INGEST_RETRY_BASE_SECONDS, at most settings.STORAGE_RETRY_MAX_SECONDS."""
    return backoff_delay(retries, settings.INGEST_RETRY_BASE_SECONDS,
                         settings.STORAGE_RETRY_MAX_SECONDS)


@shared_task(bind=True, name="tracker.core.tasks.ingest_work", max_retries=None)
def ingest_work(self, work_id: int) -> str:
    """Ingest work ``work_id`` (ingestion.ingest); retried with backoff, without limit, while
    MongoDB or Redis is unreachable, the work showing "waiting" meanwhile.

    Returns:
        ingestion.ingest's outcome: "indexed", "already indexed", "gone" or "failed".
    """
    try:
        return ingestion.ingest(work_id, token=self.request.id)
    except errors.StorageUnavailable as exc:
        ingestion.mark_waiting(work_id, str(exc))
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc


@shared_task(bind=True, name="tracker.core.tasks.remove_work", max_retries=None)
def remove_work(self, engine_id: str) -> bool:
    """Remove a deleted work's postings and stored record; retried while storage is down.

    Returns:
        True when the engine held the work.
    """
    try:
        return get_engine().remove_work(engine_id)
    except storage_errors() as exc:
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc


@shared_task(name="tracker.core.tasks.import_archive")
def import_archive(job_id: int) -> str:
    """Import the staged .zip of ImportJob ``job_id`` (``bulk_import.run_job``).

    Returns:
        "finished", "failed" or "gone".
    """
    return bulk_import.run_job(job_id)


@shared_task(name="tracker.core.tasks.read_upload", soft_time_limit=settings.UPLOAD_EXTRACT_SECONDS,
             time_limit=settings.UPLOAD_EXTRACT_SECONDS + settings.UPLOAD_EXTRACT_KILL_GRACE_SECONDS)
def read_upload(job_id: int) -> str:
    """Read and register the staged work file of ImportJob ``job_id`` (``single_upload.run``),
    stopped after settings.UPLOAD_EXTRACT_SECONDS.

    Returns:
        "finished", "failed" or "gone".
    """
    return single_upload.run(job_id)
