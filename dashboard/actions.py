"""Review and takedown workflow: every change of state goes through here and into the audit trail.

Review: new -> confirmed infringement / false positive / licensed (which whitelists the page's
domain for the work's holder), always with a reason; a decision may be revised later, again
with a reason, and the trail keeps both. Takedown notice: drafted -> sent -> removed /
counter-notice, each move dated.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard import notices
from dashboard.models import (
    NOTICE_DATE_FIELDS,
    NOTICE_TRANSITIONS,
    NoticeLanguage,
    NoticeStatus,
    TakedownNotice,
)
from tracker.core.models import AuditEvent


class WorkflowError(ValueError):
    """A decision that is not allowed (no reason, unknown status, wrong state); the message is
    translated and meant for the user."""


def review_choices():
    """The decisions a reviewer can take: ``[(value, label)]`` of the crawler's review statuses."""
    from crawler.models import ReviewStatus

    return [(value, label) for value, label in ReviewStatus.choices]


def review(match, decision: str, reason: str, user) -> AuditEvent:
    """Set ``match``'s review status to ``decision`` and record who, when and why.

    Args:
        match: a core Match the user may see (the caller has checked the scope).
        decision: one of the ReviewStatus values.
        reason: why (required, stripped).
        user: the deciding user.

    Returns:
        The AuditEvent recorded.

    Raises:
        WorkflowError: empty reason, unknown decision, or the match already has that status.
    """
    from crawler.models import Match, ReviewStatus

    reason = (reason or "").strip()
    if not reason:
        raise WorkflowError(_("Give a reason for the decision."))
    if decision not in ReviewStatus.values:
        raise WorkflowError(_("Unknown review status: %(status)s") % {"status": decision})
    with transaction.atomic():
        locked = Match.objects.select_for_update().select_related("work").get(pk=match.pk)
        if locked.review_status == decision:
            raise WorkflowError(_("The match is already “%(status)s”.") % {
                "status": locked.get_review_status_display()})
        old = locked.review_status
        locked.review_status = decision
        locked.save(update_fields=["review_status"])
        if decision == ReviewStatus.LICENSED:
            whitelist(locked.work.holder, locked.domain, user, reason)
        event = AuditEvent.record(kind=AuditEvent.Kind.REVIEW, user=user,
                                  holder=locked.work.holder, target=locked, subject=locked.url,
                                  old_state=old, new_state=decision, reason=reason)
    match.review_status = decision
    return event


def whitelist(holder, domain: str, user, reason: str):
    """Whitelist ``domain`` for ``holder`` (idempotent): its pages never become matches again.

    Returns:
        The crawler's whitelist entry (created or existing).
    """
    from crawler.models import WhitelistedDomain

    entry, _created = WhitelistedDomain.objects.get_or_create(
        holder=holder, domain=domain.lower(), defaults={"note": reason[:500]})
    return entry


def review_many(matches, decision: str, reason: str, user) -> tuple[int, list[str]]:
    """Apply one decision to several matches.

    Returns:
        ``(number changed, [messages for the matches skipped and why])``.

    Raises:
        WorkflowError: empty reason or unknown decision (nothing is changed then).
    """
    if not (reason or "").strip():
        raise WorkflowError(_("Give a reason for the decision."))
    changed, skipped = 0, []
    for match in matches:
        try:
            review(match, decision, reason, user)
            changed += 1
        except WorkflowError as exc:
            skipped.append(f"#{match.pk}: {exc}")
    return changed, skipped


def draft_notices(matches, user, language: str = NoticeLanguage.ZH_HANS,
                  recipient: str = "") -> list[TakedownNotice]:
    """Draft one takedown notice per (rights holder, infringing domain) of confirmed matches.

    Args:
        matches: core Match objects, all confirmed infringements.
        user: the drafting user.
        language: "zh-hans" or "en".
        recipient: who the notices go to (optional).

    Returns:
        The new notices (status drafted), each with its frozen content.

    Raises:
        WorkflowError: no match given, a match not confirmed, or an unknown language.
    """
    from crawler.models import ReviewStatus

    matches = list(matches)
    if not matches:
        raise WorkflowError(_("Select at least one confirmed match."))
    if language not in NoticeLanguage.values:
        raise WorkflowError(_("Unknown language: %(language)s") % {"language": language})
    unconfirmed = [m.pk for m in matches if m.review_status != ReviewStatus.CONFIRMED]
    if unconfirmed:
        raise WorkflowError(_("Only confirmed infringements can go into a takedown notice; "
                              "not confirmed: %(ids)s") % {
            "ids": ", ".join(f"#{pk}" for pk in unconfirmed)})
    groups = defaultdict(list)
    for match in matches:
        groups[(match.work.holder, match.domain)].append(match)
    drafted = []
    for (holder, domain), group in groups.items():
        with transaction.atomic():
            notice = TakedownNotice.objects.create(
                holder=holder, domain=domain, language=language, recipient=recipient,
                created_by=user, content=notices.snapshot(holder, domain, group))
            notice.matches.set(group)
            AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=user, holder=holder,
                              target=notice, subject=str(notice), old_state="",
                              new_state=NoticeStatus.DRAFTED,
                              reason=", ".join(m.url for m in group))
        drafted.append(notice)
    return drafted


def advance_notice(notice: TakedownNotice, status: str, user, note: str = "") -> AuditEvent:
    """Move ``notice`` to ``status`` (drafted -> sent -> removed / counter-notice), date it and
    record the move.

    Returns:
        The AuditEvent recorded.

    Raises:
        WorkflowError: the move is not allowed from the notice's current status.
    """
    with transaction.atomic():
        locked = TakedownNotice.objects.select_for_update().get(pk=notice.pk)
        if status not in NOTICE_TRANSITIONS.get(locked.status, ()):
            raise WorkflowError(_("A notice that is “%(old)s” cannot become “%(new)s”.") % {
                "old": locked.get_status_display(),
                "new": dict(NoticeStatus.choices).get(status, status)})
        old = locked.status
        locked.status = status
        setattr(locked, NOTICE_DATE_FIELDS[status], timezone.now())
        locked.save(update_fields=["status", NOTICE_DATE_FIELDS[status]])
        event = AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=user, holder=locked.holder,
                                  target=locked, subject=str(locked), old_state=old,
                                  new_state=status, reason=note.strip())
    notice.refresh_from_db()
    return event
