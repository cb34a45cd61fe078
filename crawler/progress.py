"""Live progress of scan runs: what the scan run page and the overview show, and the JSON view
their script (dashboard/static/dashboard/progress.js) polls while a scan runs.

A running scan's counters live in Redis (its frontier) until it finishes; they are read from
there (``crawler.scans.live_figures``), a closed scan's from its ScanRun row. Every signed-in
user of the dashboard sees every scan's progress (target sites are the platform's, as on the
overview); a rights holder's users see only the matches of their own works and no errors.
"""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from core.connections import storage_errors
from core.scoping import scope, sees_all
from crawler import labels, scans
from crawler.models import Match, ScanRun, ScanStatus


def matches_url(scan_id: int) -> str:
    """URL of the match list filtered to scan ``scan_id`` (dashboard.filters.ScanFilter)."""
    return f"{reverse('admin:crawler_match_changelist')}?scan={scan_id}"


def listed_matches(scan_id: int, user) -> int:
    """The rows the match list shows ``user`` at ``matches_url(scan_id)``: the matches of scan
    ``scan_id`` (``crawler.scans.scan_matches``) among those ``user`` may see, the parts of one
    chapter counted once as the list shows them (``MatchQuerySet.chapter_heads``). Counted from
    the stored rows each time: a later scan that sees a match again takes it over."""
    visible = scope(Match.objects.all(), user, "work__holder")
    return scans.scan_matches(visible, scan_id).chapter_heads().count()


def scan_label(run: ScanRun) -> str:
    """A scan run in words of the active language, without its status (which changes while a
    page shows it): "demo, scan #12 of 2026-11-25 03:00" (local time)."""
    return _("%(site)s, scan #%(id)d of %(started)s") % {
        "site": run.site, "id": run.pk,
        "started": timezone.localtime(run.started_at).strftime("%Y-%m-%d %H:%M")}


def duration_words(seconds: float) -> str:
    """A duration in words of the active language: "45 s", "3 min 5 s", "2 h 4 min"."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return _("%(h)d h %(m)d min") % {"h": hours, "m": minutes}
    if minutes:
        return _("%(m)d min %(s)d s") % {"m": minutes, "s": secs}
    return _("%(s)d s") % {"s": secs}


def progress(run: ScanRun, user) -> dict:
    """What ``user`` may see of scan ``run``'s progress, JSON-ready.

    Args:
        run: the ScanRun (its row as last read).
        user: the request's user (staff see everything; a holder's users their own matches).

    Returns:
        dict: ``id``, ``status`` (ScanStatus value), ``status_label`` (in words), ``running``
        (bool), ``started`` and ``finished`` (local time "YYYY-MM-DD HH:MM:SS" or ""),
        ``elapsed_seconds`` (int) and ``elapsed`` (in words), ``urls_seen``,
        ``pages_fetched``, ``pages_new``, ``pages_changed``, ``pages_unchanged``,
        ``pages_feeds`` (feeds and sitemaps: the four add up to ``pages_fetched``), ``matches``
        (int, the rows listed at ``matches_url``: ``listed_matches``) and ``matches_new`` (int,
        of those the ones first recorded by the scan; None for a holder's users), ``matches_url``, ``errors`` (int total) and
        ``errors_by_kind`` ([[kind, count]]) and ``errors_in_words`` (str, crawler.labels),
        robots.txt refusals apart in ``robots_in_words`` (str), all four None for a holder's
        users, and ``note``.

    Raises:
        redis.RedisError: Redis does not answer (a running scan's figures live there).
    """
    running = run.status == ScanStatus.RUNNING
    fields = scans.live_figures(run.pk) if running else {
        name: getattr(run, name) for name in (
            "urls_seen", "pages_fetched", "pages_new", "pages_changed", "pages_unchanged",
            "matches_found", "matches_new", "errors")}
    end = run.finished_at or timezone.now()
    elapsed = (end - run.started_at).total_seconds()
    staff = sees_all(user)
    matches, matches_new = listed_matches(run.pk, user), None
    if staff:
        matches_new = scope(Match.objects.all(), user, "work__holder").filter(
            first_scan_id=run.pk).chapter_heads().count()
    errors, robots = labels.split_errors(fields["errors"])
    read = sum(fields[name] or 0 for name in ("pages_new", "pages_changed", "pages_unchanged"))
    return {
        "id": run.pk, "status": run.status, "status_label": str(run.get_status_display()),
        "running": running, "started": _local(run.started_at),
        "finished": _local(run.finished_at), "elapsed_seconds": int(elapsed),
        "elapsed": duration_words(elapsed),
        **{name: fields[name] for name in ("urls_seen", "pages_fetched", "pages_new",
                                            "pages_changed", "pages_unchanged")},
        "matches": matches, "matches_new": matches_new, "matches_url": matches_url(run.pk),
        "errors": sum(errors.values()) if staff else None,
        "errors_by_kind": sorted(errors.items()) if staff else None,
        "errors_in_words": labels.errors_in_words(errors) if staff else None,
        "robots_in_words": labels.robots_in_words(robots) if staff else None,
        "pages_feeds": max((fields["pages_fetched"] or 0) - read, 0),
        "note": run.note_words,
    }


def _local(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def poll_settings() -> dict:
    """The polling rhythm for the page's script: ``{"poll_ms", "poll_max_ms"}`` (milliseconds)
    from settings.SCAN_PROGRESS_POLL_SECONDS and SCAN_PROGRESS_POLL_MAX_SECONDS."""
    return {"poll_ms": settings.SCAN_PROGRESS_POLL_SECONDS * 1000,
            "poll_max_ms": settings.SCAN_PROGRESS_POLL_MAX_SECONDS * 1000}


@require_GET
def progress_view(request) -> JsonResponse:
    """``GET ?id=N&id=M``: ``{"scans": [progress(...) for each known id]}``.

    Served inside the admin (``admin_view``: signed-in dashboard users only). Ids that name no
    scan are left out. Answers 400 ``{"error": message}`` for an id that is not a number or
    more than settings.SCAN_PROGRESS_MAX_SCANS ids, 503 when Redis does not answer.
    """
    raw = request.GET.getlist("id")
    if len(raw) > settings.SCAN_PROGRESS_MAX_SCANS:
        return JsonResponse({"error": _("Ask for at most %(n)d scans at once.") % {
            "n": settings.SCAN_PROGRESS_MAX_SCANS}}, status=400)
    try:
        ids = [int(value) for value in raw]
    except ValueError:
        return JsonResponse({"error": _("A scan id is a number.")}, status=400)
    try:
        scans = [progress(run, request.user)
                 for run in ScanRun.objects.filter(pk__in=ids).order_by("-started_at", "-id")]
    except storage_errors():
        return JsonResponse({"error": _("Progress is unavailable: Redis does not answer.")},
                            status=503)
    return JsonResponse({"scans": scans})
