"""Steps of ``manage.py demo`` (settings.DEMO_STEPS) for the alerts: the demo rights holder's
user gets alerts on before the demo scan, and after it the alert mail of the scan's new cases
(one per recipient) is awaited and its folder named (``make run`` writes mails to files)."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import get_user_model

from core.demo import HOLDER_USER
from dashboard.alerts.actions import do_update_alert_preferences
from dashboard.alerts.models import Delivery


def _where() -> str:
    if settings.EMAIL_BACKEND.endswith("filebased.EmailBackend"):
        return f"files in {settings.EMAIL_FILE_PATH}"
    return f"sent through {settings.EMAIL_BACKEND}"


def enable_demo_alerts(stdout) -> dict:
    """Turn immediate alert mails and the daily digest on for the demo holder's user
    (core.demo.HOLDER_USER). Returns {"alerts for": username}."""
    user = get_user_model().objects.get(username=HOLDER_USER)
    do_update_alert_preferences(user, email_enabled=True, digest_enabled=True)
    stdout.write(f"Alerts on for {user.username} <{user.email}>: mails are {_where()}")
    return {"alerts for": f"{user.username} <{user.email}>"}


def report_demo_alerts(stdout) -> dict:
    """Wait up to settings.DEMO_ALERT_TIMEOUT_SECONDS for the demo's pending alerts (of its
    scan's cases) to be delivered; returns {"alert mails": "<sent> sent, <waiting> waiting (<where>)"}."""
    deadline = time.monotonic() + settings.DEMO_ALERT_TIMEOUT_SECONDS
    waiting = Delivery.objects.filter(kind=Delivery.Kind.CASES,
                                      status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING])
    while waiting.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    sent = Delivery.objects.filter(kind=Delivery.Kind.CASES, status=Delivery.Status.SENT,
                                   channel=Delivery.Channel.EMAIL).count()
    return {"alert mails": f"{sent} sent, {waiting.count()} waiting ({_where()})"}
