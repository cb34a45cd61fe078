"""Alert preferences of a user, webhook endpoints of a rights holder and the delivery log."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.models import RightsHolder


class AlertPreference(models.Model):
    """What one user is sent.

    Attributes:
        user: the user (one row per user); the mail goes to ``user.email``.
        email_enabled: immediate alert mails on or off.
        min_score: matches below this score (0..1, the engine's score) are not alerted at once.
        digest_enabled: the daily digest mail on or off.
        language: the language of the mails ("zh-hans" or "en").
        last_digest_at: when the last digest was delivered (None: never).
        summary: the takedown summary per holder: "none", "weekly" or "monthly" (``Summary``).
    """

    class Summary(models.TextChoices):
        NONE = "none", _("none")
        WEEKLY = "weekly", _("weekly (each Monday, the week before)")
        MONTHLY = "monthly", _("monthly (on the 1st, the month before)")

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"),
                                on_delete=models.CASCADE, related_name="alert_preference")
    email_enabled = models.BooleanField(_("immediate e-mail alerts"), default=True)
    min_score = models.FloatField(_("minimum score for an immediate alert"), default=0.0,
                                  validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    digest_enabled = models.BooleanField(_("daily digest"), default=True)
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES,
                                default=settings.LANGUAGE_CODE)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    last_digest_at = models.DateTimeField(_("last digest"), null=True, blank=True)
    summary = models.CharField(_("takedown summary"), max_length=8, choices=Summary.choices,
                               default=Summary.NONE,
                               help_text=_("A mail (HTML with a PDF) per period: per rights "
                                           "holder, the cases found, confirmed, sent, "
                                           "escalated and removed, and the sites that ignore "
                                           "notices."))

    class Meta:
        verbose_name = _("alert preferences")
        verbose_name_plural = _("alert preferences")

    def __str__(self) -> str:
        return str(self.user)


def new_secret() -> str:
    """A fresh webhook secret: 64 hex characters (32 random bytes, ``secrets.token_hex``)."""
    return secrets.token_hex(32)


class WebhookEndpoint(models.Model):
    """An HTTP endpoint of a rights holder that receives a signed POST per new match.

    Attributes:
        holder: the rights holder whose matches are sent.
        url: the endpoint (http or https); must pass the crawler's SSRF guard.
        secret: the HMAC-SHA256 key of the X-Tracker-Signature header.
        format: "json" (the match as JSON) or "wecom" (a WeCom group-robot markdown message).
        min_score: matches below this score (0..1) are not sent.
        language: the language of WeCom messages ("zh-hans" or "en").
        enabled: False once disabled by hand or after ALERT_WEBHOOK_MAX_FAILURES failed
            deliveries in a row.
        consecutive_failures: failed deliveries since the last success.
    """

    class Format(models.TextChoices):
        JSON = "json", _("JSON")
        WECOM = "wecom", _("WeCom group robot (markdown)")

    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="webhooks")
    name = models.CharField(_("name"), max_length=200)
    url = models.URLField(_("URL"), max_length=2048)
    secret = models.CharField(_("secret"), max_length=200, default=new_secret)
    format = models.CharField(_("format"), max_length=8, choices=Format.choices,
                              default=Format.JSON)
    min_score = models.FloatField(_("minimum score"), default=0.0,
                                  validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES,
                                default=settings.LANGUAGE_CODE)
    enabled = models.BooleanField(_("enabled"), default=True)
    consecutive_failures = models.PositiveIntegerField(_("failures in a row"), default=0,
                                                       editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ["holder", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.holder})"


class Delivery(models.Model):
    """One alert of one match (or one digest mail) on one channel, or of the new and grown
    cases of a scan or of a stored-page search (kind "cases", with its ``scan`` or its
    ``search``: one mail per user listing ``cases``, one webhook event per ``case`` and
    endpoint): the delivery log.

    A scan's or a search's cases are alerted at most once per user and once per case and
    endpoint; a match is alerted at most once per user mail and once per endpoint (unique
    constraints);
    a digest row per (match, user) is written only after the digest mail was delivered; a
    takedown change (kind "removed" or "reopened", with the takedown check that found it) once
    per check and user or endpoint.
    """

    class Kind(models.TextChoices):
        IMMEDIATE = "immediate", _("immediate")
        DIGEST = "digest", _("digest")
        REMOVED = "removed", _("copy removed")
        REOPENED = "reopened", _("copy back")
        CASES = "cases", _("new and grown cases")

    class Channel(models.TextChoices):
        EMAIL = "email", _("e-mail")
        WEBHOOK = "webhook", _("webhook")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RETRYING = "retrying", _("retrying")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")
        REFUSED = "refused", _("refused")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    channel = models.CharField(_("channel"), max_length=8, choices=Channel.choices)
    match = models.ForeignKey("crawler.Match", verbose_name=_("match"), null=True, blank=True,
                              on_delete=models.CASCADE, related_name="deliveries")
    scan = models.ForeignKey("crawler.ScanRun", verbose_name=_("scan"), null=True, blank=True,
                             on_delete=models.CASCADE, related_name="+")
    search = models.ForeignKey("crawler.RematchJob", verbose_name=_("stored-page search"),
                               null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    case = models.ForeignKey("crawler.Case", verbose_name=_("case"), null=True, blank=True,
                             on_delete=models.CASCADE, related_name="+")
    cases = models.ManyToManyField("crawler.Case", verbose_name=_("cases"), blank=True,
                                   related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), null=True,
                             blank=True, on_delete=models.CASCADE, related_name="+")
    takedown_check = models.ForeignKey("crawler.TakedownCheck", verbose_name=_("takedown check"),
                                       null=True, blank=True, on_delete=models.CASCADE,
                                       related_name="+")
    endpoint = models.ForeignKey(WebhookEndpoint, verbose_name=_("webhook endpoint"), null=True,
                                 blank=True, on_delete=models.CASCADE, related_name="deliveries")
    recipient = models.CharField(_("recipient"), max_length=2048)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices,
                              default=Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    http_status = models.PositiveIntegerField(_("HTTP status"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("alert delivery")
        verbose_name_plural = _("alert deliveries")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "match", "user"],
                                    condition=Q(user__isnull=False,
                                                takedown_check__isnull=True),
                                    name="delivery_once_per_match_user"),
            models.UniqueConstraint(fields=["kind", "match", "endpoint"],
                                    condition=Q(endpoint__isnull=False,
                                                takedown_check__isnull=True),
                                    name="delivery_once_per_match_endpoint"),
            models.UniqueConstraint(fields=["kind", "takedown_check", "user"],
                                    condition=Q(user__isnull=False, takedown_check__isnull=False),
                                    name="delivery_once_per_check_user"),
            models.UniqueConstraint(fields=["kind", "takedown_check", "endpoint"],
                                    condition=Q(endpoint__isnull=False, takedown_check__isnull=False),
                                    name="delivery_once_per_check_endpoint"),
            models.UniqueConstraint(fields=["kind", "scan", "user"],
                                    condition=Q(scan__isnull=False, user__isnull=False),
                                    name="delivery_once_per_scan_user"),
            models.UniqueConstraint(fields=["kind", "scan", "case", "endpoint"],
                                    condition=Q(scan__isnull=False, endpoint__isnull=False),
                                    name="delivery_once_per_scan_case_endpoint"),
            models.UniqueConstraint(fields=["kind", "search", "user"],
                                    condition=Q(search__isnull=False, user__isnull=False),
                                    name="delivery_once_per_search_user"),
            models.UniqueConstraint(fields=["kind", "search", "case", "endpoint"],
                                    condition=Q(search__isnull=False, endpoint__isnull=False),
                                    name="delivery_once_per_search_case_endpoint"),
        ]

    def __str__(self) -> str:
        values = {"channel": self.get_channel_display(), "recipient": self.recipient}
        if self.case_id:
            return gettext("%(channel)s to %(recipient)s: case #%(id)s") % {
                **values, "id": self.case_id}
        if self.scan_id:
            return gettext("%(channel)s to %(recipient)s: scan #%(id)s") % {
                **values, "id": self.scan_id}
        if self.search_id:
            return gettext("%(channel)s to %(recipient)s: stored-page search #%(id)s") % {
                **values, "id": self.search_id}
        return gettext("%(channel)s to %(recipient)s: match #%(id)s") % {
            **values, "id": self.match_id}


class SummaryMail(models.Model):
    """The takedown summary of one user and one period: created before it is sent (one per
    user, cadence and period start: a task run twice sends nothing new), then marked.

    Attributes:
        cadence: "weekly" or "monthly" (``AlertPreference.Summary``).
        period_start, period_end: the period's first day and the day after its last, in the
            user's time zone.
        status: a ``Delivery.Status`` value (pending, retrying, sent, failed).
        attempts, last_error: the sending attempts and the last one's error.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"),
                             on_delete=models.CASCADE, related_name="+")
    cadence = models.CharField(_("cadence"), max_length=8,
                               choices=AlertPreference.Summary.choices)
    period_start = models.DateField(_("period start"))
    period_end = models.DateField(_("period end (exclusive)"))
    recipient = models.CharField(_("recipient"), max_length=254)
    status = models.CharField(_("status"), max_length=10, choices=Delivery.Status.choices,
                              default=Delivery.Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("takedown summary mail")
        verbose_name_plural = _("takedown summary mails")
        ordering = ["-period_start", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "cadence", "period_start"],
                                               name="summary_once_per_user_period")]

    def __str__(self) -> str:
        values = {"user": self.user, "start": self.period_start}
        if self.cadence == AlertPreference.Summary.MONTHLY:
            return gettext("%(user)s: monthly takedown summary from %(start)s") % values
        return gettext("%(user)s: weekly takedown summary from %(start)s") % values
