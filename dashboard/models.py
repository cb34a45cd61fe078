"""The dashboard's own records: takedown notices, their e-mails and reminders, and API tokens.

Matches themselves (with their review status) are the crawler's (``crawler.models``); the audit
trail is the core app's (``core.models.AuditEvent``).
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core import notes


class NoticeStatus(models.TextChoices):
    """Where a takedown notice is: drafted -> sent -> removed / counter-notice."""

    DRAFTED = "drafted", _("drafted")
    SENT = "sent", _("sent")
    REMOVED = "removed", _("content removed")
    COUNTER = "counter_notice", _("counter-notice received")


class NoticeEvent(models.TextChoices):
    """The states of a notice's events in the audit trail: its statuses and its e-mails'."""

    DRAFTED = NoticeStatus.DRAFTED.value, _("drafted")
    SENT = NoticeStatus.SENT.value, _("sent")
    REMOVED = NoticeStatus.REMOVED.value, _("content removed")
    COUNTER = NoticeStatus.COUNTER.value, _("counter-notice received")
    MAIL_QUEUED = "mail queued", _("e-mail queued")
    MAIL_RETRYING = "mail retrying", _("e-mail retrying")
    MAIL_FAILED = "mail failed", _("e-mail failed")
    MAIL_REFUSED = "mail refused", _("e-mail refused")
    REMINDED = "reminded", _("staff reminded")


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


class RecipientRole(models.TextChoices):
    """Who a notice goes to, in the order a case escalates (``dashboard.escalation``): the
    site itself, its hosting provider, its domain's registrar, the platform it lives on."""

    SITE = "site", _("the site")
    HOST = "host", _("hosting provider")
    REGISTRAR = "registrar", _("domain registrar")
    PLATFORM = "platform", _("platform")


