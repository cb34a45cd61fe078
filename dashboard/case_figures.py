"""The case funnel of the overview: of the cases opened in a period, how many were confirmed,
had a notice sent, were escalated and were removed; the removal rate (removed / notice sent) and the median
time from notice to removal; the same for the period before, beside it; and the cases whose
copies are still up after their notice, oldest notice first. Scoped per user
(``core.scoping``); each figure carries the link to the case list it counts."""

from __future__ import annotations

import statistics
from datetime import timedelta

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from core.models import AuditEvent
from core.models.audit import CASE_ESCALATED
from core.scoping import scope
from crawler.models import Case, CaseState

#: (key, the cases that reached the step); the case list filters on it (``?reached=<key>``,
#: ``dashboard.case_admin.ReachedFilter``), so each step lists the cases it counts.
STEPS = [
    ("new", Q()),
    ("confirmed", Q(was_confirmed=True) | Q(notice_sent_at__isnull=False)),
    ("notice_sent", Q(notice_sent_at__isnull=False)),
    ("escalated", Q(was_escalated=True)),
    ("removed", Q(removed_at__isnull=False)),
]

#: The cases noticed and not yet removed (listed oldest notice first).
STILL_UP = [CaseState.NOTICE_SENT, CaseState.STILL_UP]


def with_steps(cases):
    """``cases`` (a Case queryset) annotated ``was_confirmed`` (bool: a person or the platform
    ever moved it to "confirmed") and ``was_escalated`` (a notice citing it was escalated),
    from the audit trail, which the steps' filters read."""
    events = AuditEvent.objects.filter(target_type=ContentType.objects.get_for_model(Case),
                                       target_id=OuterRef("pk"))
    return cases.annotate(was_confirmed=Exists(events.filter(new_state=CaseState.CONFIRMED)),
                          was_escalated=Exists(events.filter(new_state=CASE_ESCALATED)))


def reached(cases, key: str):
    """The ``cases`` (a Case queryset) that reached funnel step ``key`` (a key of STEPS).
    Raises KeyError for another key."""
    return with_steps(cases).filter(dict(STEPS)[key])


def _period(cases, start, end) -> dict:
    """The funnel of the ``cases`` opened in [start, end): counts per step, removal rate
    (0..1, or None without a sent notice) and median time from notice to removal (a timedelta,
    or None)."""
    opened = cases.filter(opened_at__gte=start, opened_at__lt=end)
    counts = {key: opened.filter(step).count() for key, step in STEPS}
    spans = [removed - sent for sent, removed in opened.filter(
        notice_sent_at__isnull=False, removed_at__isnull=False).values_list(
        "notice_sent_at", "removed_at") if removed >= sent]
    return {"counts": counts,
            "rate": counts["removed"] / counts["notice_sent"] if counts["notice_sent"] else None,
            "median": statistics.median(spans) if spans else None}


def funnel(user, days: int, now=None) -> dict:
    """The funnel of ``user``'s cases opened in the last ``days`` days and in the ``days``
    before. Returns ``{"days", "steps": [{"key", "count", "previous", "url"}], "rate",
    "previous_rate", "median", "previous_median" (timedeltas or None), "removed_url",
    "still_up" (Cases noticed and not removed, oldest notice first, any age), "still_up_url"}``."""
    now = now or timezone.now()
    cases = with_steps(scope(Case.objects.all(), user, "work__holder"))
    start = now - timedelta(days=days)
    current, previous = _period(cases, start, now), _period(cases, start - timedelta(days=days),
                                                            start)
    base = reverse("admin:crawler_case_changelist")
    since = {"opened_at__gte": timezone.localtime(start).isoformat(timespec="seconds")}
    steps = [{"key": key, "count": current["counts"][key], "previous": previous["counts"][key],
              "url": f"{base}?{urlencode({**since, 'reached': key})}"} for key, _step in STEPS]
    waiting = (cases.filter(state__in=STILL_UP).select_related("work")
               .order_by("notice_sent_at", "opened_at")[:settings.CASES_STILL_UP_LISTED])
    return {"days": days, "steps": steps, "rate": current["rate"],
            "still_up": list(waiting),
            "still_up_url": f"{base}?{urlencode({'state__in': ','.join(STILL_UP)})}",
            "previous_rate": previous["rate"], "median": current["median"],
            "previous_median": previous["median"],
            "removed_url": steps[-1]["url"]}
