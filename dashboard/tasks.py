"""Celery tasks of the dashboard: takedown verification (``verify_takedowns``, queue "crawl",
run by beat every settings.TAKEDOWN_CHECK_INTERVAL_SECONDS; ``check_notice``, one notice's
check asked for now); notices sent by e-mail (``send_notice_mail``, its sweeper
``sweep_notice_mails``), the reminders of pages still up (``remind_notices``,
``deliver_reminder``) and the escalation of notices ignored (``escalate_notices``)."""

from __future__ import annotations

import smtplib
from datetime import timedelta

from celery import shared_task
from celery.utils.log import get_task_logger
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.connections import storage_errors
from core.engine import get_engine
from core.errors import ActionError
from core.scoping import sees_all
from crawler import takedown
from crawler.models import CheckOutcome, ReviewStatus
from dashboard import notice_actions, notice_mail
from dashboard.alerts.tasks import MAIL_ERRORS
from dashboard.dkim_signing import DkimKeyError
from dashboard.models import (
    MAIL_PENDING,
    MailStatus,
    NoticeMail,
    NoticeReminder,
    NoticeStatus,
    TakedownNotice,
)
from dashboard.notice_actions import do_advance_notice
from dashboard.pdf import PdfUnavailableError
from lib.evidence.signing import SigningError
from lib.runtime.backoff import backoff_delay

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
    """The takedown check of one notice asked for now (``dashboard.notice_actions.do_check_notice``):
    ``check_notices`` of that notice. Returns what ``verify_takedowns`` returns."""
    return check_notices(TakedownNotice.objects.filter(pk=notice_id))


def check_notices(notices) -> dict:
    """Check each match cited by ``notices`` (a TakedownNotice queryset) once with
    ``crawler.takedown.verify_match``; a sent notice whose matches are all removed moves to
    "removed" through ``do_advance_notice``, the checks cited in its audit reason.

    Returns:
        {"checked": matches checked, "notices_removed": [notice ids moved to removed]}.
    """
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


def _mail_delay(retries: int) -> float:
    return backoff_delay(retries, settings.NOTICE_MAIL_RETRY_BASE_SECONDS,
                         settings.NOTICE_MAIL_RETRY_MAX_SECONDS)


@shared_task(bind=True, name="dashboard.send_notice_mail", max_retries=None)
def send_notice_mail(self, mail_id: int) -> str:
    """Send NoticeMail ``mail_id`` (``dashboard.notice_mail``) and record the attempt
    (``do_record_notice_mail``): a 5xx refusal is final ("refused"); the server down, a 4xx
    answer or MongoDB/Redis down (the reports read the pages) is retried with backoff up to
    settings.NOTICE_MAIL_MAX_RETRIES times, then "failed"; a report that cannot be made fails at
    once. Returns the mail's status."""
    mail = NoticeMail.objects.select_related("notice__holder", "asked_by").filter(pk=mail_id).first()
    if mail is None or mail.status not in MAIL_PENDING:
        return mail.status if mail else "gone"
    try:
        sent = notice_mail.transmit(notice_mail.compose(mail))
    except (PdfUnavailableError, SigningError, DkimKeyError) as exc:
        return notice_actions.do_record_notice_mail(
            mail, MailStatus.FAILED, error=notice_mail.failure_note(exc)).status
    except (smtplib.SMTPException, OSError, *storage_errors()) as exc:
        refusal = notice_mail.refusal(exc) if isinstance(exc, smtplib.SMTPException) else None
        reply, error = refusal[1] if refusal else "", notice_mail.failure_note(exc)
        if refusal is not None and refusal[0] >= 500:
            return notice_actions.do_record_notice_mail(
                mail, MailStatus.REFUSED, reply=reply, error=error).status
        if self.request.retries >= settings.NOTICE_MAIL_MAX_RETRIES:
            return notice_actions.do_record_notice_mail(
                mail, MailStatus.FAILED, reply=reply, error=error).status
        delay = _mail_delay(self.request.retries)
        notice_actions.do_record_notice_mail(
            mail, MailStatus.RETRYING, reply=reply, error=error,
            next_attempt_at=timezone.now() + timedelta(seconds=delay))
        raise self.retry(countdown=delay) from exc
    return notice_actions.do_record_notice_mail(mail, MailStatus.SENT, reply=sent.reply,
                                                message_id=sent.message_id).status


