"""Import jobs run in the background for the dashboard and the API, with a progress row that
the page and the API poll: a .zip of works (``core.bulk_import``, as ``manage.py
import_works`` does on the command line) or one uploaded work file
(``core.single_upload``).

``import_actions.do_start_import`` and ``import_actions.do_start_upload`` stage the file (``staged_file``)
and queue the job's Celery task. A bad file inside an archive is one "failed" line of the
summary, never the end of the job; an unreadable file fails the job with the reason and its
code; a job whose worker was lost is found by ``fail_stale`` (the sweeper) or ``settle`` (the
progress endpoints, that job only) once its row has not moved for settings.IMPORT_STUCK_SECONDS:
an archive job is queued again, up to settings.IMPORT_RESUME_ATTEMPTS times (it goes on after
its last committed file, ``bulk_import.run_job``), any other is failed.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from lib.text.untrusted import ascii_int

from . import notes
from .models import ImportJob, ImportKind, ImportState

log = logging.getLogger(__name__)

#: The Celery task of each kind of job.
TASKS = {ImportKind.ARCHIVE: "tracker.core.tasks.import_archive",
         ImportKind.FILE: "tracker.core.tasks.read_upload"}


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
    """Settle the running import jobs whose progress has not moved for ``stuck_seconds``
    (default settings.IMPORT_STUCK_SECONDS): their worker was lost (``_stalled``: an archive
    job is queued again while it has resumptions left, any other is failed). Staged files kept
    for "register anyway" are removed after settings.KEPT_UPLOAD_SECONDS.

    Returns:
        The ids of the jobs failed (not those queued again).
    """
    stale = list(ImportJob.objects.filter(state=ImportState.RUNNING,
                                          updated_at__lt=_stuck_since(stuck_seconds))
                 .values_list("pk", flat=True))
    failed = [job_id for job_id in stale if _stalled(job_id)]
    _drop_kept_files()
    return failed


def settle(job: ImportJob) -> ImportJob:
    """``job`` as it stands: settled first (``_stalled``) when it is running and its progress
    has not moved for settings.IMPORT_STUCK_SECONDS (its worker was lost), then read again.
    Returns it."""
    if job.state == ImportState.RUNNING and job.updated_at < _stuck_since():
        _stalled(job.pk)
        job.refresh_from_db()
    return job


def _stuck_since(stuck_seconds: float | None = None):
    age = settings.IMPORT_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    return timezone.now() - timedelta(seconds=age)


def _stalled(job_id: int) -> bool:
    """Queue the stalled archive job ``job_id`` again (counted in its ``options["resumed"]``)
    while it was resumed fewer than settings.IMPORT_RESUME_ATTEMPTS times; else fail it.
    Returns True when it was failed."""
    job = ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).first()
    if job is None:
        return False
    resumed = job.options.get("resumed", 0)
    if job.kind == ImportKind.ARCHIVE and resumed < settings.IMPORT_RESUME_ATTEMPTS:
        ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).update(
            options={**job.options, "resumed": resumed + 1}, updated_at=timezone.now())
        log.warning("import job %s stalled; queued again (resumption %d)", job_id, resumed + 1)
        queue(job_id, TASKS[job.kind])
        return False
    fail(job_id, notes.coded("import_stalled", gettext_noop(
        "The import stopped moving (its worker was lost); upload the file again.")),
        code="stalled")
    return True


def queue(job_id: int, task: str) -> None:
    """Send ``task`` (a name of ``TASKS``) for job ``job_id``; when the task queue is
    unreachable the job is failed now ("not_queued"), never left running."""
    try:
        current_app.send_task(task, args=[job_id])
    except Exception as exc:  # kombu's errors when Redis is down: fail now, not "running"
        fail(job_id, notes.coded("import_not_queued", gettext_noop(
            "The import could not be queued (task queue unreachable: %(error)s); upload the "
            "file again later."), error=str(exc)), code="not_queued")


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
