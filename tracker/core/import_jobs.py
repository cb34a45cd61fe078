"""A .zip of works imported in the background for the dashboard, as ``manage.py import_works``
does on the command line (``tracker.core.importing``), with a progress row the page polls.

``actions.do_start_import`` stages the archive (``staged_archive``) and queues the Celery task
``tracker.core.tasks.import_archive``, which calls ``importing.run_job``. A bad file inside the archive is one
"failed" line of the summary, never the end of the job; an unreadable archive fails the job
with the reason; a job whose worker was lost is failed by ``fail_stale`` (the sweeper, and the
progress endpoint) once its row has not moved for settings.IMPORT_STUCK_SECONDS.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from . import notes
from .models import ImportJob, ImportState


def staged_archive(job_id: int) -> Path:
    """Where the archive of import job ``job_id`` waits: MEDIA_ROOT/imports/<id>.zip."""
    return Path(settings.MEDIA_ROOT) / "imports" / f"{job_id}.zip"


def close(job: ImportJob, state: str, **fields) -> str:
    """End the running ``job`` in ``state`` with ``fields``, remove its staged archive and
    return ``state``."""
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

