"""Works: registered, updated and deleted. The extraction, staging and ingestion steps
themselves are in ``core.registration`` and ``core.ingestion``.

Atomic and audited, follow-ups queued on commit (docs/architecture.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from . import registration
from .conflicts import check_not_duplicate
from .models import (
    AuditEvent,
    RightsHolder,
    Work,
)

if TYPE_CHECKING:
    from lib.text import Extracted


def do_register_work(holder: RightsHolder, reference: str, extracted: Extracted, *,
                     acting_user=None, ingest: bool = True, check_duplicate: bool = False,
                     **metadata) -> registration.Registration:
    """Create or update the work ``reference`` of ``holder`` with ``extracted`` text, record it
    and queue its ingestion once committed.

    Args:
        holder: the owning RightsHolder.
        reference: the holder's id for the work (unique per holder), 1 to 200 characters.
        extracted: the text from ``lib.text``.
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
