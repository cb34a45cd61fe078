"""The append-only audit trail: every decision a person or the platform takes, chained by SHA-256.

It lives in the core app, below every app whose actions write it (``core.*_actions``,
``crawler.review_actions``, ``dashboard.notice_actions``). What an event is about is a generic reference
(``target_type`` + ``target_id``, Django's content types), so that the core app names no model
of the apps above it; ``subject`` keeps a readable copy (a URL, a title).
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import notes
from core.errors import CoreError

from .holders import RightsHolder

#: kind -> the TextChoices whose labels name that kind's states; filled by each app's
#: ``AppConfig.ready`` through ``register_state_labels`` (the core app names no upper model).
_STATE_LABELS: dict[str, type[models.TextChoices]] = {}
#: Words for the states that no status field names (site, work and whitelist events, takedown
#: checks), used for any kind.
_COMMON_STATES = {
    "created": _("created"), "changed": _("changed"), "saved": _("saved"),
    "registered": _("registered"), "updated": _("updated"), "deleted": _("deleted"),
    "replaced": _("replaced"), "appended": _("appended"), "whitelisted": _("whitelisted"),
    "still matching": _("still matching"), "removed": _("removed"),
}
#: The states of a check or discovery asked for now (the event records the request; the task's
#: findings are recorded by the checks themselves).
CHECK_REQUESTED, DISCOVERY_REQUESTED = "check requested", "discovery requested"
#: The state a case's event records when a notice citing its pages was escalated to the next
#: recipient (its state itself does not change).
CASE_ESCALATED = "escalated"
_COMMON_STATES.update({CHECK_REQUESTED: _("check requested"),
                       DISCOVERY_REQUESTED: _("discovery requested"), CASE_ESCALATED: _("escalated")})

#: Events recorded before the trail moved to the core app named their subject by two fields,
#: ``match`` and ``notice``; the digest still covers those two keys (so that their digests verify)
#: and names any other subject as ``target``.
_LEGACY_TARGET_KEYS = {("crawler", "match"): "match", ("dashboard", "takedownnotice"): "notice"}


class AuditTrailError(CoreError):
    """Raised on any attempt to change or delete a recorded audit event."""


class AccessState(models.TextChoices):
    """States of the "access" events: an API token or a rights holder's existence."""

    ACTIVE = "active", _("active")
    REVOKED = "revoked", _("revoked")
    DELETED = "deleted", _("deleted")
    CREATED = "created", pgettext_lazy("access state", "created")


def register_state_labels(kind: str, choices: type[models.TextChoices]) -> None:
    """Name the states of ``kind``'s events with ``choices``' labels (for ``old_label``).

    Args:
        kind: an ``AuditEvent.Kind`` value.
        choices: the TextChoices class of that subject's status (e.g. the crawler's
            ReviewStatus).
    """
    _STATE_LABELS[kind] = choices


class AuditQuerySet(models.QuerySet):
    """Audit events can be read and added, never updated or deleted in bulk."""

    def update(self, **kwargs):
        raise AuditTrailError("the audit trail is append-only: events cannot be updated")

    def delete(self):
        raise AuditTrailError("the audit trail is append-only: events cannot be deleted")

    def about(self, obj: models.Model) -> AuditQuerySet:
        """The events whose target is ``obj`` (a model instance with a primary key)."""
        return self.filter(target_type=ContentType.objects.get_for_model(obj), target_id=obj.pk)


