"""Import jobs: a .zip of works staged and queued (``core.bulk_import``), one work
file staged and queued (``core.single_upload``), and a refused duplicate registered
anyway.

Atomic and audited, follow-ups queued on commit (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils.translation import gettext as _

from .errors import ActionError
from .import_jobs import TASKS, queue, staged_file
from .models import (
    AuditEvent,
    ImportJob,
    ImportKind,
    RightsHolder,
)
from .text_extraction import open_zip


def do_start_import(holder: RightsHolder, acting_user, name: str, data: bytes,
                    language: str = "") -> ImportJob:
    """Stage the .zip ``data`` (bytes) named ``name`` for ``holder`` and queue its import
    (``tracker.core.tasks.import_archive``) once committed; recorded in the audit trail.

    Args:
        language: the uploader's language code, for the summary's reasons.

    Returns:
        The ImportJob, "running".

    Raises:
        UploadError: ``data`` is not a readable ZIP archive, or is an archive bomb (checked
            before anything is saved).
    """
    open_zip(data, "ZIP").close()
    return _start_job(ImportJob(holder=holder, user=acting_user, name=name[:500],
                                language=language, kind=ImportKind.ARCHIVE),
                      [data])


def do_start_upload(holder: RightsHolder, acting_user, name: str, chunks: Iterable[bytes],
                    options: dict, language: str = "") -> ImportJob:
    """Stage the work file ``name`` (its bytes given as ``chunks``, e.g. an UploadedFile's
    ``chunks()``: never all in memory) for ``holder`` and queue its reading
    (``tracker.core.tasks.read_upload``, ``single_upload.run``) once committed; recorded in the
    audit trail.

    Args:
        options: reference (required: the work to register or update), title, author, kind,
            language (of the work), allow_duplicate (as ``single_upload.run`` reads them); empty
            ones are left to detection.
        language: the uploader's language code, for the job's error.

    Returns:
        The ImportJob (kind "file"), "running".
    """
    job = ImportJob(holder=holder, user=acting_user, name=name[:500], language=language,
                    kind=ImportKind.FILE, options={k: v for k, v in options.items() if v})
    return _start_job(job, chunks)


def do_register_anyway(job: ImportJob, acting_user) -> ImportJob:
    """Start a new upload job from the file of ``job``, refused as a duplicate, registering it
    even though the holder has the same text as another work; recorded in the audit trail.

    Returns:
        The new ImportJob, "running".

    Raises:
        ActionError: ``job`` was not refused as a duplicate, or its file is no longer kept
            (settings.KEPT_UPLOAD_SECONDS).
    """
    path = staged_file(job)
    if job.error_code != "duplicate_work" or not path.exists():
        raise ActionError(_("The file is no longer kept; upload it again."))
    with path.open("rb") as kept:
        new = do_start_upload(job.holder, acting_user, job.name,
                              iter(lambda: kept.read(2**20), b""),
                              {**job.options, "allow_duplicate": True}, job.language)
    path.unlink(missing_ok=True)
    return new


def _start_job(job: ImportJob, chunks: Iterable[bytes]) -> ImportJob:
    """Save ``job``, write ``chunks`` to its staged file, record it, and send its kind's task
    (``import_jobs.TASKS``) with the job's id once committed."""
    with transaction.atomic():
        job.save()
        path = staged_file(job)
        path.parent.mkdir(parents=True, exist_ok=True)
        size = 0
        with path.open("wb") as out:
            for chunk in chunks:
                out.write(chunk)
                size += len(chunk)
        AuditEvent.record(kind=AuditEvent.Kind.WORK, user=job.user, holder=job.holder,
                          target=job, subject=job.name, old_state="", new_state="import started",
                          reason=f"{size} bytes")
        job_id = job.pk
        task = TASKS[job.kind]
        transaction.on_commit(lambda: queue(job_id, task))
    return job
