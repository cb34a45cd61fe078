"""The figures of the takedown summary of one rights holder over one period [start, end):
cases found (opened), confirmed, notice sent, escalated and removed in the period, the median
time from notice to removal of the cases removed in it, and the sites that ignore notices (a
case noticed settings.SUMMARY_IGNORED_AFTER_DAYS days or more before the period's end whose
copies are still up). Counts are of events in the period, not of a cohort of cases (the
overview's funnel, ``dashboard.case_figures``, follows the cases opened in a period)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Min, Q

from core.models import AuditEvent
from core.models.audit import CASE_ESCALATED
from crawler.models import Case, CaseState
from dashboard.case_figures import STILL_UP

#: The audit events that count as one escalation of a case: the case's, with the state
#: ``dashboard.notice_actions.do_escalate_notice`` records.
ESCALATION_KINDS = (AuditEvent.Kind.CASE,)
ESCALATION_STATES = (CASE_ESCALATED,)

#: The figures, in the order the summary shows them (keys of ``HolderSummary.counts``).
COUNTS = ("found", "confirmed", "sent", "escalated", "removed")


@dataclass
class IgnoringSite:
    """A site that ignores notices: its domain, its cases still up after their notice, and
    the oldest of those notices (aware datetime)."""

    domain: str
    cases: int
    oldest_notice: datetime


@dataclass
class HolderSummary:
    """One holder's figures: ``counts`` by ``COUNTS`` key (ints), ``median_removal`` (a
    timedelta, or None without a removal after a notice) and ``ignoring`` (IgnoringSites, most
    cases first)."""

    holder: object
    counts: dict[str, int]
    median_removal: timedelta | None
    ignoring: list[IgnoringSite] = field(default_factory=list)


def escalations(holder, start: datetime, end: datetime) -> int:
    """How many escalations of ``holder``'s cases were recorded in [start, end)
    (``ESCALATION_KINDS`` / ``ESCALATION_STATES`` events of the audit trail)."""
    return AuditEvent.objects.filter(holder=holder, kind__in=ESCALATION_KINDS,
                                     new_state__in=ESCALATION_STATES, at__gte=start,
                                     at__lt=end).count()


def holder_summary(holder, start: datetime, end: datetime) -> HolderSummary:
    """The figures of ``holder`` (a RightsHolder) for [start, end) (aware datetimes).

    Returns:
        A HolderSummary: found (cases opened), confirmed (cases moved to "confirmed", each
        once), sent (cases whose first notice was sent), escalated (``escalations``), removed
        (cases closed as removed) in the period; median time from notice to removal of the
        cases removed in it; the sites ignoring notices as of ``end``.
    """
    cases = Case.objects.filter(work__holder=holder)
    within = {"__gte": start, "__lt": end}

    def counted(name: str) -> int:
        return cases.filter(**{name + k: v for k, v in within.items()}).count()

    confirmed = (AuditEvent.objects.filter(
        target_type=ContentType.objects.get_for_model(Case), holder=holder,
        new_state=CaseState.CONFIRMED, at__gte=start, at__lt=end)
        .values("target_id").distinct().count())
    spans = [removed - sent for sent, removed in cases.filter(
        removed_at__gte=start, removed_at__lt=end, notice_sent_at__isnull=False)
        .values_list("notice_sent_at", "removed_at") if removed >= sent]
    late = end - timedelta(days=settings.SUMMARY_IGNORED_AFTER_DAYS)
    ignoring = (cases.filter(Q(state__in=STILL_UP), notice_sent_at__lte=late)
                .values("domain").annotate(n=Count("pk"), oldest=Min("notice_sent_at"))
                .order_by("-n", "oldest", "domain")[:settings.SUMMARY_IGNORING_SITES_LISTED])
    return HolderSummary(
        holder=holder,
        counts={"found": counted("opened_at"), "confirmed": confirmed,
                "sent": counted("notice_sent_at"),
                "escalated": escalations(holder, start, end), "removed": counted("removed_at")},
        median_removal=statistics.median(spans) if spans else None,
        ignoring=[IgnoringSite(row["domain"], row["n"], row["oldest"]) for row in ignoring])
