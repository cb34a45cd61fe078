"""The core app's actions: registering, updating and deleting works, each one
``do_<verb>_<noun>`` function (the admin, ``import_works`` and the demo call these, never the
models' writers directly).

Each action is atomic, records the acting person in the audit trail (``AuditEvent``, kind
"work") and queues its follow-up Celery task (ingestion, removal from the index) only once its
transaction commits (``transaction.on_commit``). The extraction, staging and ingestion steps
themselves are in ``tracker.core.registration`` and ``tracker.core.ingestion``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from . import notes, registration
from .conflicts import check_not_duplicate, other_holders_overlaps
from .errors import ActionError
from .import_jobs import TASKS, queue, staged_file
from .models import (
    AccessState,
    AuditEvent,
    ConflictStatus,
    ImportJob,
    ImportKind,
    RightsConflict,
    RightsHolder,
    UserSettings,
    Work,
)
from .text_extraction import open_zip
from .timezones import names

if TYPE_CHECKING:
    from tracker.text import Extracted


def do_register_work(holder: RightsHolder, reference: str, extracted: Extracted, *,
                     acting_user=None, ingest: bool = True, check_duplicate: bool = False,
                     **metadata) -> registration.Registration:
    """Create or update the work ``reference`` of ``holder`` with ``extracted`` text, record it
    and queue its ingestion once committed.

    Args:
        holder: the owning RightsHolder.
        reference: the holder's id for the work (unique per holder), 1 to 200 characters.
        extracted: the text from ``tracker.text``.
        acting_user: the user who uploaded or imported it, or None (the demo).
        ingest: queue the Celery ingestion task after commit (False: the caller runs
            ``ingestion.ingest`` itself, e.g. ``import_works --now``).
        check_duplicate: first refuse a text the holder already registered as another work
            (``conflicts.check_not_duplicate``); False: the caller checked, or the person
            confirmed.
        metadata: title, author, kind, language, source_name (``registration.register_work``).

    Returns:
        The ``registration.Registration`` ("registered", "updated" or "skipped").

    Raises:
        ValueError: reference empty or longer than 200 characters.
        conflicts.DuplicateWork: with ``check_duplicate``, the holder's work it duplicates.
    """
    if check_duplicate:
        check_not_duplicate(holder, reference, extracted.text)
    with transaction.atomic():
        # registration.register_work stages the text and queues its ingestion on commit.
        result = registration.register_work(holder, reference, extracted, ingest=ingest,
                                              **metadata)
        work = result.work
        if result.outcome != "skipped":
            AuditEvent.record(
                kind=AuditEvent.Kind.WORK, user=acting_user, holder=holder, target=work,
                subject=str(work), old_state="" if result.outcome == "registered"
                else "registered", new_state=result.outcome,
                reason=f"text {work.length} characters, SHA-256 {work.sha256[:12]}"
                if result.queued else "metadata")
    return result


def do_update_work(work: Work, acting_user, changed: list[str]) -> Work:
    """Save the metadata fields ``changed`` of ``work`` (title, author, kind, reference...) and
    record who changed what; the text is unchanged (use ``do_register_work`` for a new text).

    Returns:
        The saved work.
    """
    with transaction.atomic():
        work.save()
        AuditEvent.record(kind=AuditEvent.Kind.WORK, user=acting_user, holder=work.holder,
                          target=work, subject=str(work), old_state="registered",
                          new_state="updated", reason=", ".join(changed))
    return work


def do_delete_work(work: Work, acting_user) -> None:
    """Delete ``work`` and record it; once committed, its staged text, postings and stored
    record are removed (``ingestion.forget_work``, by the post_delete signal, which also covers
    deletions made outside this action)."""
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.WORK, user=acting_user, holder=work.holder,
                          target=work, subject=str(work), old_state="registered",
                          new_state="deleted")
        work.delete()


def do_flag_rights_conflict(existing: Work, claimed: Work, containment: float,
                            passages: list[dict]) -> RightsConflict | None:
    """Flag for staff that ``claimed`` (another holder's work) shares its text with
    ``existing``, and record it (by the platform: no acting user).

    Args:
        existing, claimed: the work registered first and the one whose check found it.
        containment: the larger containment, 0..1 (``conflicts.Overlap``).
        passages: the shared passages (``Passage.to_dict()``; page = ``claimed``).

    Returns:
        The new RightsConflict, or None when the pair was already flagged (either way round).
    """
    with transaction.atomic():
        if RightsConflict.objects.filter(existing__in=[existing, claimed],
                                         claimed__in=[existing, claimed]).exists():
            return None
        conflict = RightsConflict.objects.create(existing=existing, claimed=claimed,
                                                 containment=containment, passages=passages)
        # holder None: the events stay staff-only (a holder's audit trail shows its own holder's
        # events, and these name the other holder's work)
        AuditEvent.record(kind=AuditEvent.Kind.CONFLICT, user=None, holder=None,
                          target=conflict, subject=str(conflict), old_state="",
                          new_state=ConflictStatus.OPEN,
                          reason=f"{containment:.0%} of the text shared with work "
                                 f"{existing.pk} of holder {existing.holder_id}")
    return conflict


def do_flag_rights_conflicts(work_id: int) -> int:
    """Flag a RightsConflict between the indexed work ``work_id`` and every other holder's work
    sharing its text (``conflicts.other_holders_overlaps``), each by ``do_flag_rights_conflict``.

    Returns:
        Number of conflicts newly flagged (a pair already flagged, either way round, is left).

    Raises:
        The storage errors of ``connections.storage_errors()``.
    """
    work, found = other_holders_overlaps(work_id)
    return sum(do_flag_rights_conflict(o.work, work, o.containment, o.passages) is not None
               for o in found)


def do_resolve_rights_conflict(conflict: RightsConflict, acting_user, note: str
                               ) -> RightsConflict:
    """Close ``conflict`` with staff's ``note`` (what was decided) and record it.

    Raises:
        ActionError: no note, or the conflict is already resolved.
    """
    note = (note or "").strip()
    if not note:
        raise ActionError(_("Say how the conflict was resolved."))
    with transaction.atomic():
        conflict = RightsConflict.objects.select_for_update().get(pk=conflict.pk)
        if conflict.status == ConflictStatus.RESOLVED:
            raise ActionError(_("This conflict is already resolved."))
        conflict.status, conflict.note = ConflictStatus.RESOLVED, note
        conflict.resolved_by, conflict.resolved_at = acting_user, timezone.now()
        conflict.save()
        AuditEvent.record(kind=AuditEvent.Kind.CONFLICT, user=acting_user, holder=None,
                          target=conflict,
                          subject=str(conflict), old_state=ConflictStatus.OPEN,
                          new_state=ConflictStatus.RESOLVED, reason=note)
    return conflict


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


def do_update_user_settings(user, acting_user, *, time_zone: str) -> UserSettings:
    """Set ``user``'s time zone (an IANA name; "" for settings.TIME_ZONE), recorded in the
    audit trail (kind "settings", the zone before and after) when it changes.

    Returns:
        The user's UserSettings row (created on first change).

    Raises:
        ActionError: ``time_zone`` is not a time zone this machine knows.
    """
    if time_zone and time_zone not in names():
        raise ActionError(_("Unknown time zone: %(zone)s") % {"zone": time_zone})
    with transaction.atomic():
        row, _created = UserSettings.objects.select_for_update().get_or_create(user=user)
        old = row.time_zone or settings.TIME_ZONE
        row.time_zone = time_zone
        row.save()
        if old != (time_zone or settings.TIME_ZONE):
            AuditEvent.record(kind=AuditEvent.Kind.USER_SETTINGS, user=acting_user, holder=None,
                              target=row, subject=user.get_username(), old_state=old,
                              new_state=time_zone or settings.TIME_ZONE)
    return row


def do_set_holder_users(holder: RightsHolder, users, acting_user) -> tuple[list[str], list[str]]:
    """Give exactly ``users`` (an iterable of User) access to ``holder``'s works, and record who
    was added and who removed in the audit trail (kind "access").

    Returns:
        (usernames added, usernames removed), each sorted; both empty when nothing changed.
    """
    wanted = {user.pk: user for user in users}
    with transaction.atomic():
        holder = RightsHolder.objects.select_for_update(no_key=True).get(pk=holder.pk)
        current = {user.pk: user for user in holder.users.all()}
        added = sorted(wanted[pk].get_username() for pk in wanted.keys() - current.keys())
        removed = sorted(current[pk].get_username() for pk in current.keys() - wanted.keys())
        if not added and not removed:
            return [], []
        holder.users.set(wanted.values())
        AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=holder,
                          target=holder, subject=str(holder), old_state="", new_state="",
                          reason=notes.coded("holder_users_changed", gettext_noop(
                              "users added: %(added)s; users removed: %(removed)s"),
                              added=", ".join(added) or "-", removed=", ".join(removed) or "-"))
    return added, removed


def do_change_email(user, email: str, acting_user) -> bool:
    """Set ``user``'s e-mail address (where alerts go) to ``email`` and record the change.

    Returns:
        True when the address changed, False when it was already ``email``.
    """
    with transaction.atomic():
        user = type(user).objects.select_for_update().get(pk=user.pk)
        if user.email == email:
            return False
        old, user.email = user.email, email
        user.save(update_fields=["email"])
        AuditEvent.record(kind=AuditEvent.Kind.USER_SETTINGS, user=acting_user, holder=None,
                          target=user, subject=user.get_username(), old_state="",
                          new_state="", reason=notes.coded("email_changed", gettext_noop(
                              "e-mail address changed from %(old)s to %(new)s"),
                              old=old or "-", new=email or "-"))
    return True


def do_create_holder(name: str, acting_user=None) -> tuple[RightsHolder, bool]:
    """The rights holder named ``name`` (stripped), created and recorded when missing.

    Returns:
        (the holder, True when it was created now).
    """
    with transaction.atomic():
        holder, created = RightsHolder.objects.get_or_create(name=name.strip())
        if created:
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=holder,
                              target=holder, subject=str(holder), old_state="",
                              new_state=AccessState.CREATED, reason=notes.coded(
                                  "holder_created", gettext_noop("rights holder created")))
    return holder, created
