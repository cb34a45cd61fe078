"""Import jobs run in the background for the dashboard and the API, with a progress row that
the page and the API poll: a .zip of works (``tracker.core.importing``, as ``manage.py
import_works`` does on the command line) or one uploaded work file
(``tracker.core.upload_jobs``).

``actions.do_start_import`` and ``actions.do_start_upload`` stage the file (``staged_file``)
and queue the job's Celery task. A bad file inside an archive is one "failed" line of the
summary, never the end of the job; an unreadable file fails the job with the reason and its
code; a job whose worker was lost is failed by ``fail_stale`` (the sweeper) or ``settle`` (the
progress endpoints, that job only) once its row has not moved for settings.IMPORT_STUCK_SECONDS.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from tracker.text.untrusted import ascii_int

from . import notes
from .models import ImportJob, ImportKind, ImportState


def staged_file(job: ImportJob) -> Path:
    """Where the uploaded file of import ``job`` waits: MEDIA_ROOT/imports/<id>.zip for an
    archive, MEDIA_ROOT/imports/<id>.upload for a work file."""
    suffix = ".zip" if job.kind == ImportKind.ARCHIVE else ".upload"
    return _folder() / f"{job.pk}{suffix}"


def _folder() -> Path:
    return Path(settings.MEDIA_ROOT) / "imports"


def _unstage(job_id: int) -> None:
    for path in _folder().glob(f"{job_id}.*"):
        path.unlink(missing_ok=True)


def close(job: ImportJob, state: str, keep_file: bool = False, **fields) -> str:
    """End the running ``job`` in ``state`` with ``fields``, remove its staged file (unless
    ``keep_file``: a duplicate may still be registered anyway) and return ``state``."""
    if not keep_file:  # before the state: whoever sees the job ended finds its file gone
        _unstage(job.pk)
    ImportJob.objects.filter(pk=job.pk, state=ImportState.RUNNING).update(
        state=state, updated_at=timezone.now(), **fields)
    return state


def fail_stale(stuck_seconds: float | None = None) -> list[int]:
    """Fail the running import jobs whose progress has not moved for ``stuck_seconds``
    (default settings.IMPORT_STUCK_SECONDS): their worker was lost. Staged files kept for
    "register anyway" are removed after settings.KEPT_UPLOAD_SECONDS.

    Returns:
        The ids of the jobs failed.
    """
    stale = list(ImportJob.objects.filter(state=ImportState.RUNNING,
                                          updated_at__lt=_stuck_since(stuck_seconds))
                 .values_list("pk", flat=True))
    for job_id in stale:
        _fail_stalled(job_id)
    _drop_kept_files()
    return stale


def settle(job: ImportJob) -> ImportJob:
    """``job`` as it stands: failed first when it is running and its progress has not moved
    for settings.IMPORT_STUCK_SECONDS (its worker was lost), then read again. Returns it."""
    if job.state == ImportState.RUNNING and job.updated_at < _stuck_since():
        _fail_stalled(job.pk)
        job.refresh_from_db()
    return job


def _stuck_since(stuck_seconds: float | None = None):
    age = settings.IMPORT_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    return timezone.now() - timedelta(seconds=age)


def _fail_stalled(job_id: int) -> None:
    fail(job_id, notes.coded("import_stalled", gettext_noop(
        "The import stopped moving (its worker was lost); upload the file again.")),
        code="stalled")


def _drop_kept_files() -> None:
    folder = _folder()
    if not folder.is_dir():
        return
    oldest = time.time() - settings.KEPT_UPLOAD_SECONDS
    running = set(ImportJob.objects.filter(state=ImportState.RUNNING)
                  .values_list("pk", flat=True))
    for path in folder.iterdir():
        job_id = path.name.split(".")[0]
        if ascii_int(job_id) not in (None, *running) and path.stat().st_mtime < oldest:
            path.unlink(missing_ok=True)


def fail(job_id: int, error: str, code: str) -> None:
    """Fail running job ``job_id`` with ``error`` (str, for the user) and ``code`` (stable, for
    programs), and drop its staged file."""
    _unstage(job_id)
    ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).update(
        state=ImportState.FAILED, error=error, error_code=code, updated_at=timezone.now())


def progress(job: ImportJob) -> dict:
    """The job as the page shows it: {"state", "state_label", "kind", "done", "total",
    "percent", "error", "error_code", "summary", "work"} ("work": the work's id, or None);
    a stale running job is failed first (``settle``)."""
    job = settle(job)
    percent = round(100 * job.done / job.total) if job.total else 0
    return {"state": job.state, "state_label": job.get_state_display(), "kind": job.kind,
            "done": job.done, "total": job.total, "percent": percent,
            "error": notes.in_words(job.error), "error_code": job.error_code,
            "summary": job.summary, "work": job.work_id}
