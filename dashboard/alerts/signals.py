"""The hooks from the crawler to the alerts: a closed scan (``crawler.scans.scan_closed``) queues
``alerts.send_scan_case_alerts`` (its new and grown cases, one mail per recipient); a new Match
row found outside a scan (a stored-page search) queues ``alerts.send_match_alerts`` when its
transaction commits (Django's post_save signal); and a takedown check that found a
copy removed or back (``crawler.takedown.takedown_changed``, sent after commit) queues
``alerts.send_takedown_alerts``; the crawler imports nothing of the alerts."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save

MATCH_SAVED = "alerts.match_saved"  # dispatch_uid of the Match post_save receiver


def _on_match_saved(sender, instance, created=False, raw=False, **kwargs):
    if created and not raw and instance.first_scan_id is None:  # a scan's: by case, at its end
        from dashboard.alerts import tasks

        transaction.on_commit(lambda: tasks.send_match_alerts.delay(instance.pk))


def _on_takedown_changed(sender, match, check, change, **kwargs):
    from dashboard.alerts import tasks

    tasks.send_takedown_alerts.delay(match.pk, check.pk, change)


def _on_scan_closed(sender, scan_id, **kwargs):
    from dashboard.alerts import tasks

    tasks.send_scan_case_alerts.delay(scan_id)


def connect() -> None:
    """Connect the receivers (called once from AlertsConfig.ready)."""
    from crawler.models import Match
    from crawler.scans import scan_closed
    from crawler.takedown import takedown_changed

    post_save.connect(_on_match_saved, sender=Match, dispatch_uid=MATCH_SAVED)
    takedown_changed.connect(_on_takedown_changed, dispatch_uid="alerts.takedown_changed")
    scan_closed.connect(_on_scan_closed, dispatch_uid="alerts.scan_closed")
