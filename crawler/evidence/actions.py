"""The evidence app's actions: every change of a Capture goes through one ``do_<verb>_capture``
function, atomic, written to the audit trail (kind "evidence"), queueing the capture task only
once its transaction commits. The platform acts alone here (no person), except when staff ask
for a capture again (``do_retry_capture``).
"""

from __future__ import annotations

import contextlib
import contextvars
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent
from crawler.evidence.models import Capture, CaptureKind, CaptureState, TimestampStatus
from crawler.models import Match, TakedownCheck

CAPTURE_TASK = "evidence.capture_page"  # crawler.evidence.tasks.capture_page
CAPTURES_TASK = "evidence.capture_pages"  # crawler.evidence.tasks.capture_pages


class _Gathered:
    """The capture ids of an open ``captures_sent_together`` block."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.open = True


_together: contextvars.ContextVar[_Gathered | None] = contextvars.ContextVar("together",
                                                                             default=None)


@contextlib.contextmanager
def captures_sent_together():
    """Within the block, the captures queued without a countdown are sent as one
    evidence.capture_pages message when it ends (also when it raises), not one message each.
    A capture whose message is lost (the worker died first) stays pending: the capture
    sweeper sends it again."""
    gathered = _Gathered()
    token = _together.set(gathered)
    try:
        yield
    finally:
        _together.reset(token)
        gathered.open = False  # a transaction that commits later sends its capture alone
        if gathered.ids:  # time limits: settings.CAPTURE_TIME_LIMIT_SECONDS a capture
            limit = settings.CAPTURE_TIME_LIMIT_SECONDS * len(gathered.ids)
            current_app.send_task(CAPTURES_TASK, args=[gathered.ids], soft_time_limit=limit,
                                  time_limit=limit + 30)


def _audit(capture: Capture, old: str, new: str, reason: str, user=None) -> AuditEvent:
    match = capture.match
    holder = match.work.holder if match is not None else None
    return AuditEvent.record(kind=AuditEvent.Kind.EVIDENCE, user=user, holder=holder,
                             target=capture, subject=f"{capture.get_kind_display()} {capture.url}",
                             old_state=old, new_state=new, reason=reason)


def _queue(capture: Capture, countdown: float | None = None) -> None:
    together = _together.get() if countdown is None else None

    def send() -> None:
        if together is not None and together.open:
            together.ids.append(capture.pk)
        else:  # by name: the tasks module calls these actions (no import circle)
            current_app.send_task(CAPTURE_TASK, args=[capture.pk], countdown=countdown)

    transaction.on_commit(send)


def do_request_capture(match: Match, version_id: str, *, check: TakedownCheck | None = None,
                       exchange_key: str = "", url: str = "") -> Capture | None:
    """Record a pending capture of ``match`` and queue it on commit.

    Args:
        match: the Match captured.
        version_id: the page version (detection: the version that matched).
        check: for a removal capture, the TakedownCheck that found the page gone or changed.
        exchange_key: the key of the raw exchange in the stash (default ``version_id``).
        url: the URL fetched (default ``match.url``).

    Returns:
        The Capture, or None when this version (or this check) was captured already.
    """
    kind = CaptureKind.REMOVAL if check is not None else CaptureKind.DETECTION
    try:
        with transaction.atomic():
            capture = Capture.objects.create(match=match, kind=kind, takedown_check=check,
                                             version_id=version_id, url=url or match.url,
                                             exchange_key=exchange_key or version_id)
            _audit(capture, "", CaptureState.PENDING, notes.coded(
                "capture_requested", gettext_noop("%(kind)s capture requested"), kind=kind))
            _queue(capture)
    except IntegrityError:  # a racing worker requested the same one
        return None
    return capture


def do_start_capture(capture_id: int) -> Capture | None:
    """Mark capture ``capture_id`` running (one more attempt). Returns it, or None when it is
    no longer pending or running (done, failed, or gone): the task then has nothing to do."""
    with transaction.atomic():
        capture = (Capture.objects.select_for_update().filter(pk=capture_id)
                   .exclude(state__in=[CaptureState.DONE, CaptureState.FAILED]).first())
        if capture is None:
            return None
        old = capture.state
        capture.state, capture.started_at = CaptureState.RUNNING, timezone.now()
        capture.attempts += 1
        capture.save(update_fields=["state", "started_at", "attempts"])
        _audit(capture, old, CaptureState.RUNNING, notes.coded(
            "capture_attempt", gettext_noop("attempt %(n)s"), n=capture.attempts))
    return capture


def do_complete_capture(capture: Capture, bundle: bytes, *, bundle_sha256: str,
                        datapackage_sha256: str, outcome: str, timestamp: dict | None = None
                        ) -> Capture:
    """Store ``bundle`` (the WACZ bytes) in the evidence storage and mark ``capture`` done.

    ``outcome``: a coded note ("captured", "captured without screenshot: ..."); ``timestamp``:
    None, or {"status", "token", "authority", "time"} for the Capture's timestamp fields. The
    audit trail records the bundle's and the datapackage's SHA-256. Returns the Capture.
    """
    name = f"capture-{capture.pk}-{bundle_sha256[:12]}.wacz"
    with transaction.atomic():
        locked = Capture.objects.select_for_update().get(pk=capture.pk)
        locked.bundle.save(name, ContentFile(bundle), save=False)
        locked.bundle_sha256, locked.bundle_bytes = bundle_sha256, len(bundle)
        locked.datapackage_sha256, locked.outcome = datapackage_sha256, outcome
        for key, value in (timestamp or {}).items():
            setattr(locked, f"timestamp_{key}" if key != "time" else "timestamped_at", value)
        old, locked.state, locked.finished_at = locked.state, CaptureState.DONE, timezone.now()
        locked.next_attempt_at = None
        locked.save()
        _audit(locked, old, CaptureState.DONE, notes.coded(
            "capture_done", gettext_noop(
                "%(outcome)s; bundle SHA-256 %(bundle)s (%(bytes)s bytes), datapackage SHA-256 "
                "%(datapackage)s"), outcome=outcome, bundle=bundle_sha256, bytes=len(bundle),
            datapackage=datapackage_sha256))
    return locked


def do_fail_capture(capture: Capture, error: str, *, retry_in: float | None) -> Capture:
    """An attempt of ``capture`` failed with ``error`` (str). With ``retry_in`` (seconds) and
    attempts left (settings.CAPTURE_MAX_ATTEMPTS) it goes back to pending and is queued again
    after that delay; else it is failed for good with the reason. Returns the Capture."""
    with transaction.atomic():
        locked = Capture.objects.select_for_update().get(pk=capture.pk)
        old = locked.state
        if retry_in is not None and locked.attempts < settings.CAPTURE_MAX_ATTEMPTS:
            locked.state = CaptureState.PENDING
            locked.next_attempt_at = timezone.now() + timedelta(seconds=retry_in)
            locked.outcome = notes.coded("capture_retry", gettext_noop(
                "attempt %(n)s failed (%(error)s); next attempt in %(seconds)s s"),
                n=locked.attempts, error=_short(error), seconds=round(retry_in))
            _queue(locked, retry_in)
        else:
            locked.state, locked.finished_at = CaptureState.FAILED, timezone.now()
            locked.next_attempt_at = None
            locked.outcome = notes.coded("capture_failed", gettext_noop(
                "capture failed after %(n)s attempts: %(error)s"),
                n=locked.attempts, error=_short(error))
        locked.save(update_fields=["state", "next_attempt_at", "outcome", "finished_at"])
        _audit(locked, old, locked.state, locked.outcome)
    return locked


def _short(error: str) -> str:
    """``error`` cut to 300 characters, unless it is a coded note (put into words when shown)."""
    return error if error.startswith(notes.PREFIX) else error[:300]


def do_retry_capture(capture: Capture, acting_user=None) -> Capture:
    """Send a pending capture (its task lost) again now, or a failed one on a person's request
    (``acting_user``; its attempts start again). Returns the Capture."""
    with transaction.atomic():
        locked = Capture.objects.select_for_update().get(pk=capture.pk)
        old = locked.state
        if locked.state == CaptureState.FAILED:
            locked.attempts = 0
        locked.state, locked.next_attempt_at = CaptureState.PENDING, None
        locked.save(update_fields=["state", "next_attempt_at", "attempts"])
        _audit(locked, old, CaptureState.PENDING, notes.coded(
            "capture_sent_again", gettext_noop("sent again")), user=acting_user)
        _queue(locked)
    return locked


def do_stamp_capture(capture: Capture, bundle: bytes, *, bundle_sha256: str, token: bytes,
                     authority: str, time) -> Capture:
    """A capture made while no TSA answered got its timestamp later: store ``bundle`` (the
    same files, with the token in datapackage-digest.json) as its new bundle file. The
    earlier file stays in the storage (bundles are never deleted); the audit trail records
    both digests. An outcome that said "timestamp pending" now says when and by whom it was
    stamped. Returns the Capture."""
    name = f"capture-{capture.pk}-{bundle_sha256[:12]}.wacz"
    with transaction.atomic():
        locked = Capture.objects.select_for_update().get(pk=capture.pk)
        before = locked.bundle_sha256
        locked.bundle.save(name, ContentFile(bundle), save=False)
        locked.bundle_sha256, locked.bundle_bytes = bundle_sha256, len(bundle)
        locked.timestamp_status, locked.timestamp_token = TimestampStatus.STAMPED, token
        locked.timestamp_authority, locked.timestamped_at = authority, time
        if notes.code_of(locked.outcome) == "captured_tsa_pending":
            locked.outcome = notes.coded("captured_stamped_later", gettext_noop(
                "%(outcome)s; timestamped later by %(tsa)s at %(time)s UTC"),
                outcome=notes.params_of(locked.outcome)["outcome"], tsa=authority,
                time=f"{time:%Y-%m-%d %H:%M:%S}")
        locked.save()
        _audit(locked, TimestampStatus.PENDING, TimestampStatus.STAMPED, notes.coded(
            "capture_stamped", gettext_noop(
                "timestamped by %(tsa)s at %(time)s UTC; bundle SHA-256 %(before)s -> %(after)s"),
            tsa=authority, time=f"{time:%Y-%m-%d %H:%M:%S}", before=before, after=bundle_sha256))
    return locked


def do_expire_capture(capture: Capture) -> Capture:
    """Delete the bundle file of ``capture`` at the end of its retention
    (settings.EVIDENCE_RETENTION_DAYS > 0 only; the default 0 keeps every bundle for ever).
    The row, its digests and its audit trail stay. Returns the Capture."""
    with transaction.atomic():
        locked = Capture.objects.select_for_update().get(pk=capture.pk)
        name = locked.bundle.name
        locked.bundle.delete(save=False)
        locked.save(update_fields=["bundle"])
        _audit(locked, CaptureState.DONE, "expired", notes.coded(
            "capture_expired", gettext_noop(
                "bundle %(name)s (SHA-256 %(sha)s) deleted after the retention of %(days)s days"),
            name=name, sha=locked.bundle_sha256, days=settings.EVIDENCE_RETENTION_DAYS))
    return locked
