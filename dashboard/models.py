"""The dashboard's own records: the append-only audit trail and takedown notices.

Matches themselves (with their review status) are the crawler's (``tracker.core.models.matches``).
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditTrailError(RuntimeError):
    """Raised on any attempt to change or delete a recorded audit event."""


class AuditQuerySet(models.QuerySet):
    """Audit events can be read and added, never updated or deleted in bulk."""

    def update(self, **kwargs):
        raise AuditTrailError("the audit trail is append-only: events cannot be updated")

    def delete(self):
        raise AuditTrailError("the audit trail is append-only: events cannot be deleted")


class AuditEvent(models.Model):
    """One decision, in an append-only trail chained by SHA-256.

    Every event stores the digest of its content and of the previous event's digest
    (``sequence`` - 1), so that an edit made behind Django's back (raw SQL) breaks the chain and
    ``verify_chain`` finds it. Links to the match, notice, holder and user keep no database
    constraint: deleting any of them leaves the trail intact (``subject`` and ``username``
    keep what was decided about, and by whom).

    Attributes:
        sequence: 1, 2, 3 ... over the whole trail (unique).
        kind: "review" (a match's status) or "notice" (a takedown notice's status).
        old_state, new_state: the status before and after, e.g. "new" -> "confirmed".
        reason: the reviewer's reason, required for review decisions.
        subject: what the decision is about, e.g. the match's page URL.
        digest: hex SHA-256 over the previous digest and this event's content.
    """

    class Kind(models.TextChoices):
        REVIEW = "review", _("review decision")
        NOTICE = "notice", _("takedown notice")

    sequence = models.PositiveBigIntegerField(_("sequence"), unique=True, editable=False)
    at = models.DateTimeField(_("time"), default=timezone.now, editable=False, db_index=True)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), null=True,
                             on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    username = models.CharField(_("decided by"), max_length=150)
    holder = models.ForeignKey("core.RightsHolder", verbose_name=_("rights holder"), null=True,
                               on_delete=models.DO_NOTHING, db_constraint=False,
                               related_name="+")
    match = models.ForeignKey("core.Match", verbose_name=_("match"), null=True, blank=True,
                              on_delete=models.DO_NOTHING, db_constraint=False,
                              related_name="audit_events")
    notice = models.ForeignKey("dashboard.TakedownNotice", verbose_name=_("takedown notice"),
                               null=True, blank=True, on_delete=models.DO_NOTHING,
                               db_constraint=False, related_name="audit_events")
    subject = models.CharField(_("subject"), max_length=2000)
    old_state = models.CharField(_("from"), max_length=32)
    new_state = models.CharField(_("to"), max_length=32)
    reason = models.TextField(_("reason"), blank=True)
    digest = models.CharField(_("SHA-256"), max_length=64, editable=False)

    objects = AuditQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit trail")
        ordering = ["-sequence"]

    def __str__(self) -> str:
        return f"#{self.sequence} {self.old_state} → {self.new_state} ({self.username})"

    def _label(self, state: str) -> str:
        if not state:
            return "—"
        if self.kind == self.Kind.NOTICE:
            return str(dict(NoticeStatus.choices).get(state, state))
        from tracker.core.models import ReviewStatus

        return str(dict(ReviewStatus.choices).get(state, state))

    @property
    def old_label(self) -> str:
        """The status before, in words of the active language ("—" for none)."""
        return self._label(self.old_state)

    @property
    def new_label(self) -> str:
        """The status after, in words of the active language."""
        return self._label(self.new_state)

    def content(self) -> dict:
        """The fields the digest covers, as a JSON-ready dict (ids, states, text, ISO time)."""
        return {
            "sequence": self.sequence, "at": self.at.isoformat(), "kind": self.kind,
            "user": self.user_id, "username": self.username, "holder": self.holder_id,
            "match": self.match_id, "notice": self.notice_id, "subject": self.subject,
            "old": self.old_state, "new": self.new_state, "reason": self.reason,
        }

    def compute_digest(self, previous: str) -> str:
        """Hex SHA-256 of ``previous`` (the prior event's digest, "" for the first) + content."""
        payload = previous + json.dumps(self.content(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditTrailError("the audit trail is append-only: events cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditTrailError("the audit trail is append-only: events cannot be deleted")

    @classmethod
    def record(cls, *, kind: str, user, holder, subject: str, old_state: str, new_state: str,
               reason: str = "", match=None, notice=None, attempts: int = 5) -> AuditEvent:
        """Append one event to the trail and return it.

        Two writers racing for the same sequence number: the unique constraint refuses the
        second, which retries with the next number (up to ``attempts`` times).

        Raises:
            IntegrityError: still racing after ``attempts`` tries.
        """
        for attempt in range(attempts):
            try:
                with transaction.atomic():
                    last = cls.objects.order_by("-sequence").first()
                    event = cls(
                        sequence=(last.sequence + 1) if last else 1, kind=kind, user=user,
                        username=user.get_username() if user else "", holder=holder,
                        match=match, notice=notice, subject=subject[:2000],
                        old_state=old_state, new_state=new_state, reason=reason)
                    event.digest = event.compute_digest(last.digest if last else "")
                    event.save()
                    return event
            except IntegrityError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")


def verify_chain() -> int | None:
    """Check every audit event's digest against its content and the previous digest.

    Returns:
        The ``sequence`` of the first event that does not verify (edited, or a gap before it),
        or None when the whole trail is intact.
    """
    previous, expected = "", 1
    for event in AuditEvent.objects.order_by("sequence").iterator():
        if event.sequence != expected or event.compute_digest(previous) != event.digest:
            return event.sequence
        previous, expected = event.digest, expected + 1
    return None


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
    matches = models.ManyToManyField("core.Match", verbose_name=_("matches"),
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
