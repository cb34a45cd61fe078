"""A person's own preferences for the whole platform: the time zone pages, reports and mails
show times in (core.timezones)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class UserSettings(models.Model):
    """One user's preferences, created on first change (``user_actions.do_update_user_settings``).

    Attributes:
        user: the person (one row each).
        time_zone: an IANA time zone name, e.g. "America/New_York"; "" means
            settings.TIME_ZONE.
        updated_at: when last changed.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"),
                                on_delete=models.CASCADE, related_name="tracker_settings")
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("user settings")
        verbose_name_plural = _("user settings")

    def __str__(self) -> str:
        return f"{self.user} ({self.time_zone or settings.TIME_ZONE})"
