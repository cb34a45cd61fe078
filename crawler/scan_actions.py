"""Scans: started (by a person, the schedule or a command) and cancelled. Atomic, audited,
the crawl queued on commit."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent
from crawler import scans
from crawler.models import (
    ScanRun,
    ScanStatus,
    TargetSite,
)
from crawler.tasks import launch


def do_start_scan(site: TargetSite, *, acting_user=None, trigger: str = "command",
                  max_pages: int | None = None) -> ScanRun:
    """Start a scan of ``site`` and send its start URLs to the workers
    (``crawler.tasks.launch``) once the ScanRun row is committed; a person's start is recorded
    in the audit trail in the same transaction.

    Args:
        site: the TargetSite.
        acting_user: the user who asked for it, or None (schedule, command, demo).
        trigger: 'schedule', 'command', 'admin' or 'demo'.
        max_pages: this run's page limit instead of the site's.

    Returns:
        The ScanRun: 'running', 'skipped' (another scan of the site runs) or 'finished' at once
        (no crawlable start URL).

    Raises:
        ValueError: max_pages < 1.
    """
    with transaction.atomic():
        scan = launch(site, max_pages=max_pages, trigger=trigger)
        if acting_user is not None:
            AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None,
                              target=scan, subject=f"{site} #{scan.pk}", old_state="",
                              new_state=scan.status, reason=scan.note)
    return scan


def do_cancel_scan(scan: ScanRun, acting_user) -> bool:
    """Cancel a running scan: it is closed as 'cancelled' at once and its queued URLs are
    dropped without fetching (``crawler.scans.cancel``). Recorded with the acting user.

    Returns:
        True when the scan was running (and is now being cancelled), False otherwise.
    """
    if scan.status != ScanStatus.RUNNING:
        return False
    note = notes.coded("scan_cancelled", gettext_noop("cancelled by %(user)s"),
                       user=str(acting_user))
    with transaction.atomic():
        if not scans.cancel(scan, note=note):
            return False
        AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None, target=scan,
                          subject=f"{scan.site} #{scan.pk}", old_state=ScanStatus.RUNNING,
                          new_state=ScanStatus.CANCELLED, reason=note)
    return True
