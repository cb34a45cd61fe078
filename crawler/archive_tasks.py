"""The Celery task of web-archive scans: ``crawler.scan_archive_file`` on
settings.QUEUE_ARCHIVE (settings.CELERY_TASK_ROUTES), one per ArchiveScan (crawler.archives).
Imported by crawler.tasks, so that the workers register it."""

from __future__ import annotations

from celery import shared_task
from celery.utils.log import get_task_logger
from django.conf import settings

from core.connections import storage_errors
from core.engine import get_engine
from crawler import archives, scans
from lib.runtime.backoff import backoff_delay

log = get_task_logger(__name__)


@shared_task(bind=True, name=archives.TASK, max_retries=settings.CRAWL_STORAGE_RETRIES,
             ignore_result=True)
def scan_archive_file(self, scan_id: int) -> str:
    """Scan ArchiveScan ``scan_id`` (crawler.archives.run) from its committed offset. MongoDB
    or Redis unreachable: retried with backoff (it resumes where it was), then left to the
    sweeper (crawler.archives.sweep_stuck). Returns the scan's status."""
    try:
        return archives.run(scan_id, get_engine(), scans.get_crawler(), self.request.id or "")
    except storage_errors() as exc:
        delay = backoff_delay(self.request.retries, settings.CRAWL_RETRY_BASE_SECONDS,
                              settings.STORAGE_RETRY_MAX_SECONDS)
        log.warning("archive scan %s: storage unreachable (%s), retrying in %.0f s", scan_id,
                    exc, delay)
        raise self.retry(exc=exc, countdown=delay) from exc
