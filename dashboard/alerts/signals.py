"""The hooks from the crawler to the alerts: a closed scan (``crawler.scans.scan_closed``) queues
``alerts.send_scan_case_alerts`` and a closed stored-page search
(``crawler.rematch.search_closed``) ``alerts.send_search_case_alerts`` (the new and grown
cases, one mail per recipient, one webhook event per case); a takedown check that found a copy
removed or back (``crawler.takedown.takedown_changed``, sent after commit) queues
``alerts.send_takedown_alerts``; the crawler imports nothing of the alerts."""

from __future__ import annotations

from crawler.rematch import search_closed
from crawler.scans import scan_closed
from crawler.takedown import takedown_changed
from dashboard.alerts import tasks


def _on_takedown_changed(sender, match, check, change, **kwargs):
    tasks.send_takedown_alerts.delay(match.pk, check.pk, change)


def _on_scan_closed(sender, scan_id, **kwargs):
    tasks.send_scan_case_alerts.delay(scan_id)


def _on_search_closed(sender, job_id, **kwargs):
    tasks.send_search_case_alerts.delay(job_id)


def connect() -> None:
    """Connect the receivers (called once from AlertsConfig.ready)."""
    takedown_changed.connect(_on_takedown_changed, dispatch_uid="alerts.takedown_changed")
    scan_closed.connect(_on_scan_closed, dispatch_uid="alerts.scan_closed")
    search_closed.connect(_on_search_closed, dispatch_uid="alerts.search_closed")
