"""A person's decisions on cases: confirm, dismiss, reopen; one at a time or in bulk.

Each ``do_<verb>_case`` is atomic, audited with the acting user (kind "case") and refuses a
move its case's state does not allow (``ActionError``, in the user's language). Confirming a
case also confirms its pages still under review (``crawler.review_actions.do_review_match``), so that
a takedown notice can cite them. ``do_bulk_case`` applies one verb to many cases, each on its
own, and says which it skipped and why instead of refusing the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import ActionError
from core.models import AuditEvent
from crawler import cases, review_actions
from crawler.models import Case, CaseState, ReviewStatus

#: verb -> (the states it may move a case from, the state it moves it to).
MOVES: dict[str, tuple[tuple[str, ...], str]] = {
    "confirm": ((CaseState.NEW, CaseState.REOPENED), CaseState.CONFIRMED),
    "dismiss": (cases.DISMISSABLE, CaseState.DISMISSED),
    "reopen": ((CaseState.DISMISSED, CaseState.REMOVED), CaseState.REOPENED),
}


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ActionError(_("Give a reason for the decision."))
    return reason


def _check_move(case: Case, sources: tuple[str, ...], target: str) -> None:
    if case.state not in sources:
        raise ActionError(_("A case that is “%(old)s” cannot become “%(new)s”.") % {
            "old": case.get_state_display(), "new": CaseState(target).label})


def _apply(verb: str, case: Case, acting_user, reason: str) -> AuditEvent:
    """Move ``case`` by ``verb`` (a MOVES key) with ``reason``; see the module's contract."""
    reason = _reason(reason)
    sources, target = MOVES[verb]
    with transaction.atomic():
        current = Case.objects.select_related("work__holder").get(pk=case.pk)
        _check_move(current, sources, target)
        if verb == "confirm":  # pages first, then the case: the lock order of takedown checks
            for page in current.pages.filter(review_status=ReviewStatus.NEW):
                review_actions.do_review_match(page, ReviewStatus.CONFIRMED, reason, acting_user)
        locked = Case.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=case.pk)
        _check_move(locked, sources, target)  # moved meanwhile: all of it is rolled back
        event = cases.move(locked, target, acting_user, reason)
    case.refresh_from_db()
    return event


def do_confirm_case(case: Case, acting_user, reason: str) -> AuditEvent:
    """Confirm ``case`` (new or reopened) as an infringement, and its pages still under review.

    Returns the AuditEvent. Raises ActionError: empty reason, or a state it cannot leave so."""
    return _apply("confirm", case, acting_user, reason)


def do_dismiss_case(case: Case, acting_user, reason: str) -> AuditEvent:
    """Dismiss ``case`` (not pursued: a false alarm, a licence...) with ``reason``.

    Returns the AuditEvent. Raises ActionError: empty reason, or already dismissed/removed."""
    return _apply("dismiss", case, acting_user, reason)


def do_reopen_case(case: Case, acting_user, reason: str) -> AuditEvent:
    """Reopen a dismissed or removed ``case`` with ``reason``.

    Returns the AuditEvent. Raises ActionError: empty reason, or the case is still open."""
    return _apply("reopen", case, acting_user, reason)


VERBS = {"confirm": do_confirm_case, "dismiss": do_dismiss_case, "reopen": do_reopen_case}


@dataclass
class BulkResult:
    """What a bulk action did: ``done`` (the cases moved) and ``skipped`` ([(case, why)],
    ``why`` in the active language)."""

    done: list = field(default_factory=list)
    skipped: list = field(default_factory=list)


def do_bulk_case(verb: str, cases_, acting_user, reason: str) -> BulkResult:
    """Apply ``verb`` ("confirm", "dismiss" or "reopen") to each of ``cases_`` (iterable of
    Case) in its own transaction; a case the verb cannot move is skipped with the reason.

    Raises:
        ActionError: empty reason or unknown verb (nothing is changed then).
    """
    _reason(reason)
    if verb not in VERBS:
        raise ActionError(_("Unknown action: %(verb)s") % {"verb": verb})
    result = BulkResult()
    for case in cases_:
        try:
            VERBS[verb](case, acting_user, reason)
            result.done.append(case)
        except ActionError as exc:
            result.skipped.append((case, str(exc)))
    return result
