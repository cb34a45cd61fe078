"""The alert actions: each state change of the alerts in one atomic function.

``do_send_scan_case_alerts`` and ``do_send_search_case_alerts`` write the delivery rows of the
cases a scan or a stored-page search opened or grew (one mail per user, one webhook event per
case and endpoint) and ``do_send_match_alert`` those of a takedown change of a match (once per
user and endpoint: the unique constraints of Delivery), each queued for sending on commit; ``do_record_delivery``
records the result of one attempt (and disables a webhook after
``settings.ALERT_WEBHOOK_MAX_FAILURES`` failures in a row, mailing the holder's users);
``do_queue_summaries`` writes the takedown summaries due (once per user and period) and
``do_record_summary`` records the result of sending one;
``do_record_digest`` marks the matches of a delivered digest; ``do_update_alert_preferences``
changes a user's preferences (the dashboard, the API and the unsubscribe links call it);
``do_save_webhook`` saves an endpoint (enabling it again resets its failure count) and
``do_delete_webhook`` deletes one (the admin and the API call both). The last three record who
changed what in the audit trail (kind "alert").
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core.models import AuditEvent
from core.queueing import queue_after_commit
from core.scoping import holders_for, sees_all
from core.timezones import zone_of
from crawler import cases
from crawler.models import CaseState, CheckOutcome, RematchJob, TakedownCheck
from dashboard.alerts.models import (
    AlertPreference,
    Delivery,
    SummaryMail,
    WebhookEndpoint,
    new_secret,
)
from dashboard.alerts.summary import last_period

log = logging.getLogger(__name__)


def recipients(match) -> list[AlertPreference]:
    """The preferences of the users to alert at once of ``match``: active, with an e-mail
    address, immediate mails on, minimum score at most the match's score, and members of the
    match's rights holder or platform staff (``core.scoping.sees_all``)."""
    members = set(match.work.holder.users.values_list("pk", flat=True))
    prefs = (AlertPreference.objects.select_related("user")
             .filter(email_enabled=True, min_score__lte=match.score, user__is_active=True)
             .exclude(user__email=""))
    return [p for p in prefs if p.user_id in members or sees_all(p.user)]


def do_send_match_alert(match, change: str, check) -> list[Delivery]:
    """Create the deliveries of a takedown change of ``match`` (a crawler Match with work and
    holder) and queue each on commit (tasks ``alerts.deliver_email`` / ``alerts.deliver_webhook``).

    Args:
        match: the match.
        change: "removed" or "reopened" (the Delivery kind), found by ``check``.
        check: the crawler TakedownCheck that found the change.

    A user or endpoint already alerted of this check gets nothing new (the task delivered
    twice). Returns the deliveries created.
    """
    created = []
    mailed = _mails_of_change(match, change, check)
    targets = [(Delivery.Channel.EMAIL, {"user": p.user, **mailed}, p.user.email)
               for p in (recipients(match) if mailed is not None else [])]
    targets += [(Delivery.Channel.WEBHOOK, {"endpoint": e}, e.url) for e in
                WebhookEndpoint.objects.filter(holder_id=match.work.holder_id, enabled=True,
                                               min_score__lte=match.score)]
    for channel, target, recipient in targets:
        try:
            with transaction.atomic():
                delivery = Delivery.objects.create(kind=change, channel=channel, match=match,
                                                   takedown_check=check, recipient=recipient,
                                                   **target)
        except IntegrityError:  # alerted before on this channel
            continue
        queue_after_commit("alerts.deliver_email" if channel == Delivery.Channel.EMAIL
                           else "alerts.deliver_webhook", delivery.pk)
        created.append(delivery)
    return created


def _mails_of_change(match, change: str, check) -> dict | None:
    """Whether users get a mail of ``change`` of ``match`` found by ``check``: {} for a
    match without a case and for a copy back; for a removal in a case, ``{"case": case}`` when
    this check closed the case (its state "removed" and this the case's latest removal check,
    so that one mail names all its pages however many checks ran at once), else None (the
    case still has a copy up: the mail waits for the case to close)."""
    case = match.case
    if change != Delivery.Kind.REMOVED or case is None:
        return {}
    latest = (TakedownCheck.objects.filter(match__case=case, outcome=CheckOutcome.REMOVED)
              .order_by("-pk").values_list("pk", flat=True).first())
    case.refresh_from_db(fields=["state"])
    return {"case": case} if case.state == CaseState.REMOVED and latest == check.pk else None


def do_send_scan_case_alerts(scan_id: int) -> list[Delivery]:
    """Create the deliveries of the cases that scan ``scan_id`` opened or grew
    (``_send_case_alerts``). Returns the deliveries created."""
    return _send_case_alerts(cases.scan_finding(scan_id), {"scan_id": scan_id})


def do_send_search_case_alerts(job_id: int) -> list[Delivery]:
    """Create the deliveries of the cases that stored-page search ``job_id`` (a crawler
    RematchJob) opened or grew (``_send_case_alerts``); [] for an unknown job. Returns the
    deliveries created."""
    job = RematchJob.objects.filter(pk=job_id).first()
    return _send_case_alerts(cases.search_finding(job), {"search_id": job_id}) if job else []


