"""Celery tasks of the alerts (queue settings.QUEUE_DEFAULT). Every retry waits
``lib.runtime.backoff.backoff_delay(retries, ALERT_RETRY_BASE_SECONDS, ALERT_RETRY_MAX_SECONDS)``
and gives up after ``ALERT_MAX_RETRIES`` retries, recording the reason in the delivery log."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from core.scoping import scope
from crawler.models import Match, TakedownCheck
from dashboard.alerts import actions, case_messages, messages, summary, webhooks
from dashboard.alerts.models import AlertPreference, Delivery, SummaryMail, WebhookEndpoint
from dashboard.pdf import PdfUnavailableError
from lib.runtime.backoff import backoff_delay

MAIL_ERRORS = (smtplib.SMTPException, OSError)  # SMTP refusals, connection refused, timeouts
DONE = (Delivery.Status.SENT, Delivery.Status.FAILED, Delivery.Status.REFUSED)


def _delay(retries: int) -> float:
    return backoff_delay(retries, settings.ALERT_RETRY_BASE_SECONDS, settings.ALERT_RETRY_MAX_SECONDS)


def _language(user) -> str:
    pref = AlertPreference.objects.filter(user=user).first()
    return pref.language if pref else settings.LANGUAGE_CODE


@shared_task(name="alerts.send_scan_case_alerts")
def send_scan_case_alerts(scan_id: int) -> int:
    """Create and queue the deliveries of the cases scan ``scan_id`` opened or grew; returns
    how many."""
    return len(actions.do_send_scan_case_alerts(scan_id))


@shared_task(name="alerts.send_search_case_alerts")
def send_search_case_alerts(job_id: int) -> int:
    """Create and queue the deliveries of the cases stored-page search ``job_id`` opened or
    grew; returns how many."""
    return len(actions.do_send_search_case_alerts(job_id))


@shared_task(name="alerts.send_takedown_alerts")
def send_takedown_alerts(match_id: int, check_id: int, change: str) -> int:
    """Create and queue the deliveries telling that the copy of match ``match_id`` was
    ``change`` ("removed" or "reopened") by takedown check ``check_id``; returns how many."""
    match = Match.objects.select_related("work", "work__holder").filter(pk=match_id).first()
    check = TakedownCheck.objects.filter(pk=check_id).first()
    if match is None or check is None:
        return 0
    return len(actions.do_send_match_alert(match, change, check))


@shared_task(bind=True, name="alerts.deliver_email", max_retries=None)
def deliver_email(self, delivery_id: int) -> str:
    """Send the alert mail of delivery ``delivery_id``; an unreachable or refusing SMTP server
    is retried with backoff. Returns the delivery's status."""
    delivery = (Delivery.objects.select_related("match__work__holder", "user", "takedown_check",
                                                 "case")
                .filter(pk=delivery_id).first())
    if delivery is None or delivery.status in DONE:
        return delivery.status if delivery else "gone"
    try:
        compose = (case_messages.cases_mail if delivery.kind == Delivery.Kind.CASES
                   else messages.delivery_mail)
        compose(delivery, _language(delivery.user)).send()
    except MAIL_ERRORS as exc:
        final = self.request.retries >= settings.ALERT_MAX_RETRIES
        status = Delivery.Status.FAILED if final else Delivery.Status.RETRYING
        actions.do_record_delivery(delivery, status, error=f"{type(exc).__name__}: {exc}")
        if not final:
            raise self.retry(countdown=_delay(self.request.retries)) from exc
        return status
    return actions.do_record_delivery(delivery, Delivery.Status.SENT).status


@shared_task(bind=True, name="alerts.deliver_webhook", max_retries=None)
def deliver_webhook(self, delivery_id: int) -> str:
    """POST the alert of delivery ``delivery_id`` to its endpoint (JSON or WeCom format);
    timeouts, connection errors, 429 and 5xx are retried with backoff; SSRF refusals and 4xx are
    final. Returns the delivery's status."""
    delivery = (Delivery.objects.select_related("match__work__holder", "endpoint",
                                                "takedown_check").filter(pk=delivery_id).first())
    if delivery is None or delivery.status in DONE:
        return delivery.status if delivery else "gone"
    endpoint = delivery.endpoint
    cases = delivery.kind == Delivery.Kind.CASES
    if endpoint.format == WebhookEndpoint.Format.WECOM:
        markdown = case_messages.wecom_markdown if cases else messages.wecom_markdown
        payload = webhooks.wecom_body(markdown(delivery, endpoint.language))
    else:
        payload = (case_messages.json_payload if cases else messages.json_payload)(delivery)
    attempt = webhooks.post(endpoint.url, endpoint.secret, payload,
                            settings.ALERT_WEBHOOK_TIMEOUT_SECONDS)
    if attempt.result == "retry":
        final = self.request.retries >= settings.ALERT_MAX_RETRIES
        status = Delivery.Status.FAILED if final else Delivery.Status.RETRYING
        actions.do_record_delivery(delivery, status, error=attempt.error,
                                   http_status=attempt.http_status)
        if not final:
            raise self.retry(countdown=_delay(self.request.retries))
        return status
    return actions.do_record_delivery(delivery, attempt.result, error=attempt.error,
                                      http_status=attempt.http_status).status