class TakedownNotice(models.Model):
    """A request to one site to remove a holder's copied works.

    Attributes:
        domain: the infringing site's host name, e.g. "news.example.com".
        matches: the confirmed matches the notice cites.
        content: the notice's facts frozen when drafted (holder's name, contact and address,
            works, URLs, passages and capture times): a JSON dict made by
            ``dashboard.notices.snapshot``; the document is rendered from it while ``body``
            is empty.
        body: the notice's text as edited while drafted (``dashboard.notice_actions.do_edit_notice``)
            and frozen when sent (``do_advance_notice`` stores the text sent); "" while the
            text is still the one rendered from ``content``.
        recipient_role: who ``recipient`` is (RecipientRole); ``escalation_of``: the notice
            this one escalates (its ``content["escalation"]`` cites it), None for a first one.
        escalation_note: why this notice was not escalated yet (a coded note,
            ``core.notes``; "" when it was, or was never due).
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
    body = models.TextField(_("notice text"), blank=True,
                            help_text=_("Editable while the notice is drafted; frozen when it "
                                        "is sent. Empty it to go back to the generated text."))
    status = models.CharField(_("status"), max_length=16, choices=NoticeStatus.choices,
                              default=NoticeStatus.DRAFTED, db_index=True)
    drafted_at = models.DateTimeField(_("drafted"), default=timezone.now, editable=False)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, editable=False)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True, editable=False)
    counter_notice_at = models.DateTimeField(_("counter-notice"), null=True, blank=True,
                                             editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("drafted by"),
                                   null=True, on_delete=models.SET_NULL, related_name="+")
    recipient_role = models.CharField(_("recipient's role"), max_length=16,
                                      choices=RecipientRole.choices, default=RecipientRole.SITE)
    escalation_of = models.ForeignKey("self", verbose_name=_("escalates notice"), null=True,
                                      blank=True, on_delete=models.SET_NULL,
                                      related_name="escalations", editable=False)
    escalation_note = models.TextField(_("not escalated because"), blank=True, editable=False)

    class Meta:
        verbose_name = _("takedown notice")
        verbose_name_plural = _("takedown notices")
        ordering = ["-drafted_at", "-id"]

    def __str__(self) -> str:
        return _("Notice #%(id)s to %(domain)s") % {"id": self.pk, "domain": self.domain}

    @property
    def escalation_note_words(self) -> str:
        """Why the notice was not escalated, in words of the active language ("" for none)."""
        return notes.in_words(self.escalation_note)

    def audit_subject(self) -> str:
        """The notice's name for the audit trail: a coded note (``core.notes``), read in
        each reader's language rather than the acting person's."""
        return notes.coded("notice", gettext_noop("Notice #%(id)s to %(domain)s"), id=self.pk,
                           domain=self.domain)


class MailStatus(models.TextChoices):
    """Where the e-mail of a notice is: queued -> sent, or retrying (SMTP down, 4xx) ->
    sent / failed (gave up, with the reason), or refused (a 5xx answer: final)."""

    QUEUED = "queued", _("queued")
    RETRYING = "retrying", _("retrying")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")
    REFUSED = "refused", _("refused")


#: The statuses of a notice e-mail still on its way.
MAIL_PENDING = (MailStatus.QUEUED, MailStatus.RETRYING)


def mail_error_words(error: str) -> str:
    """A stored e-mail ``error`` (a coded note of ``notice_mail.failure_note``, or the exception
    text stored before there were such notes) in words of the active language, without the
    technical detail; "" for none."""
    if not error:
        return ""
    return notes.in_words(error) if notes.code_of(error) else str(_("the e-mail could not be sent"))


def mail_error_detail(error: str) -> str:
    """The technical detail of a stored e-mail ``error`` ("ConnectionRefusedError: ..."), shown
    to staff only; "" for none."""
    return str(notes.params_of(error).get("detail", "")) if notes.code_of(error) else error


class MailErrorWords:
    """The ``error`` field of an e-mail model (NoticeMail, NoticeReminder) read for people."""

    error: str

    @property
    def error_words(self) -> str:
        """Why the last attempt failed in words of the active language, without technical
        detail ("" for none): ``mail_error_words``."""
        return mail_error_words(self.error)

    @property
    def error_detail(self) -> str:
        """The technical detail of the last failure, for staff ("" for none)."""
        return mail_error_detail(self.error)


class NoticeMail(MailErrorWords, models.Model):
    """One sending of a takedown notice by e-mail (``dashboard.notice_mail``).

    Attributes:
        notice: the notice sent; its text is frozen when the sending is asked.
        recipient: the address it goes to (the site's confirmed takedown contact).
        status: a MailStatus value; attempts: SMTP transactions tried.
        smtp_reply: the server's last answer ("250 OK ..." once accepted, else its refusal).
        message_id: the Message-ID header of the mail, e.g. "<...@tracker.example>".
        error: why the last attempt failed; next_attempt_at: when it is tried again.
        asked_by / asked_at: who asked to send it, when; sent_at: when the server took it.
    """

    notice = models.ForeignKey(TakedownNotice, verbose_name=_("takedown notice"),
                               on_delete=models.CASCADE, related_name="mails")
    recipient = models.EmailField(_("recipient"), max_length=254)
    status = models.CharField(_("status"), max_length=16, choices=MailStatus.choices,
                              default=MailStatus.QUEUED, db_index=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    smtp_reply = models.TextField(_("SMTP answer"), blank=True)
    message_id = models.CharField(_("Message-ID"), max_length=255, blank=True)
    error = models.TextField(_("error"), blank=True)
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("asked by"), null=True,
                                 on_delete=models.SET_NULL, related_name="+")
    asked_at = models.DateTimeField(_("asked"), default=timezone.now)
    attempted_at = models.DateTimeField(_("last attempt"), null=True, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("notice e-mail")
        verbose_name_plural = _("notice e-mails")
        ordering = ["-asked_at", "-id"]

    def __str__(self) -> str:
        return f"{self.notice} -> {self.recipient}"


class NoticeReminder(MailErrorWords, models.Model):
    """The reminder to staff that the pages of a sent notice are still up: one per notice and
    period (``period`` n: n x settings.NOTICE_REMINDER_DAYS days after the notice was sent).

    Attributes:
        recipients: the addresses mailed (list of str); sent_at: when the SMTP server took it,
            None while not yet; attempts and error: its tries and the last failure.
    """

    notice = models.ForeignKey(TakedownNotice, verbose_name=_("takedown notice"),
                               on_delete=models.CASCADE, related_name="reminders")
    period = models.PositiveIntegerField(_("period"))
    pages_up = models.PositiveIntegerField(_("pages still up"), default=0)
    recipients = models.JSONField(_("recipients"), default=list)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        verbose_name = _("notice reminder")
        verbose_name_plural = _("notice reminders")
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["notice", "period"],
                                               name="notice_reminder_once_per_period")]

    def __str__(self) -> str:
        return f"{self.notice} ({self.period})"


class ApiToken(models.Model):
    """A user's token for the REST API (``Authorization: Bearer <token>``, dashboard/api/).

    The raw token (``secrets.token_urlsafe(settings.API_TOKEN_BYTES)``, about 43 characters) is
    shown once when created (``ApiToken.issue``); only its hex SHA-256 is stored, with its first
    ``settings.API_TOKEN_PREFIX_CHARS`` characters kept to tell tokens apart. A revoked token
    (``revoked_at`` set) authenticates no more.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"),
                             on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=100,
                            help_text=_("What the token is for, e.g. the system that uses it."))
    prefix = models.CharField(_("prefix"), max_length=16, editable=False)
    digest = models.CharField(_("SHA-256"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def hash(raw: str) -> str:
        """Hex SHA-256 (64 characters) of the raw token ``raw`` encoded as UTF-8."""
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def issue(self) -> str:
        """Give this unsaved token a new random secret; returns the raw token (to show once)."""
        raw = secrets.token_urlsafe(settings.API_TOKEN_BYTES)
        self.prefix = raw[:settings.API_TOKEN_PREFIX_CHARS]
        self.digest = self.hash(raw)
        return raw


def _check_rights_file(upload) -> None:
    """A rights document is at most settings.RIGHTS_DOCUMENT_MAX_BYTES, of a type of
    settings.RIGHTS_DOCUMENT_TYPES whose content starts as that type does (PDF, PNG, JPEG)."""
    name = (upload.name or "").lower()
    extension = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    if upload.size > settings.RIGHTS_DOCUMENT_MAX_BYTES:
        raise ValidationError(_("The file is %(size)s MB; at most %(limit)s MB are accepted.") % {
            "size": round(upload.size / 1048576, 1),
            "limit": round(settings.RIGHTS_DOCUMENT_MAX_BYTES / 1048576, 1)})
    if extension not in settings.RIGHTS_DOCUMENT_TYPES:
        raise ValidationError(_("Only these file types are accepted: %(types)s.") % {
            "types": ", ".join(settings.RIGHTS_DOCUMENT_TYPES)})
    upload.seek(0)
    head = upload.read(8)
    upload.seek(0)
    magic = {".pdf": (b"%PDF-",), ".png": (b"\x89PNG\r\n\x1a\n",), ".jpg": (b"\xff\xd8\xff",),
             ".jpeg": (b"\xff\xd8\xff",)}
    if not head.startswith(magic.get(extension, (b"",))):
        raise ValidationError(_("The file's content is not a %(type)s file.") % {
            "type": extension.lstrip(".").upper()})


class RightsDocument(models.Model):
    """A document proving the holder's rights (copyright registration, publishing contract,
    licence), for a holder's works or for one ``work``; complaint packages to platforms carry
    it (``dashboard.complaint_package``). Uploaded through ``dashboard.rights_documents``'
    ``do_upload_rights_document`` (audited), checked by ``_check_rights_file``."""

    holder = models.ForeignKey("core.RightsHolder", verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="rights_documents")
    work = models.ForeignKey("core.Work", verbose_name=_("work"), null=True, blank=True,
                             on_delete=models.CASCADE, related_name="rights_documents",
                             help_text=_("Leave empty for a document covering all the "
                                         "holder's works."))
    title = models.CharField(_("title"), max_length=200)
    file = models.FileField(_("file"), upload_to="rights/%Y/%m/",
                            validators=[_check_rights_file])
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("uploaded by"),
                                    null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    uploaded_at = models.DateTimeField(_("uploaded"), default=timezone.now)

    class Meta:
        verbose_name = _("rights document")
        verbose_name_plural = _("rights documents")
        ordering = ["-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return self.title


class EvidenceReport(models.Model):
    """A match's signed evidence report (PDF), made once per capture and language and kept, so
    that every download, mail and complaint package gives the same bytes; their ``sha256``
    (hex) is also in the audit trail (``dashboard.evidence_reports``)."""

    match = models.ForeignKey("crawler.Match", verbose_name=_("match"), on_delete=models.CASCADE,
                              related_name="evidence_reports")
    capture = models.ForeignKey("evidence.Capture", verbose_name=_("capture"), null=True,
                                blank=True, on_delete=models.CASCADE, related_name="+")
    language = models.CharField(_("language"), max_length=16)
    pdf = models.BinaryField(_("PDF"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    made_at = models.DateTimeField(_("made"), default=timezone.now)
    made_by = models.CharField(_("made for"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("evidence report")
        verbose_name_plural = _("evidence reports")
        constraints = [models.UniqueConstraint(
            fields=["match", "capture", "language"], nulls_distinct=False,
            name="one_evidence_report_per_capture_and_language")]
