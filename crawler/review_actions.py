"""Reviewing matches: new -> confirmed infringement / false positive / licensed (which
whitelists the page's domain for the work's holder), always with a reason; a decision may be
revised later, again with a reason, and the trail keeps both. Whitelisting a domain dismisses
its open cases (``crawler.cases.do_dismiss_whitelisted_cases``).

Each action is atomic, records the acting person in the audit trail
(``core.models.AuditEvent``) and queues its follow-ups only once its transaction
commits; the admin, tasks, commands and the dashboard call these, never the models' writers.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import ActionError
from core.models import AuditEvent
from crawler import cases
from crawler.models import (
    Match,
    ReviewStatus,
    WhitelistedDomain,
)


def review_choices() -> list[tuple[str, str]]:
    """The decisions a reviewer can take: ``[(value, label)]`` of ReviewStatus."""
    return [(value, label) for value, label in ReviewStatus.choices]


def do_review_match(match: Match, decision: str, reason: str, acting_user) -> AuditEvent:
    """Set ``match``'s review status to ``decision`` and record who, when and why.

    Args:
        match: a Match the user may see (the caller has checked the scope).
        decision: one of the ReviewStatus values; "licensed" also whitelists the page's domain
            for the work's holder (``do_whitelist_domain``).
        reason: why (required, stripped).
        acting_user: the deciding user.

    Returns:
        The AuditEvent recorded (kind "review").

    Raises:
        ActionError: empty reason, unknown decision, or the match already has that status.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ActionError(_("Give a reason for the decision."))
    if decision not in ReviewStatus.values:
        raise ActionError(_("Unknown review status: %(status)s") % {"status": decision})
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=match.pk)
        if locked.review_status == decision:
            raise ActionError(_("The match is already “%(status)s”.") % {
                "status": locked.get_review_status_display()})
        old = locked.review_status
        locked.review_status = decision
        locked.save(update_fields=["review_status"])
        if decision == ReviewStatus.LICENSED:
            do_whitelist_domain(locked.work.holder, locked.domain, acting_user, reason)
        event = AuditEvent.record(kind=AuditEvent.Kind.REVIEW, user=acting_user,
                                  holder=locked.work.holder, target=locked, subject=locked.url,
                                  old_state=old, new_state=decision, reason=reason)
    match.review_status = decision
    return event


def do_review_matches(matches, decision: str, reason: str, acting_user) -> tuple[int, list[str]]:
    """Apply one decision to several matches, each in its own transaction
    (``do_review_match``).

    Returns:
        ``(number changed, [messages for the matches skipped and why])``.

    Raises:
        ActionError: empty reason or unknown decision (nothing is changed then).
    """
    if not (reason or "").strip():
        raise ActionError(_("Give a reason for the decision."))
    if decision not in ReviewStatus.values:
        raise ActionError(_("Unknown review status: %(status)s") % {"status": decision})
    changed, skipped = 0, []
    for match in matches:
        try:
            do_review_match(match, decision, reason, acting_user)
            changed += 1
        except ActionError as exc:
            skipped.append(f"#{match.pk}: {exc}")
    return changed, skipped


def do_whitelist_domain(holder, domain: str, acting_user, reason: str = "") -> WhitelistedDomain:
    """Whitelist ``domain`` for ``holder`` (idempotent): its pages never become matches of the
    holder's works again, and its open cases are dismissed with that reason
    (``crawler.cases.do_dismiss_whitelisted_cases``). A new entry is recorded in the audit
    trail with the acting user.

    Args:
        holder: the RightsHolder.
        domain: a host name (lower-cased, stripped of dots at either end when saved).
        acting_user: the user who decided, or None.
        reason: the note kept with the entry (first 500 characters) and in the trail.

    Returns:
        The whitelist entry (created or existing).
    """
    with transaction.atomic():
        entry, created = WhitelistedDomain.objects.get_or_create(
            holder=holder, domain=domain.strip().strip(".").lower(),
            defaults={"note": reason[:500]})
        if created:
            AuditEvent.record(kind=AuditEvent.Kind.WHITELIST, user=acting_user, holder=holder,
                              target=entry, subject=entry.domain, old_state="",
                              new_state="whitelisted", reason=reason)
            cases.do_dismiss_whitelisted_cases(entry, acting_user)
    return entry
