"""The hook from the crawler to the alerts: a new Match row queues ``alerts.send_match_alerts``
when its transaction commits (Django's post_save signal, so the crawler imports nothing of
the alerts)."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save


def _on_match_saved(sender, instance, created=False, raw=False, **kwargs):
    if created and not raw:
        from alerts import tasks

        transaction.on_commit(lambda: tasks.send_match_alerts.delay(instance.pk))


def connect() -> None:
    """Connect the receiver to crawler.models.Match (called once from AlertsConfig.ready)."""
    from crawler.models import Match

    post_save.connect(_on_match_saved, sender=Match, dispatch_uid="alerts.match_saved")
