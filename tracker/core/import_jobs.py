"""A .zip of works imported in the background for the dashboard, as ``manage.py import_works``
does on the command line (``tracker.core.importing``), with a progress row the page polls.

``actions.do_start_import`` stages the archive (``staged_archive``) and queues the Celery task
``tracker.core.tasks.import_archive``, which calls ``run``. A bad file inside the archive is one
"failed" line of the summary, never the end of the job; an unreadable archive fails the job
with the reason; a job whose worker was lost is failed by ``fail_stale`` (the sweeper, and the
progress endpoint) once its row has not moved for settings.IMPORT_STUCK_SECONDS.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from . import notes
from .importing import import_path
from .models import ImportJob, ImportState
from .uploads import UploadError

log = logging.getLogger(__name__)


def staged_archive(job_id: int) -> Path:
    """Where the archive of import job ``job_id`` waits: MEDIA_ROOT/imports/<id>.zip."""
    return Path(settings.MEDIA_ROOT) / "imports" / f"{job_id}.zip"


def run(job_id: int) -> str:
    """Import the staged archive of job ``job_id`` for its holder, updating ``done``/``total``
    after each work; the works' ingestion is queued as usual.

    Returns:
        The job's final state ("finished" or "failed"), or "gone" (no such running job).
    """
    job = ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).first()
    if job is None:
        return "gone"
    path = staged_archive(job.pk)

    def progress(done: int, total: int) -> None:
        ImportJob.objects.filter(pk=job.pk).update(done=done, total=total,
                                                   updated_at=timezone.now())

    try:
        with translation.override(job.language or settings.LANGUAGE_CODE):
            summary = import_path(path, job.holder, progress=False, on_item=progress,
                                  acting_user=job.user)
    except (FileNotFoundError, UploadError) as exc:
        return _close(job, ImportState.FAILED, error=str(exc))
    except Exception as exc:  # never leave the job running: say what broke
        log.exception("import job %s failed", job.pk)
        return _close(job, ImportState.FAILED, error=f"{type(exc).__name__}: {exc}")
    return _close(job, ImportState.FINISHED, summary=asdict(summary))


def _close(job: ImportJob, state: str, **fields) -> str:
    ImportJob.objects.filter(pk=job.pk, state=ImportState.RUNNING).update(
        state=state, updated_at=timezone.now(), **fields)
    staged_archive(job.pk).unlink(missing_ok=True)
    return state


def fail_stale(stuck_seconds: float | None = None) -> list[int]:
    """Fail the running import jobs whose progress has not moved for ``stuck_seconds``
    (default settings.IMPORT_STUCK_SECONDS): their worker was lost.

    Returns:
        The ids of the jobs failed.
    """
    age = settings.IMPORT_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    stale = list(ImportJob.objects.filter(
        state=ImportState.RUNNING, updated_at__lt=timezone.now() - timedelta(seconds=age))
        .values_list("pk", flat=True))
    for job_id in stale:
        fail(job_id, notes.coded("import_stalled", gettext_noop(
            "The import stopped moving (its worker was lost); upload the archive again.")))
    return stale


def fail(job_id: int, error: str) -> None:
    """Fail running job ``job_id`` with ``error`` (str, for the user) and drop its archive."""
    ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).update(
        state=ImportState.FAILED, error=error, updated_at=timezone.now())
    staged_archive(job_id).unlink(missing_ok=True)


def progress(job: ImportJob) -> dict:
    """The job as the page shows it: {"state", "state_label", "done", "total", "percent",
    "error", "summary"}; a stale running job is failed first (``fail_stale``)."""
    if job.state == ImportState.RUNNING and job.pk in fail_stale():
        job.refresh_from_db()
    percent = round(100 * job.done / job.total) if job.total else 0
    return {"state": job.state, "state_label": job.get_state_display(), "done": job.done,
            "total": job.total, "percent": percent, "error": notes.in_words(job.error), "summary": job.summary}