def _send_case_alerts(finding, source: dict) -> list[Delivery]:
    """Create the deliveries of the cases ``finding`` (crawler.cases.Finding) opened or grew
    (``crawler.cases.found_cases``), each naming its ``source`` (``{"scan_id": id}`` or
    ``{"search_id": id}``), and queue each on commit: one mail per user listing the cases it
    may see whose best new page reaches its minimum score (``recipients``' rules), one webhook
    event per case and endpoint of the case's holder. A user or endpoint already alerted of
    this source (of this case) gets nothing new. Returns the deliveries created."""
    found = list(cases.found_cases(finding))
    if not found:
        return []
    created = []
    prefs = (AlertPreference.objects.select_related("user")
             .filter(email_enabled=True, user__is_active=True).exclude(user__email=""))
    for pref in prefs:
        mine = None if sees_all(pref.user) else set(holders_for(pref.user).values_list("pk", flat=True))
        visible = [c for c in found if (mine is None or c.work.holder_id in mine)
                   and c.best_score >= pref.min_score]
        if visible:
            created += _create(Delivery.Channel.EMAIL, pref.user.email, visible, source,
                               user=pref.user)
    for case in found:
        for endpoint in WebhookEndpoint.objects.filter(holder_id=case.work.holder_id, enabled=True,
                                                       min_score__lte=case.best_score):
            created += _create(Delivery.Channel.WEBHOOK, endpoint.url, [case], source,
                               endpoint=endpoint, case=case)
    return created


def _create(channel: str, recipient: str, listed, source: dict, **target) -> list[Delivery]:
    """One new delivery of kind "cases" from ``source`` naming ``listed`` (Cases), queued on
    commit; [] when the unique constraints say it was made before."""
    try:
        with transaction.atomic():
            delivery = Delivery.objects.create(kind=Delivery.Kind.CASES, channel=channel,
                                               recipient=recipient, **source, **target)
            delivery.cases.set(listed)
    except IntegrityError:
        return []
    queue_after_commit("alerts.deliver_email" if channel == Delivery.Channel.EMAIL
                       else "alerts.deliver_webhook", delivery.pk)
    return [delivery]


def do_record_delivery(delivery: Delivery, status: str, *, error: str = "",
                       http_status: int | None = None) -> Delivery:
    """Record one attempt of ``delivery``: ``status`` (a Delivery.Status value), the error
    (str) and HTTP status. For a webhook, a final failure ("failed", "refused") counts toward
    ``settings.ALERT_WEBHOOK_MAX_FAILURES`` and a success resets the count; reaching it disables
    the endpoint and queues a notice mail to the holder's users. Returns the delivery."""
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(pk=delivery.pk)
        delivery.status, delivery.last_error, delivery.http_status = status, error, http_status
        delivery.attempts += 1
        if status == Delivery.Status.SENT:
            delivery.sent_at = timezone.now()
        delivery.save()
        if delivery.endpoint_id is None:
            return delivery
        endpoints = WebhookEndpoint.objects.filter(pk=delivery.endpoint_id)
        if status == Delivery.Status.SENT:
            endpoints.update(consecutive_failures=0)
        elif status in (Delivery.Status.FAILED, Delivery.Status.REFUSED):
            endpoints.update(consecutive_failures=F("consecutive_failures") + 1)
            endpoint = endpoints.select_for_update().get()
            if endpoint.enabled and endpoint.consecutive_failures >= settings.ALERT_WEBHOOK_MAX_FAILURES:
                endpoint.enabled = False
                endpoint.save(update_fields=["enabled"])
                queue_after_commit("alerts.notify_webhook_disabled", endpoint.pk)
                log.warning("webhook %s disabled after %d failures", endpoint.pk,
                            endpoint.consecutive_failures)
    return delivery


def do_record_digest(user, matches, preference: AlertPreference) -> int:
    """Mark ``matches`` as sent in ``user``'s digest (after the mail was delivered) and move
    ``preference.last_digest_at``. Returns the number of matches marked."""
    now = timezone.now()
    with transaction.atomic():
        rows = Delivery.objects.bulk_create(
            [Delivery(kind=Delivery.Kind.DIGEST, channel=Delivery.Channel.EMAIL, match=m,
                      user=user, recipient=user.email, status=Delivery.Status.SENT, attempts=1,
                      sent_at=now) for m in matches], ignore_conflicts=True)
        AlertPreference.objects.filter(pk=preference.pk).update(last_digest_at=now)
    return len(rows)


