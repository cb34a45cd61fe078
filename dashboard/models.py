"""The dashboard's own records: takedown notices.

Matches themselves (with their review status) are the crawler's (``crawler.models``); the audit
trail is the core app's (``tracker.core.models.AuditEvent``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class NoticeStatus(models.TextChoices):
    """Where a takedown notice is: drafted -> sent -> removed / counter-notice."""

    DRAFTED = "drafted", _("drafted")
    SENT = "sent", _("sent")
    REMOVED = "removed", _("content removed")
    COUNTER = "counter_notice", _("counter-notice received")


# status -> statuses it may move to, and the date field each move sets.
NOTICE_TRANSITIONS: dict[str, tuple[str, ...]] = {
    NoticeStatus.DRAFTED: (NoticeStatus.SENT,),
    NoticeStatus.SENT: (NoticeStatus.REMOVED, NoticeStatus.COUNTER),
    NoticeStatus.REMOVED: (),
    NoticeStatus.COUNTER: (),
}
NOTICE_DATE_FIELDS = {NoticeStatus.SENT: "sent_at", NoticeStatus.REMOVED: "removed_at",
                      NoticeStatus.COUNTER: "counter_notice_at"}


class NoticeLanguage(models.TextChoices):
    """The language a notice is written in."""

    ZH_HANS = "zh-hans", _("Chinese")
    EN = "en", _("English")


class TakedownNotice(models.Model):
    """A request to one site to remove a holder's copied works.

    Attributes:
        domain: the infringing site's host name, e.g. "news.example.com".
        matches: the confirmed matches the notice cites.
        content: the notice's facts frozen when drafted (holder's name, contact and address,
            works, URLs, passages and capture times): a JSON dict made by
            ``dashboard.notices.snapshot``; the document is always rendered from it.
    """

    holder = models.ForeignKey("core.RightsHolder", verbose_name=_("rights holder"),
                               on_delete=models.PROTECT, related_name="takedown_notices")
    domain = models.CharField(_("infringing site"), max_length=255)
    recipient = models.CharField(_("recipient"), max_length=500, blank=True,
                                 help_text=_("Who the notice goes to (site operator, "
                                             "abuse or legal address)."))
    language = models.CharField(_("language"), max_length=16, choices=NoticeLanguage.choices,
                                default=NoticeLanguage.ZH_HANS)
    matches = models.ManyToManyField("crawler.Match", verbose_name=_("matches"),
                                     related_name="takedown_notices")
    content = models.JSONField(_("notice content"), default=dict, editable=False)
    status = models.CharField(_("status"), max_length=16, choices=NoticeStatus.choices,
                              default=NoticeStatus.DRAFTED, db_index=True)
    drafted_at = models.DateTimeField(_("drafted"), default=timezone.now, editable=False)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, editable=False)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True, editable=False)
    counter_notice_at = models.DateTimeField(_("counter-notice"), null=True, blank=True,
                                             editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("drafted by"),
                                   null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = _("takedown notice")
        verbose_name_plural = _("takedown notices")
        ordering = ["-drafted_at", "-id"]

    def __str__(self) -> str:
        return _("Notice #%(id)s to %(domain)s") % {"id": self.pk, "domain": self.domain}