@shared_task(name="dashboard.sweep_notice_mails")
def sweep_notice_mails() -> dict:
    """Notice mails queued or retrying whose last attempt (or request) is older than
    settings.NOTICE_MAIL_STUCK_SECONDS (their task lost): sent again, or recorded "failed" once
    settings.NOTICE_MAIL_MAX_RETRIES attempts were made. Returns {"requeued": [ids],
    "failed": [ids]}."""
    stale = timezone.now() - timedelta(seconds=settings.NOTICE_MAIL_STUCK_SECONDS)
    requeued, failed = [], []
    for mail in NoticeMail.objects.filter(status__in=MAIL_PENDING).filter(
            Q(attempted_at__lt=stale) | Q(attempted_at__isnull=True, asked_at__lt=stale)):
        if mail.attempts >= settings.NOTICE_MAIL_MAX_RETRIES:
            notice_actions.do_record_notice_mail(mail, MailStatus.FAILED, error=notes.coded(
                "notice_mail_lost", gettext_noop("no answer from the worker after %(n)s "
                                                 "attempts"), n=mail.attempts))
            failed.append(mail.pk)
        else:
            NoticeMail.objects.filter(pk=mail.pk).update(attempted_at=timezone.now())
            send_notice_mail.delay(mail.pk)
            requeued.append(mail.pk)
    return {"requeued": requeued, "failed": failed}


def _staff_to_remind(notice) -> list:
    """The users reminded of ``notice``: who asked its e-mail and who drafted it, and the
    platform staff (``sees_all``), active and with an address."""
    users = {mail.asked_by for mail in notice.mails.filter(status=MailStatus.SENT)
             .select_related("asked_by")} | {notice.created_by}
    users |= {u for u in get_user_model().objects.filter(is_active=True).exclude(email="")
              if sees_all(u)}
    return sorted((u for u in users if u is not None and u.is_active and u.email),
                  key=lambda u: u.pk)


@shared_task(name="dashboard.remind_notices")
def remind_notices() -> list[int]:
    """Beat, every settings.NOTICE_REMINDER_CHECK_SECONDS: each sent notice with pages still up
    n x settings.NOTICE_REMINDER_DAYS days (n >= 1) after it was sent gets the reminder of
    period n once (``do_remind_notice``), and reminders not yet taken by the SMTP server are
    mailed again. Returns the ids of the reminders created."""
    days = settings.NOTICE_REMINDER_DAYS
    now = timezone.now()
    created = []
    for notice in TakedownNotice.objects.filter(status=NoticeStatus.SENT,
                                                sent_at__lte=now - timedelta(days=days)):
        pages_up = notice.matches.filter(still_matching=True).count()
        if not pages_up:
            continue
        period = (now - notice.sent_at).days // days
        reminder = notice_actions.do_remind_notice(
            notice, period, pages_up, [u.email for u in _staff_to_remind(notice)])
        if reminder is not None:
            created.append(reminder.pk)
    for reminder in NoticeReminder.objects.filter(
            sent_at__isnull=True, attempts__lt=settings.NOTICE_REMINDER_MAX_ATTEMPTS).exclude(pk__in=created):
        deliver_reminder.delay(reminder.pk)
    return created


@shared_task(name="dashboard.deliver_reminder")
def deliver_reminder(reminder_id: int) -> int:
    """Mail NoticeReminder ``reminder_id`` to each of its recipients in their language and
    record the attempt (an SMTP failure is kept and tried again by the next
    ``remind_notices``); a reminder already sent is skipped. Returns the number of mails the
    server took."""
    with transaction.atomic():  # the row lock makes a second task for it wait, then skip it
        reminder = (NoticeReminder.objects.select_for_update().select_related("notice")
                    .get(pk=reminder_id))
        if reminder.sent_at is not None:
            return 0
        sent = 0
        try:
            for address in reminder.recipients:
                sent += notice_mail.reminder_message(reminder, address).send()
        except MAIL_ERRORS as exc:
            notice_actions.do_record_reminder(reminder, sent,
                                              error=notice_mail.failure_note(exc))
            return sent
        notice_actions.do_record_reminder(reminder, sent)
    return sent


@shared_task(name="dashboard.escalate_notices")
def escalate_notices() -> list[int]:
    """Beat, every settings.NOTICE_ESCALATE_CHECK_SECONDS: each sent notice not yet escalated
    whose confirmed pages are still up settings.NOTICE_ESCALATE_DAYS days after it was sent is
    escalated (``notice_actions.do_escalate_notice``); one that cannot be (nobody known above
    its recipient, or refused) keeps its reason and is tried again at the next pass. Returns
    the ids of the escalation notices drafted."""
    due = timezone.now() - timedelta(days=settings.NOTICE_ESCALATE_DAYS)
    drafted = []
    for notice in (TakedownNotice.objects.filter(
            status=NoticeStatus.SENT, sent_at__lte=due, escalations=None,
            matches__still_matching=True, matches__review_status=ReviewStatus.CONFIRMED)
            .distinct().order_by("sent_at")):
        try:
            escalated = notice_actions.do_escalate_notice(notice, None)
        except ActionError as exc:  # a page removed or a notice escalated meanwhile
            log.info("notice %s not escalated: %s", notice.pk, exc)
            continue
        if escalated is not None:
            drafted.append(escalated.pk)
    return drafted
