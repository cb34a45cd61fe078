"""The core app's actions: registering, updating and deleting works, each one
``do_<verb>_<noun>`` function (the admin, ``import_works`` and the demo call these, never the
models' writers directly).

Each action is atomic, records the acting person in the audit trail (``AuditEvent``, kind
"work") and queues its follow-up Celery task (ingestion, removal from the index) only once its
transaction commits (``transaction.on_commit``). The extraction, staging and ingestion steps
themselves are in ``tracker.core.services``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from . import services
from .models import AuditEvent, RightsHolder, Work

if TYPE_CHECKING:
    from tracker.text import Extracted


def do_register_work(holder: RightsHolder, reference: str, extracted: Extracted, *,
                     acting_user=None, ingest: bool = True, **metadata) -> services.Registration:
    """Create or update the work ``reference`` of ``holder`` with ``extracted`` text, record it
    and queue its ingestion once committed.

    Args:
        holder: the owning RightsHolder.
        reference: the holder's id for the work (unique per holder), 1 to 200 characters.
        extracted: the text from ``tracker.text``.
        acting_user: the user who uploaded or imported it, or None (the demo).
        ingest: queue the Celery ingestion task after commit (False: the caller runs
            ``services.ingest`` itself, e.g. ``import_works --now``).
        metadata: title, author, kind, language, source_name (``services.register_work``).

    Returns:
        The ``services.Registration`` ("registered", "updated" or "skipped").

    Raises:
        ValueError: reference empty or longer than 200 characters.
    """
    with transaction.atomic():
        # services.register_work stages the text and queues its ingestion on commit.
        registration = services.register_work(holder, reference, extracted, ingest=ingest,
                                              **metadata)
        work = registration.work
        if registration.outcome != "skipped":
            AuditEvent.record(
                kind=AuditEvent.Kind.WORK, user=acting_user, holder=holder, target=work,
                subject=str(work), old_state="" if registration.outcome == "registered"
                else "registered", new_state=registration.outcome,
                reason=f"text {work.length} characters, SHA-256 {work.sha256[:12]}"
                if registration.queued else "metadata")
    return registration


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
    record are removed (``services.forget_work``, by the post_delete signal, which also covers
    deletions made outside this action)."""
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.WORK, user=acting_user, holder=work.holder,
                          target=work, subject=str(work), old_state="registered",
                          new_state="deleted")
        work.delete()
