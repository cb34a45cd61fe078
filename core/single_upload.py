"""One uploaded work file read in the worker: the job behind the work form's file and the API's
``works/upload/`` (``import_actions.do_start_upload`` stages the file and queues
``tracker.core.tasks.read_upload``, which calls ``run``).

The web request only checks what needs no reading (size, suffix) and stores the file; the
parsing, whose cost a hostile file can blow up, happens here under the text limits
(``core.text_extraction.text_config``) and a wall-time limit (settings.UPLOAD_EXTRACT_SECONDS,
the task's soft time limit). The job's steps (``done`` of ``STEPS``): the file read, the
duplicate check, the work registered (its ingestion then queued as for every work).
"""

from __future__ import annotations

import logging

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from . import import_jobs, notes, work_actions
from .conflicts import DuplicateWork, check_not_duplicate
from .models import ImportJob, ImportKind, ImportState
from .text_extraction import UploadError, extract_file

log = logging.getLogger(__name__)

STEPS = 3


def _step(job: ImportJob, done: int) -> None:
    ImportJob.objects.filter(pk=job.pk).update(done=done, total=STEPS, updated_at=timezone.now())


def run(job_id: int) -> str:
    """Read the staged file of job ``job_id``, refuse it when the holder registered the same
    text as another work (unless the options allow it), register it as the options say.

    Returns:
        The job's final state ("finished", with its ``work``; "failed", with ``error`` and
        ``error_code``: an UploadError code, "duplicate_work", "timeout", "missing",
        "worker_lost" (started more than settings.UPLOAD_MAX_ATTEMPTS times: each reading
        killed the worker process) or "internal"), or "gone" (no such running job).
    """
    job = ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING,
                                   kind=ImportKind.FILE).select_related("holder", "user").first()
    if job is None:
        return "gone"
    attempts = job.summary.get("attempts", 0) + 1
    if attempts > settings.UPLOAD_MAX_ATTEMPTS:  # its reading killed the worker process
        return import_jobs.close(job, ImportState.FAILED, error_code="worker_lost",
                                 error=notes.coded("upload_worker_lost", gettext_noop(
                                     "Reading the file stopped the worker %(n)d times; the "
                                     "file is refused."), n=settings.UPLOAD_MAX_ATTEMPTS))
    ImportJob.objects.filter(pk=job.pk).update(summary={"attempts": attempts})
    options = job.options
    try:
        with translation.override(job.language or settings.LANGUAGE_CODE):
            _step(job, 0)
            extracted = extract_file(job.name, import_jobs.staged_file(job).read_bytes())
            _step(job, 1)
            if not options.get("allow_duplicate"):
                check_not_duplicate(job.holder, options["reference"], extracted.text)
            _step(job, 2)
            result = work_actions.do_register_work(
                job.holder, options["reference"], extracted, acting_user=job.user,
                title=options.get("title", ""), author=options.get("author", ""),
                kind=options.get("kind"), language=options.get("language"),
                source_name=job.name)
    except UploadError as exc:
        return import_jobs.close(job, ImportState.FAILED, error=str(exc), error_code=exc.code)
    except DuplicateWork as exc:
        work = exc.overlap.work
        return import_jobs.close(job, ImportState.FAILED, keep_file=True, error=notes.coded(
            "duplicate_work", gettext_noop(
                "The text is %(pct)s the same as your work “%(title)s” (%(reference)s)."),
            pct=f"{exc.overlap.containment:.0%}", title=work.title, reference=work.reference),
            error_code="duplicate_work", summary={"existing_work": work.pk})
    except SoftTimeLimitExceeded:
        return import_jobs.close(job, ImportState.FAILED, error_code="timeout", error=notes.coded(
            "upload_timeout", gettext_noop(
                "Reading the file took more than %(seconds)d seconds, the most allowed."),
            seconds=settings.UPLOAD_EXTRACT_SECONDS))
    except FileNotFoundError:
        return import_jobs.close(job, ImportState.FAILED, error_code="missing", error=notes.coded(
            "upload_missing", gettext_noop("The uploaded file is gone; upload it again.")))
    except Exception as exc:  # never leave the job running: say what broke
        log.exception("upload job %s failed", job.pk)
        return import_jobs.close(job, ImportState.FAILED, error_code="internal",
                                 error=f"{type(exc).__name__}: {exc}")
    return import_jobs.close(job, ImportState.FINISHED, work=result.work, done=STEPS,
                             total=STEPS, summary={"outcome": result.outcome})