def do_update_alert_preferences(user, acting_user=None, **fields) -> AlertPreference:
    """Create or update the alert preferences of ``user`` with ``fields`` (model field names:
    email_enabled, min_score, digest_enabled, language, summary) and record the change.

    Args:
        user: whose preferences.
        acting_user: who changed them (default ``user``: the dashboard, the API, an
            unsubscribe link).

    Returns:
        The saved AlertPreference.

    Raises:
        ValueError: an unknown field name.
        django.core.exceptions.ValidationError: a value the model refuses (nothing saved).
    """
    allowed = {"email_enabled", "min_score", "digest_enabled", "language", "summary"}
    if unknown := set(fields) - allowed:
        raise ValueError(f"unknown alert preference fields: {sorted(unknown)}")
    with transaction.atomic():
        pref, created = AlertPreference.objects.select_for_update().get_or_create(user=user)
        for name, value in fields.items():
            setattr(pref, name, value)
        pref.full_clean()
        pref.save()
        AuditEvent.record(kind=AuditEvent.Kind.ALERT, user=acting_user or user, holder=None,
                          target=pref, subject=str(pref), old_state="" if created else "saved",
                          new_state="created" if created else "changed",
                          reason=", ".join(f"{k}={v}" for k, v in sorted(fields.items())))
    return pref


def do_save_webhook(endpoint: WebhookEndpoint, acting_user,
                    changed: list[str] | None = None) -> WebhookEndpoint:
    """Save ``endpoint`` (new or changed, its URL already through
    ``validators.check_webhook_url``) and record it; saved enabled, its failure count starts
    again from 0.

    Args:
        endpoint: the WebhookEndpoint with the wanted values.
        acting_user: the user who made the change, or None (a command, the demo).
        changed: names of the fields changed, for the trail ("created" for a new endpoint).

    Returns:
        The saved endpoint.
    """
    with transaction.atomic():
        new = endpoint.pk is None
        if endpoint.enabled:
            endpoint.consecutive_failures = 0
        endpoint.save()
        AuditEvent.record(kind=AuditEvent.Kind.ALERT, user=acting_user, holder=endpoint.holder,
                          target=endpoint, subject=f"{endpoint.name} <{endpoint.url}>",
                          old_state="" if new else "saved",
                          new_state="created" if new else "changed",
                          reason=", ".join(changed or []))
    return endpoint


def do_rotate_webhook_secret(endpoint: WebhookEndpoint, acting_user) -> str:
    """Give ``endpoint`` a new signing secret (``models.new_secret``) and record who did it
    (the trail never holds the secret).

    Returns:
        The new secret (str), to be shown once to the person who asked for it.
    """
    with transaction.atomic():
        endpoint.secret = new_secret()
        endpoint.save(update_fields=["secret"])
        AuditEvent.record(kind=AuditEvent.Kind.ALERT, user=acting_user, holder=endpoint.holder,
                          target=endpoint, subject=f"{endpoint.name} <{endpoint.url}>",
                          old_state="saved", new_state="changed", reason="secret rotated")
    return endpoint.secret


def do_delete_webhook(endpoint: WebhookEndpoint, acting_user) -> None:
    """Delete ``endpoint`` (its delivery log rows go with it) and record who did it."""
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.ALERT, user=acting_user, holder=endpoint.holder,
                          target=endpoint, subject=f"{endpoint.name} <{endpoint.url}>",
                          old_state="saved", new_state="deleted")
        endpoint.delete()


def do_queue_summaries(now=None) -> list[SummaryMail]:
    """Create the takedown summaries due at ``now`` (aware, default now) and queue each on
    commit (task ``alerts.deliver_summary``): one per active user with an e-mail address and
    a weekly or monthly summary chosen, for its last whole period
    (``dashboard.alerts.summary.last_period`` in the user's time zone); a period already
    recorded gets nothing new (the task ran twice). A summary still pending
    settings.SUMMARY_REQUEUE_AFTER_SECONDS after it was created is queued again.
    Returns the summaries created."""
    now = now or timezone.now()
    created = []
    prefs = (AlertPreference.objects.select_related("user")
             .exclude(summary=AlertPreference.Summary.NONE)
             .filter(user__is_active=True).exclude(user__email=""))
    for pref in prefs:
        start, end = last_period(pref.summary, now, zone_of(pref.user))
        try:
            with transaction.atomic():
                row = SummaryMail.objects.create(user=pref.user, cadence=pref.summary,
                                                 period_start=start, period_end=end,
                                                 recipient=pref.user.email)
        except IntegrityError:  # this period's summary exists
            continue
        queue_after_commit("alerts.deliver_summary", row.pk)
        created.append(row)
    stale = now - timedelta(seconds=settings.SUMMARY_REQUEUE_AFTER_SECONDS)
    for row_id in SummaryMail.objects.filter(status=Delivery.Status.PENDING,
                                             created_at__lt=stale).values_list("pk", flat=True):
        queue_after_commit("alerts.deliver_summary", row_id)
    return created


def do_record_summary(row: SummaryMail, status: str, error: str = "") -> SummaryMail:
    """Record one sending attempt of summary ``row``: ``status`` (a Delivery.Status value)
    and the error (str, "" for none); "sent" stamps ``sent_at``. Returns the row."""
    with transaction.atomic():
        row = SummaryMail.objects.select_for_update().get(pk=row.pk)
        row.status, row.last_error = status, error
        row.attempts += 1
        if status == Delivery.Status.SENT:
            row.sent_at = timezone.now()
        row.save()
    return row
