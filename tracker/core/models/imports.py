"""Imports of a .zip of works started in the dashboard (tracker.core.import_jobs), with the
progress row the page polls."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .holders import RightsHolder


class ImportState(models.TextChoices):
    """running: the worker is reading the archive; finished: every item was handled (each one
    registered, skipped or reported); failed: the archive could not be read, or the job stopped
    moving (``error`` says why)."""

    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")


class ImportJob(models.Model):
    """One archive of works imported for a holder, as ``manage.py import_works`` does.

    Attributes:
        name: the uploaded file's name.
        language: the uploader's language code; the worker words the reasons in it.
        done, total: items (works) handled so far and in all (0 until the archive is read).
        summary: ``tracker.core.importing.ImportSummary`` as a dict of lists, once finished.
        updated_at: last progress; a running job not updated for
            settings.IMPORT_STUCK_SECONDS is failed by ``import_jobs.fail_stale``.
    """

    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), null=True,
                             on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(_("file"), max_length=500)
    language = models.CharField(_("language"), max_length=16, blank=True)
    state = models.CharField(_("status"), max_length=16, choices=ImportState.choices,
                             default=ImportState.RUNNING, db_index=True)
    done = models.PositiveIntegerField(_("done"), default=0)
    total = models.PositiveIntegerField(_("total"), default=0)
    summary = models.JSONField(_("summary"), default=dict, blank=True)
    error = models.TextField(_("error"), blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("import of works")
        verbose_name_plural = _("imports of works")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.done}/{self.total})"
