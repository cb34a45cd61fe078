"""Import jobs started in the dashboard or the API (core.import_jobs): a .zip of works,
or one uploaded work file, with the progress row the page and the API poll."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .holders import RightsHolder
from .works import Work


class ImportState(models.TextChoices):
    """running: the worker is reading the archive; finished: every item was handled (each one
    registered, skipped or reported); failed: the archive could not be read, or the job stopped
    moving (``error`` says why)."""

    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")


class ImportKind(models.TextChoices):
    """archive: a .zip of works (``core.bulk_import``); file: one work file
    (``core.single_upload``)."""

    ARCHIVE = "archive", _("archive of works")
    FILE = "file", _("work file")


class ImportJob(models.Model):
    """One archive of works, or one work file, imported for a holder in the worker.

    Attributes:
        name: the uploaded file's name.
        language: the uploader's language code; the worker words the reasons in it.
        done, total: archive: items (works) handled so far and in all (0 until the archive is
            read); file: steps done of ``single_upload.STEPS``.
        summary: archive: ``core.bulk_import.ImportSummary`` as a dict of lists, once
            finished; file: {"existing_work": id} when refused as a duplicate.
        options: file: what the work gets (``single_upload.start``'s options: reference, title,
            author, kind, language, allow_duplicate); archive: {"resumed": n} once queued
            again after a stall.
        work: file: the work registered or updated, once finished.
        error_code: a stable code of why it failed (the UploadError codes, "duplicate_work",
            "timeout", "stalled", "internal"); "" otherwise.
        updated_at: last progress; a running job not updated for
            settings.IMPORT_STUCK_SECONDS is resumed (archive) or failed by
            ``import_jobs.fail_stale``.
    """

    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), null=True,
                             on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(_("kind"), max_length=16, choices=ImportKind.choices,
                            default=ImportKind.ARCHIVE)
    name = models.CharField(_("file"), max_length=500)
    language = models.CharField(_("language"), max_length=16, blank=True)
    state = models.CharField(_("status"), max_length=16, choices=ImportState.choices,
                             default=ImportState.RUNNING, db_index=True)
    done = models.PositiveIntegerField(_("done"), default=0)
    total = models.PositiveIntegerField(_("total"), default=0)
    summary = models.JSONField(_("summary"), default=dict, blank=True)
    options = models.JSONField(_("options"), default=dict, blank=True)
    work = models.ForeignKey(Work, verbose_name=_("work"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    error = models.TextField(_("error"), blank=True)
    error_code = models.CharField(_("error code"), max_length=32, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("import of works")
        verbose_name_plural = _("imports of works")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.done}/{self.total})"


class ImportItem(models.Model):
    """What one item (work) of an archive job became, committed in the same transaction as the
    work it registered: a job started again (its worker lost, the task delivered again) goes on
    after the last item recorded, and its summary still names every item.

    Attributes:
        position: the item's place in the archive's list of items (0-based; unique per job).
        reference: the work's reference (or the file's name when it could not be read).
        source: the file (and line) it came from.
        outcome: "registered", "updated", "skipped", "duplicate" or "failed".
        detail: the reason (skipped, failed) or the work it duplicates ("reference (NN%)").
        work: the work registered, updated or skipped, else None.
        queued: True when the work's ingestion was queued.
    """

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    reference = models.CharField(max_length=500)
    source = models.CharField(max_length=1000)
    outcome = models.CharField(max_length=16)
    detail = models.TextField(blank=True)
    work = models.ForeignKey(Work, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    queued = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "position"],
                                               name="import_item_once")]
        ordering = ["job", "position"]
