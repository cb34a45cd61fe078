"""Proof of authorship at registration: every text a work is indexed with is time-stamped by
the TSAs of settings (RFC 3161 over ``Work.sha256``), so that a holder can show that the
original existed at that time beside the capture of a copy. The action
``do_stamp_registration`` is the only writer of RegistrationProof; it runs in the worker
(task ``evidence.stamp_registration``, queued when a work's text is indexed) and again from the
capture sweeper while no TSA answers.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent, Work
from core.queueing import queue_after_commit
from crawler.evidence.models import RegistrationProof, TimestampStatus
from crawler.evidence.trust import stamp_digest

STAMP_TASK = "evidence.stamp_registration"  # crawler.evidence.tasks.stamp_registration


def work_indexed(sender, work_id: int, **kwargs) -> None:
    """Receiver of ``core.ingestion.work_indexed``: stamp the work's text."""
    queue_after_commit(STAMP_TASK, work_id)


def do_stamp_registration(work_id: int) -> RegistrationProof | None:
    """Time-stamp the current text of work ``work_id`` (its ``sha256``) unless a proof of it is
    already stamped. No TSA configured: status "none"; none answering: "pending" with the
    reason (the sweeper asks again). Audited (kind "evidence", the platform acting). Returns
    the RegistrationProof, or None for a work that is gone or has no text yet."""
    work = Work.objects.select_related("holder").filter(pk=work_id).first()
    if work is None or not work.sha256:
        return None
    proof, _ = RegistrationProof.objects.get_or_create(work=work, text_sha256=work.sha256)
    if proof.status == TimestampStatus.STAMPED:
        return proof
    got = stamp_digest(bytes.fromhex(work.sha256))  # outside the transaction: it may take seconds
    fields = {"status": got.status, "problem": got.problem}
    if got.status == TimestampStatus.STAMPED:
        fields.update(token=got.token, authority=got.authority, stamped_at=got.time)
    with transaction.atomic():
        locked = RegistrationProof.objects.select_for_update().get(pk=proof.pk)
        old = locked.status
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.save()
        if locked.status != old or locked.status == TimestampStatus.STAMPED:
            AuditEvent.record(kind=AuditEvent.Kind.EVIDENCE, user=None, holder=work.holder,
                              target=locked, subject=f"{work.reference} {work.title}"[:2000],
                              old_state=old, new_state=locked.status, reason=notes.coded(
                                  "registration_stamped", gettext_noop(
                                      "text SHA-256 %(sha256)s time-stamped by %(tsa)s"),
                                  sha256=work.sha256, tsa=locked.authority or "-"))
    return locked


def stamp_pending_registrations() -> list[int]:
    """Ask the TSAs again for every pending proof (the capture sweeper calls it); the ids of
    the works stamped now."""
    pending = RegistrationProof.objects.filter(status=TimestampStatus.PENDING)
    return [proof.work_id for proof in pending
            if (done := do_stamp_registration(proof.work_id)) is not None
            and done.status == TimestampStatus.STAMPED]
