"""Figures of the overview page, for one user's scope (staff: everything; a holder: its own).

Days are calendar days in settings.TIME_ZONE (Asia/Shanghai by default).
"""

from __future__ import annotations

from datetime import date, timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext as _

from core.connections import storage_errors
from core.scoping import sees_all
from crawler.models import ReviewStatus, ScanRun
from crawler.progress import poll_settings, progress
from dashboard.access import matches_for, notices_for

OPEN_NOTICES = ["drafted", "sent"]  # the notices still being worked


def per_day(matches, days: int, today: date | None = None) -> tuple[list[date], list[int]]:
    """Count matches by the local date they were first seen.

    Args:
        matches: a Match queryset (already scoped).
        days: how many days, ending with ``today``, inclusive.
        today: the last day (default: today in settings.TIME_ZONE).

    Returns:
        ``(days list, counts list)``, both of length ``days``, oldest first, zeros filled in.
    """
    today = today or timezone.localdate()
    first = today - timedelta(days=days - 1)
    zone = timezone.get_current_timezone()
    rows = (matches.annotate(day=TruncDate("first_seen", tzinfo=zone))
            .filter(day__gte=first, day__lte=today)
            .values("day").annotate(n=Count("pk")).order_by())
    counts = {row["day"]: row["n"] for row in rows}
    dates = [first + timedelta(days=i) for i in range(days)]
    return dates, [counts.get(day, 0) for day in dates]


def top_domains(matches, limit: int) -> list[dict]:
    """``[{"domain": str, "n": matches, "confirmed": confirmed matches}]``, most matches first;
    matches counted as the match list shows them (the parts of a chapter once)."""
    return list(matches.chapter_heads().values("domain")
                .annotate(n=Count("pk"),
                          confirmed=Count("pk", filter=_status(ReviewStatus.CONFIRMED)))
                .order_by("-n", "domain")[:limit])


def top_works(matches, limit: int) -> list[dict]:
    """``[{"work": id, "work__title": str, "work__reference": str, "n": matches,
    "domains": distinct domains}]``, most matches first; matches counted as the match list
    shows them (the parts of a chapter once)."""
    return list(matches.chapter_heads().values("work", "work__title", "work__reference")
                .annotate(n=Count("pk"), domains=Count("domain", distinct=True))
                .order_by("-n", "work__title")[:limit])


def _status(value):
    return Q(review_status=value)


def recent_scans(user, days: int, limit: int) -> list:
    """Scan runs started in the last ``days`` days, newest first (ScanRun objects).

    Target sites are the platform's, not a holder's, so every user sees the runs; each run gets
    ``progress``: what ``user`` may see of its figures (``crawler.progress.progress``: for a
    holder's users only the matches of their own works, no errors), live from Redis while it
    runs, or None when Redis does not answer (the page's script tries again).
    """
    since = timezone.now() - timedelta(days=days)
    scans = list(ScanRun.objects.select_related("site").filter(started_at__gte=since)
                 .order_by("-started_at")[:limit])
    for scan in scans:
        try:
            scan.progress = progress(scan, user)
        except storage_errors():
            scan.progress = None
    return scans


def build(user) -> dict:
    """Everything the overview shows for ``user``.

    Every count shown next to a link counts the rows that link lists: matches as the match list
    groups them (``MatchQuerySet.chapter_heads``), notices by the statuses it filters on.

    Returns:
        dict with ``per_day`` ({last_30: matches of the last 30 days}), ``chart_per_day`` (of the
        last ``chart_days`` days),
        ``chart_domains``, ``chart_works`` ({labels, values, label} for Chart.js), ``awaiting`` (count of
        new matches), ``latest`` (the OVERVIEW_LATEST_ROWS newest unreviewed Match), ``totals`` ({"new", "confirmed": matches of
        that review status, "open_notices": notices drafted or sent}), ``open_notices_query`` (the notice list's
        query string of those),
        ``domains`` and ``works`` (see top_domains / top_works), ``scans`` (ScanRun list, of the last ``scan_days`` days),
        ``progress_poll`` (crawler.progress.poll_settings), ``show_errors`` (bool: staff only).
    """
    matches = matches_for(user)
    dates, values = per_day(matches, settings.OVERVIEW_DAYS)
    new = matches.filter(review_status=ReviewStatus.NEW)
    counts = {status: matches.filter(review_status=status).chapter_heads().count()
              for status in (ReviewStatus.NEW, ReviewStatus.CONFIRMED)}  # the ones shown
    counts["open_notices"] = notices_for(user).filter(status__in=OPEN_NOTICES).count()
    rows = settings.OVERVIEW_TOP_ROWS
    domains, works = top_domains(matches, rows), top_works(matches, rows)
    label = _("matches")
    return {
        "per_day": {"last_30": sum(values[-30:])},
        "awaiting": counts[ReviewStatus.NEW],
        "open_notices_query": "status__in=" + ",".join(OPEN_NOTICES),
        "latest": list(new.order_by("-first_seen")[:settings.OVERVIEW_LATEST_ROWS]),
        "totals": counts,
        "domains": domains,
        "works": works,
        "chart_per_day": {"labels": [d.strftime("%m-%d") for d in dates], "values": values,
                          "label": label},
        "chart_domains": {"labels": [d["domain"] for d in domains],
                          "values": [d["n"] for d in domains], "label": label},
        "chart_works": {"labels": [w["work__title"] for w in works],
                        "values": [w["n"] for w in works], "label": label},
        "chart_days": settings.OVERVIEW_DAYS,
        "scans": recent_scans(user, settings.OVERVIEW_SCAN_DAYS, settings.SCAN_PROGRESS_MAX_SCANS),
        "scan_days": settings.OVERVIEW_SCAN_DAYS,
        "progress_poll": poll_settings(),
        "show_errors": sees_all(user),
    }