@shared_task(name="alerts.notify_webhook_disabled")
def notify_webhook_disabled(endpoint_id: int) -> int:
    """Mail the users of the endpoint's holder that it was disabled; returns mails sent."""
    endpoint = WebhookEndpoint.objects.select_related("holder").get(pk=endpoint_id)
    sent = 0
    for user in endpoint.holder.users.filter(is_active=True).exclude(email=""):
        sent += messages.webhook_disabled_mail(endpoint, user, _language(user)).send()
    return sent


@shared_task(name="alerts.send_digests")
def send_digests() -> int:
    """The daily beat task: queue ``alerts.send_digest`` for every user with the digest on."""
    users = AlertPreference.objects.filter(digest_enabled=True, user__is_active=True).exclude(
        user__email="").values_list("user_id", flat=True)
    for user_id in users:
        send_digest.delay(user_id)
    return len(users)


@shared_task(bind=True, name="alerts.send_digest", max_retries=None)
def send_digest(self, user_id: int) -> int:
    """Mail ``user_id`` the matches it may see that were first seen since it subscribed and
    were in no digest of it yet (at most settings.ALERT_DIGEST_MAX_MATCHES). They are marked
    only after the mail was accepted: an SMTP failure retries with backoff and loses nothing.
    Returns the number of matches sent."""
    user = get_user_model().objects.get(pk=user_id)
    pref = AlertPreference.objects.get(user=user)
    matches = list(scope(Match.objects.select_related("work", "work__holder"), user, "work__holder")
                   .filter(first_seen__gte=pref.created_at)
                   .exclude(deliveries__kind=Delivery.Kind.DIGEST, deliveries__user=user)
                   .order_by("first_seen")[:settings.ALERT_DIGEST_MAX_MATCHES])
    if not matches:
        return 0
    try:
        messages.digest_mail(matches, user, pref.language).send()
    except MAIL_ERRORS as exc:
        if self.request.retries >= settings.ALERT_MAX_RETRIES:
            raise
        raise self.retry(countdown=_delay(self.request.retries)) from exc
    return actions.do_record_digest(user, matches, pref)



@shared_task(name="alerts.send_summaries")
def send_summaries() -> int:
    """The beat task (every settings.SUMMARY_CHECK_SECONDS): create and queue the takedown
    summaries due (``actions.do_queue_summaries``); returns how many were created."""
    return len(actions.do_queue_summaries())


@shared_task(bind=True, name="alerts.deliver_summary", max_retries=None)
def deliver_summary(self, row_id: int) -> str:
    """Send takedown summary ``row_id`` (a SummaryMail) unless it was sent or given up, or
    another worker is sending it now (its row is locked); an unreachable or refusing SMTP
    server is retried with backoff, a PDF that cannot be made here fails at once. Returns the
    summary's status."""
    error = ""
    with transaction.atomic():
        row = (SummaryMail.objects.select_for_update(skip_locked=True).select_related("user")
               .filter(pk=row_id).first())
        if row is None or row.status in DONE:
            return row.status if row else "busy or gone"
        try:
            summary.summary_mail(row, _language(row.user)).send()
        except PdfUnavailableError as exc:
            return actions.do_record_summary(row, Delivery.Status.FAILED, str(exc)).status
        except MAIL_ERRORS as exc:
            error = f"{type(exc).__name__}: {exc}"
        else:
            return actions.do_record_summary(row, Delivery.Status.SENT).status
    final = self.request.retries >= settings.ALERT_MAX_RETRIES
    status = Delivery.Status.FAILED if final else Delivery.Status.RETRYING
    actions.do_record_summary(row, status, error)
    if not final:
        raise self.retry(countdown=_delay(self.request.retries))
    return status
