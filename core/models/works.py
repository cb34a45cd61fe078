"""Works: the original texts registered by rights holders (the parent corpus).

The text itself is not kept here: the canonical text and its window fingerprints live in MongoDB
(the engine's MongoWorkStore, keyed by ``Work.engine_id``) and the index in Redis. This row holds
what the admin edits and shows: metadata, chapters (sections) and the state of ingestion.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _

from core import notes
from core.validators import no_control_characters

from .holders import RightsHolder


class WorkKind(models.TextChoices):
    """What kind of text a work is."""

    NEWS = "news", _("news")
    NOVEL = "novel", _("novel")
    OTHER = "other", _("other")


class WorkLanguage(models.TextChoices):
    """Language (and script) of a work's text."""

    ZH_HANS = "zh-hans", _("Chinese (simplified)")
    ZH_HANT = "zh-hant", _("Chinese (traditional)")
    EN = "en", _("English")
    OTHER = "other", _("other")


_LANG_TAGS = {WorkLanguage.ZH_HANS: "zh-Hans", WorkLanguage.ZH_HANT: "zh-Hant",
              WorkLanguage.EN: "en"}


class WorkStatus(models.TextChoices):
    """Where a work is in ingestion (extract -> fingerprint -> MongoDB -> Redis index).

    pending: queued; waiting: MongoDB or Redis is unreachable and the task retries with backoff
    (``error`` says why); indexed: searchable; failed: will not be retried (``error`` says why).
    """

    PENDING = "pending", _("pending")
    WAITING = "waiting", _("waiting for storage")
    INDEXED = "indexed", _("indexed")
    FAILED = "failed", _("failed")


class Work(models.Model):
    """An original work of a rights holder.

    Attributes:
        uid: the work's id in the fingerprint engine, the Mongo store and the Redis index
            (``engine_id`` is its string form); stable across databases, never reused.
        reference: the holder's own id for the work (an ISBN, an article id, the ``id`` of an
            imported JSON Lines record); unique per holder; importing it again updates the work.
        length: the text's length in characters (Python ``str`` length).
        sha256: hex SHA-256 of the UTF-8 text; an unchanged re-import is skipped.
        sections: chapters as ``[{"title": str, "start": int, "end": int}]``, character offsets
            into the text (end exclusive), in order; empty when the work has no chapters.
        windows: number of windows indexed by the engine.
        fingerprint_version: ``fingerprint.FINGERPRINT_VERSION`` the work was indexed with.
    """

    uid = models.UUIDField(_("engine id"), default=uuid.uuid4, unique=True, editable=False)
    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.PROTECT, related_name="works")
    reference = models.CharField(
        _("reference"), max_length=200, validators=[no_control_characters],
        help_text=_("Your own id for this work (ISBN, article id); unique per rights holder."))
    title = models.CharField(_("title"), max_length=500, validators=[no_control_characters])
    author = models.CharField(_("author"), max_length=300, blank=True,
                              validators=[no_control_characters])
    kind = models.CharField(_("kind"), max_length=16, choices=WorkKind.choices,
                            default=WorkKind.OTHER)
    language = models.CharField(_("language"), max_length=16, choices=WorkLanguage.choices,
                                default=WorkLanguage.ZH_HANS)
    source_name = models.CharField(_("source file"), max_length=500, blank=True)
    length = models.PositiveIntegerField(_("length (characters)"), default=0)
    sha256 = models.CharField(_("text SHA-256"), max_length=64, blank=True, editable=False)
    sections = models.JSONField(_("sections"), default=list, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=WorkStatus.choices,
                              default=WorkStatus.PENDING, db_index=True)
    error = models.TextField(_("error"), blank=True)
    fingerprint_version = models.CharField(_("fingerprint version"), max_length=64, blank=True)
    windows = models.PositiveIntegerField(_("windows indexed"), default=0)
    indexed_at = models.DateTimeField(_("indexed"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    @property
    def lang_tag(self) -> str:
        """The BCP 47 tag of the text's language for a page's ``lang`` attribute ("zh-Hans",
        "zh-Hant", "en"; "" for another language: unknown to the browser)."""
        return _LANG_TAGS.get(self.language, "")

    @property
    def error_words(self) -> str:
        """The error in words of the active language (``core.notes``); "" for none."""
        return notes.in_words(self.error)

    class Meta:
        verbose_name = _("work")
        verbose_name_plural = _("works")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["holder", "reference"],
                                    name="work_reference_unique_per_holder"),
        ]

    def __str__(self) -> str:
        return f"{self.title} [{self.reference}]"

    @property
    def engine_id(self) -> str:
        """The work's id in the engine, MongoDB and Redis: ``str(uid)`` (36 characters)."""
        return str(self.uid)
