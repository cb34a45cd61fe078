"""Rights conflicts: flagged when two holders register overlapping texts, resolved by staff
with a note.

Atomic and audited, follow-ups queued on commit (docs/architecture.md).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .conflicts import other_holders_overlaps
from .errors import ActionError
from .models import (
    AuditEvent,
    ConflictStatus,
    RightsConflict,
    Work,
)


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
