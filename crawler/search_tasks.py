"""Celery tasks of search-engine discovery (crawler.search_discovery), on settings.QUEUE_SEARCH:
``search_web`` does one run, ``search_web_daily`` (beat, every settings.SEARCH_INTERVAL_SECONDS)
starts the daily run, ``sweep_search_runs`` (beat) fails the runs that stopped moving. Imported
by crawler.tasks so that the worker registers them."""

from __future__ import annotations

from celery import shared_task
from celery.utils.log import get_task_logger
from django.conf import settings
from django.utils.translation import gettext_noop

from core import notes
from core.connections import storage_errors
from core.engine import get_engine
from crawler import scans, search_discovery
from crawler.models import SearchRun, SearchRunStatus
from lib.runtime.backoff import backoff_delay

log = get_task_logger(__name__)


@shared_task(bind=True, name="crawler.search_web", max_retries=settings.CRAWL_STORAGE_RETRIES)
def search_web(self, run_id: int) -> dict:
    """Do search run ``run_id`` (crawler.search_discovery.run). MongoDB or Redis down: retried
    with backoff, then the run is failed with the reason; any other error fails it too.
    Returns the run's summary (SearchRun.summary)."""
    try:
        return search_discovery.run(run_id, scans.get_crawler(), get_engine()).summary()
    except storage_errors() as exc:
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=backoff_delay(
                self.request.retries, settings.CRAWL_RETRY_BASE_SECONDS,
                settings.STORAGE_RETRY_MAX_SECONDS)) from exc
        note = notes.coded("search_storage", gettext_noop("storage unavailable: %(error)s"),
                           error=str(exc)[:300])
    except Exception as exc:
        log.exception("search run #%s failed", run_id)
        note = notes.coded("search_error", gettext_noop("internal error: %(error)s"),
                           error=f"{type(exc).__name__}: {exc}"[:300])
    search = SearchRun.objects.get(pk=run_id)
    return search_discovery.close(search, SearchRunStatus.FAILED, note).summary()


@shared_task(name="crawler.search_web_daily")
def search_web_daily() -> int:
    """Start the daily search run over every indexed work. Returns its id."""
    return search_discovery.do_start_search_run(trigger="schedule").pk


@shared_task(name="crawler.sweep_search_runs")
def sweep_search_runs() -> list[int]:
    """Fail the search runs without progress (crawler.search_discovery.sweep_runs). Returns
    their ids."""
    return search_discovery.sweep_runs()
