"""Rights holders: the organizations that register works and receive match reports."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.validators import no_control_characters


class RightsHolder(models.Model):
    """An organization owning works (a publisher, a news agency, an author's agent).

    Its users see and change only its own data; its contact details and address are printed on
    takedown notices. A user may belong to several holders (``users`` is many-to-many).
    Platform staff (superusers, or users with the permission ``core.view_all_holders``, which the
    group "Platform staff" carries) see every holder.
    """

    name = models.CharField(_("organization name"), max_length=200, unique=True,
                            validators=[no_control_characters])
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL, verbose_name=_("users"), related_name="rights_holders",
        blank=True, help_text=_("Accounts that act for this rights holder."))
    contact_person = models.CharField(_("contact person"), max_length=200, blank=True)
    email = models.EmailField(_("email"), blank=True)
    phone = models.CharField(_("phone"), max_length=50, blank=True)
    address = models.TextField(_("postal address"), blank=True)
    website = models.URLField(_("website"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("rights holder")
        verbose_name_plural = _("rights holders")
        ordering = ["name"]
        permissions = [("view_all_holders", _("Can see and change every rights holder's data"))]

    def __str__(self) -> str:
        return self.name
