"""Celery tasks of the dashboard: takedown verification (``verify_takedowns``, queue "crawl",
run by beat every settings.TAKEDOWN_CHECK_INTERVAL_SECONDS; ``check_notice``, one notice's
check asked for now)."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from celery.utils.log import get_task_logger
from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from crawler import takedown
from crawler.models import CheckOutcome
from dashboard.actions import do_advance_notice
from dashboard.models import NoticeStatus, TakedownNotice
from tracker.core import notes

log = get_task_logger(__name__)


@shared_task(name="dashboard.verify_takedowns")
def verify_takedowns() -> dict:
    """Check every match cited by a sent notice, or by a notice removed within
    settings.TAKEDOWN_WATCH_DAYS days (``check_notices``).

    Returns:
        {"checked": matches checked, "notices_removed": [notice ids moved to removed]}.
    """
    since = timezone.now() - timedelta(days=settings.TAKEDOWN_WATCH_DAYS)
    result = check_notices(TakedownNotice.objects.filter(
        Q(status=NoticeStatus.SENT) | Q(status=NoticeStatus.REMOVED, removed_at__gte=since)))
    log.info("takedown checks: %(checked)d matches, notices removed: %(notices_removed)s", result)
    return result


@shared_task(name="dashboard.check_notice")
def check_notice(notice_id: int) -> dict:
    """The takedown check of one notice asked for now (``dashboard.actions.do_check_notice``):
    ``check_notices`` of that notice. Returns what ``verify_takedowns`` returns."""
    return check_notices(TakedownNotice.objects.filter(pk=notice_id))


def check_notices(notices) -> dict:
    """Check each match cited by ``notices`` (a TakedownNotice queryset) once with
    ``crawler.takedown.verify_match``; a sent notice whose matches are all removed moves to
    "removed" through ``do_advance_notice``, the checks cited in its audit reason.

    Returns:
        {"checked": matches checked, "notices_removed": [notice ids moved to removed]}.
    """
    from tracker.core.engine import get_engine

    engine, checks, moved = get_engine(), {}, []
    for notice in notices.prefetch_related("matches__work", "matches__site"):
        for match in notice.matches.all():
            if match.pk not in checks:
                checks[match.pk] = takedown.verify_match(match, engine)
        if notice.status != NoticeStatus.SENT:
            continue
        cited = [checks[m.pk] for m in notice.matches.all()]
        if cited and all(c.outcome == CheckOutcome.REMOVED for c in cited):
            evidence = [notes.coded("verified_check", gettext_noop(
                "%(url)s: %(note)s (check #%(check)s, %(time)s)"), url=c.match.url,
                note=c.note, check=c.pk, time=notes.moment(c.checked_at)) for c in cited]
            do_advance_notice(notice, NoticeStatus.REMOVED, None, note=notes.coded(
                "verified_removed", gettext_noop("verified removed: %(evidence)s"),
                evidence=evidence))
            moved.append(notice.pk)
    return {"checked": len(checks), "notices_removed": moved}
