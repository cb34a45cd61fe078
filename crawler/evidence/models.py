"""The evidence captures of matches.

A Capture is one fixation of a matched page: ``detection`` when a page version first matched a
work, ``removal`` when a takedown check found the page gone or changed (proof of removal, with
its own time). Its bundle is a WACZ file in the storage "evidence" (settings.STORAGES); nothing
on the platform deletes it (re-crawls, page changes and takedown checks add captures, never
remove one; settings.EVIDENCE_RETENTION_DAYS is 0, for ever, by default).
"""

from __future__ import annotations

from django.core.files.storage import storages
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from crawler.models import Match, TakedownCheck


def evidence_storage():
    """The storage of the bundles: ``storages["evidence"]`` (settings.STORAGES)."""
    return storages["evidence"]


class CaptureKind(models.TextChoices):
    """What a capture proves: the copy found (detection), or its removal."""

    DETECTION = "detection", _("detection")
    REMOVAL = "removal", _("removal")


class CaptureState(models.TextChoices):
    """Where a capture is: pending (queued), running, done (bundle stored), failed (given up)."""

    PENDING = "pending", _("pending")
    RUNNING = "running", _("running")
    DONE = "done", _("captured")
    FAILED = "failed", _("failed")


class TimestampStatus(models.TextChoices):
    """The bundle's RFC 3161 timestamp: none (no TSA configured), pending (no TSA answered yet:
    the sweeper asks again), stamped."""

    NONE = "none", _("no trusted timestamp")
    PENDING = "pending", _("timestamp pending")
    STAMPED = "stamped", _("trusted timestamp")


class CaptureQuerySet(models.QuerySet):
    """Captures, with the lookup of the bundle a download gives."""

    def bundle_of(self, match_id: int, capture_id: int | None = None) -> Capture | None:
        """The finished capture of match ``match_id`` whose bundle a download gives: capture
        ``capture_id`` when given, else the newest detection capture (else the newest one)."""
        done = self.filter(match_id=match_id, state=CaptureState.DONE).exclude(bundle="")
        if capture_id is not None:
            return done.filter(pk=capture_id).first()
        return done.order_by("kind", "-finished_at", "-id").first()  # "detection" sorts first


class Capture(models.Model):
    """One evidence capture of a match.

    Attributes:
        match: the Match (kept NULL if the match row is ever deleted: the capture stays).
        kind: a CaptureKind; takedown_check: the TakedownCheck that found the page gone or changed
            (removal captures).
        version_id: the page version captured (detection) or the match's version (removal).
        url: the URL fetched; exchange_key: the key of its raw exchange in the stash
            (lib.crawl.exchange.ExchangeStash).
        state: a CaptureState; outcome: a coded note (core.notes), e.g. "captured",
            "captured without screenshot: render timeout"; attempts: tasks started.
        bundle: the WACZ file; bundle_sha256 (hex) and bundle_bytes; datapackage_sha256: hex
            SHA-256 of its datapackage.json (what a timestamp covers).
        timestamp_status, timestamp_token (RFC 3161 TimeStampToken, DER), timestamp_authority
            (the TSA's URL), timestamped_at (the time in the token).
        created_at, started_at, finished_at; next_attempt_at: when the sweeper may send it again.
    """

    match = models.ForeignKey(Match, verbose_name=_("match"), null=True,
                              on_delete=models.SET_NULL, related_name="captures")
    kind = models.CharField(_("kind"), max_length=16, choices=CaptureKind.choices,
                            default=CaptureKind.DETECTION)
    takedown_check = models.ForeignKey(TakedownCheck, verbose_name=_("takedown check"), null=True,
                              blank=True, on_delete=models.SET_NULL, related_name="captures")
    version_id = models.CharField(_("page version id"), max_length=24)
    url = models.CharField(_("URL"), max_length=2048)
    exchange_key = models.CharField(_("exchange key"), max_length=64, blank=True)
    state = models.CharField(_("state"), max_length=16, choices=CaptureState.choices,
                             default=CaptureState.PENDING, db_index=True)
    outcome = models.TextField(_("outcome"), blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    bundle = models.FileField(_("bundle"), storage=evidence_storage, upload_to="captures/%Y/%m/",
                              max_length=300, blank=True)
    bundle_sha256 = models.CharField(_("bundle SHA-256"), max_length=64, blank=True)
    bundle_bytes = models.PositiveBigIntegerField(_("bundle size"), null=True, blank=True)
    datapackage_sha256 = models.CharField(_("datapackage SHA-256"), max_length=64, blank=True)
    timestamp_status = models.CharField(_("timestamp"), max_length=16,
                                        choices=TimestampStatus.choices,
                                        default=TimestampStatus.NONE)
    timestamp_token = models.BinaryField(_("timestamp token"), null=True, blank=True)
    timestamp_authority = models.CharField(_("time-stamping authority"), max_length=500,
                                           blank=True)
    timestamped_at = models.DateTimeField(_("timestamp time"), null=True, blank=True)
    created_at = models.DateTimeField(_("requested"), default=timezone.now, db_index=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)

    objects = CaptureQuerySet.as_manager()

    class Meta:
        verbose_name = _("evidence capture")
        verbose_name_plural = _("evidence captures")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "version_id"],
                                    condition=Q(kind="detection"),
                                    name="capture_one_detection_per_version"),
            models.UniqueConstraint(fields=["takedown_check"], condition=Q(kind="removal"),
                                    name="capture_one_removal_per_check"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.url}"

    def closed_capture(self) -> Capture | None:
        """The detection capture a removal capture closes: the newest finished detection
        capture of the same match requested before it. None for a detection capture, or when
        the match had none (or its row is gone)."""
        if self.kind != CaptureKind.REMOVAL or self.match_id is None:
            return None
        return (Capture.objects.filter(match_id=self.match_id, kind=CaptureKind.DETECTION,
                                       state=CaptureState.DONE, pk__lt=self.pk)
                .order_by("-pk").first())


class RegistrationProof(models.Model):
    """The holder's proof that a work's text existed when it was registered: an RFC 3161
    timestamp over the SHA-256 of its UTF-8 text (``Work.sha256``), one per text a work has had.

    Attributes:
        work: the Work; text_sha256: the hex digest stamped.
        status: a TimestampStatus (pending: no TSA answered yet, the capture sweeper asks again).
        token: the TSA's DER TimeStampResp; authority: its URL; stamped_at: the time in it.
        problem: why it is still pending ('' otherwise); created_at.
    """

    work = models.ForeignKey("core.Work", verbose_name=_("work"), on_delete=models.CASCADE,
                             related_name="registration_proofs")
    text_sha256 = models.CharField(_("text SHA-256"), max_length=64)
    status = models.CharField(_("timestamp"), max_length=16, choices=TimestampStatus.choices,
                              default=TimestampStatus.PENDING, db_index=True)
    token = models.BinaryField(_("timestamp token"), null=True, blank=True)
    authority = models.CharField(_("time-stamping authority"), max_length=500, blank=True)
    stamped_at = models.DateTimeField(_("timestamp time"), null=True, blank=True)
    problem = models.TextField(_("problem"), blank=True)
    created_at = models.DateTimeField(_("requested"), default=timezone.now)

    class Meta:
        verbose_name = _("registration proof")
        verbose_name_plural = _("registration proofs")
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["work", "text_sha256"],
                                               name="registration_proof_one_per_text")]

    def __str__(self) -> str:
        return f"{self.work} {self.text_sha256[:12]}"
