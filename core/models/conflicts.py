"""Rights conflicts: two rights holders registered the same text (core.conflicts).

Created and resolved only through ``core.conflict_actions.do_flag_rights_conflict`` and
``do_resolve_rights_conflict``; only platform staff see them (a holder never learns of the other
holder's work from the platform).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .works import Work


class ConflictStatus(models.TextChoices):
    """open: staff must look at it; resolved: a member of staff decided (``note`` says what)."""

    OPEN = "open", _("open")
    RESOLVED = "resolved", _("resolved")


class RightsConflict(models.Model):
    """Two works of different rights holders that share at least
    settings.DUPLICATE_MIN_CONTAINMENT of their text.

    Attributes:
        existing: the work registered first.
        claimed: the work registered later, whose ingestion (or upload) found ``existing``.
        containment: the larger of the two containments (0..1, Engine.verify's score): share
            of ``claimed`` found in ``existing`` or of ``existing`` found in ``claimed``.
        passages: the shared passages, ``[{"page_start", "page_end", "work_start",
            "work_end"}]``, character offsets in ``claimed`` (page) and ``existing`` (work).
        status, resolved_by, resolved_at, note: staff's decision.
    """

    existing = models.ForeignKey(Work, verbose_name=_("registered work"),
                                 on_delete=models.CASCADE, related_name="+")
    claimed = models.ForeignKey(Work, verbose_name=_("new work"), on_delete=models.CASCADE,
                                related_name="+")
    containment = models.FloatField(_("containment"))
    passages = models.JSONField(_("shared passages"), default=list, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=ConflictStatus.choices,
                              default=ConflictStatus.OPEN, db_index=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("resolved by"),
                                    null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    resolved_at = models.DateTimeField(_("resolved on"), null=True, blank=True)
    note = models.TextField(_("resolution note"), blank=True)
    created_at = models.DateTimeField(_("flagged"), auto_now_add=True)

    class Meta:
        verbose_name = _("rights conflict")
        verbose_name_plural = _("rights conflicts")
        ordering = ["status", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["existing", "claimed"],
                                               name="rights_conflict_pair_unique")]

    def __str__(self) -> str:
        return f"{self.existing.title} ↔ {self.claimed.title}"