class AuditEvent(models.Model):
    """One decision, in an append-only trail chained by SHA-256.

    Every event stores the digest of its content and of the previous event's digest
    (``sequence`` - 1), so that an edit made behind Django's back (raw SQL) breaks the chain and
    ``verify_chain`` finds it. Links to the target, holder and user keep no database constraint:
    deleting any of them leaves the trail intact (``subject`` and ``username`` keep what was
    decided about, and by whom).

    Attributes:
        sequence: 1, 2, 3 ... over the whole trail (unique).
        kind: an ``AuditEvent.Kind`` value, e.g. "review" (a match's status).
        user: the acting person, or None when the platform acted (a scheduled scan, a worker).
        target: the object decided about (generic: ``target_type`` + ``target_id``), or None.
        old_state, new_state: the state before and after, e.g. "new" -> "confirmed"; for
            subjects without a status, what happened ("" -> "registered").
        reason: the person's reason (required for review decisions) or what changed.
        subject: what the decision is about, readable, e.g. the match's page URL.
        digest: hex SHA-256 over the previous digest and this event's content.
    """

    class Kind(models.TextChoices):
        REVIEW = "review", _("review decision")
        NOTICE = "notice", _("takedown notice")
        WORK = "work", _("work")
        SITE = "site", _("target site")
        SCAN = "scan", _("scan")
        WHITELIST = "whitelist", _("whitelisted domain")
        ALERT = "alert", _("alert setting")
        CONFLICT = "conflict", _("rights conflict")
        PROPOSAL = "proposal", _("site proposal")
        USER_SETTINGS = "settings", _("user settings")
        ACCESS = "access", _("access")
        EVIDENCE = "evidence", _("evidence capture")
        CASE = "case", _("case")

    sequence = models.PositiveBigIntegerField(_("sequence"), unique=True, editable=False)
    at = models.DateTimeField(_("time"), default=timezone.now, editable=False, db_index=True)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), null=True,
                             on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    username = models.CharField(_("decided by"), max_length=150)
    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"), null=True,
                               on_delete=models.DO_NOTHING, db_constraint=False,
                               related_name="+")
    target_type = models.ForeignKey(ContentType, verbose_name=_("subject type"), null=True,
                                    blank=True, on_delete=models.DO_NOTHING, db_constraint=False,
                                    related_name="+")
    target_id = models.PositiveBigIntegerField(_("subject id"), null=True, blank=True)
    target = GenericForeignKey("target_type", "target_id")
    subject = models.CharField(_("subject"), max_length=2000)
    old_state = models.CharField(_("from"), max_length=32)
    new_state = models.CharField(_("to"), max_length=32)
    reason = models.TextField(_("reason"), blank=True)
    digest = models.CharField(_("SHA-256"), max_length=64, editable=False)

    objects = AuditQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-sequence"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target")]

    def __str__(self) -> str:
        return f"#{self.sequence} {self.old_label} → {self.new_label} ({self.username})"

    @staticmethod
    def state_label(kind: str, state: str) -> str:
        """State ``state`` of a ``kind`` event in words of the active language ("—" for none;
        an unknown state as it is)."""
        if not state:
            return "—"
        choices = _STATE_LABELS.get(kind)
        label = dict(choices.choices).get(state) if choices else None
        return str(label or _COMMON_STATES.get(state, state))

    def _label(self, state: str) -> str:
        return self.state_label(self.kind, state)

    @property
    def old_label(self) -> str:
        """The state before, in words of the active language ("—" for none)."""
        return self._label(self.old_state)

    @property
    def new_label(self) -> str:
        """The state after, in words of the active language."""
        return self._label(self.new_state)

    @property
    def subject_label(self) -> str:
        """The subject in words of the active language (a coded note translated; a URL or a
        title as it is)."""
        return notes.in_words(self.subject)

    @property
    def reason_label(self) -> str:
        """The reason in words of the active language (a coded note, ``core.notes``,
        translated; text typed by a person as it is)."""
        return notes.in_words(self.reason)

    def content(self) -> dict:
        """The fields the digest covers, as a JSON-ready dict (ids, states, text, ISO time).

        The target is named under "match" or "notice" for those two subjects (as before the
        trail moved to the core app, so that older digests verify) and under "target"
        (``"app_label.model:id"``) for any other.
        """
        content = {
            "sequence": self.sequence, "at": self.at.isoformat(), "kind": self.kind,
            "user": self.user_id, "username": self.username, "holder": self.holder_id,
            "match": None, "notice": None, "subject": self.subject,
            "old": self.old_state, "new": self.new_state, "reason": self.reason,
        }
        if self.target_type_id is not None:
            target_type = ContentType.objects.get_for_id(self.target_type_id)
            natural = (target_type.app_label, target_type.model)
            if natural in _LEGACY_TARGET_KEYS:
                content[_LEGACY_TARGET_KEYS[natural]] = self.target_id
            else:
                content["target"] = f"{natural[0]}.{natural[1]}:{self.target_id}"
        return content

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
               reason: str = "", target: models.Model | None = None) -> AuditEvent:
        """Append one event to the trail and return it.

        Call it inside the action's ``transaction.atomic`` block, so that the event and the
        change it records commit together. Writers take turns (``_take_turn``): each waits
        until the writer before it has committed or rolled back, then reads the last event, so
        that the sequence stays 1, 2, 3 ... without a gap and the chain unbroken, at any number
        of concurrent actions (docs/decisions/audit-sequence.md).

        Args:
            kind: an ``AuditEvent.Kind`` value.
            user: the acting user, or None when the platform acted.
            holder: the RightsHolder concerned, or None.
            subject: readable name of the target (cut to 2000 characters).
            old_state, new_state: the state before and after (at most 32 characters).
            reason: why, or what changed.
            target: the model instance decided about (saved, with a primary key), or None.
        """
        target_type = ContentType.objects.get_for_model(target) if target is not None else None
        with transaction.atomic():
            _take_turn()
            last = cls.objects.order_by("-sequence").values_list("sequence", "digest").first()
            event = cls(
                sequence=(last[0] + 1) if last else 1, kind=kind, user=user,
                username=user.get_username() if user else "", holder=holder,
                target_type=target_type, target_id=target.pk if target is not None else None,
                subject=subject[:2000], old_state=old_state[:32], new_state=new_state[:32],
                reason=reason)
            event.digest = event.compute_digest(last[1] if last else "")
            event.save()
        return event


#: The PostgreSQL advisory lock key (bigint) that audit trail writers take in turn.
_WRITER_LOCK_KEY = int.from_bytes(b"auditseq", "big") & 0x7FFF_FFFF_FFFF_FFFF


def _take_turn() -> None:
    """Wait until no other open transaction appends to the trail, and hold the turn until this
    transaction ends (PostgreSQL: the transaction-level advisory lock ``_WRITER_LOCK_KEY``,
    released at commit or rollback, after the commit is visible to the next writer; SQLite:
    nothing to do, its IMMEDIATE transactions already write one at a time)."""
    connection = transaction.get_connection()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITER_LOCK_KEY])


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
