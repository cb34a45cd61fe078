"""Celery tasks of the evidence app, on settings.QUEUE_CAPTURE: ``capture_page`` makes one
capture's bundle, ``sweep_captures`` (beat) sends stuck captures again and gives up on them,
``stamp_registration`` time-stamps a newly indexed work's text."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.log import get_task_logger
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.connections import storage_errors
from crawler.evidence import actions, registrations
from crawler.evidence.capture import NothingToCapture, capture
from crawler.evidence.models import Capture, CaptureState, TimestampStatus
from crawler.evidence.registrations import stamp_pending_registrations
from crawler.evidence.trust import Stamper
from lib.evidence.bundle import restamp
from lib.evidence.recorder import RecorderFailed
from lib.runtime.backoff import backoff_delay

log = get_task_logger(__name__)


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt of a capture that failed ``attempts`` times."""
    return backoff_delay(max(attempts - 1, 0), settings.CAPTURE_RETRY_BASE_SECONDS,
                         settings.CAPTURE_RETRY_MAX_SECONDS)


@shared_task(name="evidence.capture_page", soft_time_limit=settings.CAPTURE_TIME_LIMIT_SECONDS,
             time_limit=settings.CAPTURE_TIME_LIMIT_SECONDS + 30)
def capture_page(capture_id: int) -> str:
    """Make the bundle of Capture ``capture_id`` (crawler.evidence.capture). Returns its state
    afterwards ('done', 'pending' for a retry later, 'failed'), or 'skipped' when it was
    already done or failed."""
    return _capture(capture_id)


@shared_task(name="evidence.capture_pages")
def capture_pages(capture_ids: list[int]) -> list[str]:
    """capture_page for each of ``capture_ids`` in turn (the captures a crawl task requested,
    sent together: actions.captures_sent_together, which sets the time limits). Returns their
    states as capture_page does."""
    return [_capture(capture_id) for capture_id in capture_ids]


def _capture(capture_id: int) -> str:
    record = actions.do_start_capture(capture_id)
    if record is None:
        return "skipped"
    if record.match is None:
        return actions.do_fail_capture(record, notes.coded(
            "capture_match_gone", gettext_noop("the match no longer exists")), retry_in=None).state
    try:
        made = capture(record)
    except RecorderFailed as exc:
        log.warning("capture %s: recording proxy failed: %s", capture_id, exc)
        return actions.do_fail_capture(record, recorder_failure(exc),
                                       retry_in=retry_delay(record.attempts)).state
    except NothingToCapture as exc:
        log.warning("capture %s: nothing to capture: %s", capture_id, exc)
        return actions.do_fail_capture(record, exc.note,
                                       retry_in=retry_delay(record.attempts)).state
    except SoftTimeLimitExceeded:
        return actions.do_fail_capture(record, notes.coded(
            "capture_over_time", gettext_noop("not done in %(seconds)s s"),
            seconds=settings.CAPTURE_TIME_LIMIT_SECONDS), retry_in=retry_delay(record.attempts)).state
    except (*storage_errors(), ValueError, OSError) as exc:
        log.warning("capture %s failed: %s", capture_id, exc)
        return actions.do_fail_capture(record, f"{type(exc).__name__}: {exc}",
                                       retry_in=retry_delay(record.attempts)).state
    stamping = made.stamping
    done = actions.do_complete_capture(
        record, made.bundle.data, bundle_sha256=made.bundle.sha256,
        datapackage_sha256=made.bundle.datapackage_sha256, outcome=made.outcome,
        timestamp={"status": stamping.status, "token": stamping.token,
                   "authority": stamping.authority, "time": stamping.time})
    return done.state


def recorder_failure(exc: RecorderFailed) -> str:
    """The coded note of an attempt whose recording proxies all failed (their last reason)."""
    return notes.coded("recorder_failed", gettext_noop("the recording proxy failed: %(reason)s"),
                       reason=str(exc)[:200])


@shared_task(name="evidence.sweep_captures")
def sweep_captures() -> dict:
    """Captures stuck (beat, every settings.CAPTURE_SWEEP_SECONDS): a capture running for
    settings.CAPTURE_STUCK_SECONDS (its worker killed) counts as a failed attempt, sent again
    after a backoff or failed for good after settings.CAPTURE_MAX_ATTEMPTS; a pending one whose
    task is that late (lost with the broker) is sent again.

    A capture bundled while no TSA answered ("timestamp pending") is stamped now if one does.
    With settings.EVIDENCE_RETENTION_DAYS > 0, bundles older than that are deleted
    (``do_expire_capture``); the default 0 keeps them for ever.

    Registration proofs still pending are asked for again too.

    Returns {"retried", "failed", "resent", "stamped", "expired": [capture ids],
    "registrations_stamped": [work ids]}.
    """
    late = timezone.now() - timedelta(seconds=settings.CAPTURE_STUCK_SECONDS)
    out = {"retried": [], "failed": [], "resent": []}
    for record in Capture.objects.filter(state=CaptureState.RUNNING, started_at__lt=late):
        after = actions.do_fail_capture(record, notes.coded("capture_worker_lost", gettext_noop(
            "the capture worker was lost (no result in %(seconds)s s)"),
            seconds=settings.CAPTURE_STUCK_SECONDS), retry_in=retry_delay(record.attempts))
        out["failed" if after.state == CaptureState.FAILED else "retried"].append(record.pk)
    pending = Capture.objects.filter(state=CaptureState.PENDING, created_at__lt=late)
    for record in pending.exclude(next_attempt_at__gte=late):
        actions.do_retry_capture(record)
        out["resent"].append(record.pk)
    out["stamped"] = [c.pk for c in Capture.objects.filter(
        state=CaptureState.DONE, timestamp_status=TimestampStatus.PENDING) if _stamp_later(c)]
    out["registrations_stamped"] = stamp_pending_registrations()
    out["expired"] = []
    if settings.EVIDENCE_RETENTION_DAYS > 0:
        old = timezone.now() - timedelta(days=settings.EVIDENCE_RETENTION_DAYS)
        for record in Capture.objects.filter(finished_at__lt=old).exclude(bundle=""):
            actions.do_expire_capture(record)
            out["expired"].append(record.pk)
    return out


def _stamp_later(record: Capture) -> bool:
    """Ask the TSAs again for a capture bundled while none answered; True when stamped."""
    stamper = Stamper()
    with record.bundle.open("rb") as handle:
        bundle = restamp(handle.read(), stamper)
    if bundle is None:
        return False
    got = stamper.result
    actions.do_stamp_capture(record, bundle.data, bundle_sha256=bundle.sha256, token=got.token,
                             authority=got.authority, time=got.time)
    return True


@shared_task(name="evidence.stamp_registration")
def stamp_registration(work_id: int) -> str:
    """Time-stamp the text of work ``work_id`` (``do_stamp_registration``); its status."""
    proof = registrations.do_stamp_registration(work_id)
    return proof.status if proof is not None else "gone"
