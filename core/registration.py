"""Registering a work's text: the Work row, the staged text file and the queued ingestion.

``register_work`` writes the Work row and stages the extracted text as a file named by the work
and the text's SHA-256 (``MEDIA_ROOT/staging/<engine id>-<sha256>.txt``, shared by the web
servers and the workers), then queues the Celery task ``ingest_work`` once the transaction
commits (``enqueue_ingest``); ``requeue_pending`` queues again the works whose task was lost.
Because the staged file is named by the text's hash, a re-upload during ingestion cannot be
overwritten or deleted by it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.validators import no_control_characters
from lib.text import Extracted
from lib.text.untrusted import without_controls

from .models import RightsHolder, Work, WorkKind, WorkLanguage, WorkStatus

log = logging.getLogger(__name__)


@dataclass
class Registration:
    """What ``register_work`` did.

    Attributes:
        work: the Work row.
        outcome: "registered" (new), "updated" (text or metadata changed) or "skipped"
            (nothing changed).
        queued: True when ingestion was queued (new or changed text, or a failed work).
    """

    work: Work
    outcome: str
    queued: bool


def text_sha256(text: str) -> str:
    """Hex SHA-256 (64 characters) of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def staged_path(engine_id: str, sha256: str) -> Path:
    """Where the text with hash ``sha256`` of work ``engine_id`` waits for ingestion."""
    return Path(settings.MEDIA_ROOT) / "staging" / f"{engine_id}-{sha256}.txt"


def _stage(engine_id: str, sha256: str, text: str) -> None:
    path = staged_path(engine_id, sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{uuid.uuid4().hex}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def guess_language(extracted: Extracted) -> str:
    """A WorkLanguage value for ``extracted``: Chinese when CJK ideographs outnumber Latin
    letters (traditional when the bytes were Big5), English when Latin letters dominate."""
    sample = extracted.text[:20000]
    cjk = sum(1 for ch in sample if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for ch in sample if ch.isascii() and ch.isalpha())
    if cjk >= latin:
        return WorkLanguage.ZH_HANT if (extracted.encoding or "").startswith("big5") \
            else WorkLanguage.ZH_HANS
    return WorkLanguage.EN if latin else WorkLanguage.OTHER


def register_work(holder: RightsHolder, reference: str, extracted: Extracted, *,
                  title: str = "", author: str = "", kind: str | None = None,
                  language: str | None = None, source_name: str = "",
                  ingest: bool = True) -> Registration:
    """Create or update the work ``reference`` of ``holder`` with ``extracted`` text.

    Args:
        holder: the owning RightsHolder.
        reference: the holder's id for the work (unique per holder), at most 200 characters.
        extracted: the text from ``core.text_extraction``.
        title, author: override what extraction found; title falls back to the reference.
        kind: a WorkKind value; default "novel" when the text has two chapters or more, else
            the work's current kind (new works: "other").
        language: a WorkLanguage value; default guessed from the text.
        source_name: file name (or "pasted") shown in the admin.
        ingest: queue the Celery ingestion task after commit (False: the caller runs
            ``ingest`` itself, e.g. ``import_works --now``).

    Returns:
        A Registration. Unchanged text and metadata give "skipped" and queue nothing, unless
        the work's last ingestion failed (then it is staged and queued again as "updated") or
        the work is still pending (queued again: "skipped" with ``queued`` True).

    Raises:
        ValueError: reference empty or longer than 200 characters; reference, title or author
            holding a control character (the message in the active language). A title or
            author found in the text has its control characters dropped instead.
    """
    reference = _checked_names(reference, title, author)
    sha = text_sha256(extracted.text)
    with transaction.atomic():
        work = Work.objects.select_for_update().filter(holder=holder, reference=reference).first()
        outcome = "updated" if work else "registered"
        if work is None:
            work = Work(holder=holder, reference=reference)
        wanted = _wanted_fields(work, extracted, title=title, author=author, kind=kind,
                                language=language, source_name=source_name)
        new_text = work.sha256 != sha or work.status == WorkStatus.FAILED
        if work.pk and not new_text and all(getattr(work, k) == v for k, v in wanted.items()):
            # a work still pending (its task lost or never queued) is queued again
            stuck = work.status == WorkStatus.PENDING
            if stuck and ingest:
                work_id = work.pk
                transaction.on_commit(lambda: enqueue_ingest(work_id))
            return Registration(work, "skipped", stuck)
        for name, value in wanted.items():
            setattr(work, name, value)
        if new_text:
            _stage(work.engine_id, sha, extracted.text)
            work.sha256, work.length = sha, len(extracted.text)
            work.status, work.error = WorkStatus.PENDING, ""
        work.save()
        if new_text and ingest:
            work_id = work.pk
            transaction.on_commit(lambda: enqueue_ingest(work_id))
    return Registration(work, outcome, new_text)


def _checked_names(reference: str, title: str, author: str) -> str:
    """The stripped reference; ValueError when it is empty or over 200 characters, or when the
    reference, title or author holds a control character (the message in the active language)."""
    reference = reference.strip()
    if not reference or len(reference) > 200:
        raise ValueError(f"reference must be 1 to 200 characters, got {reference!r}")
    for value in (reference, title, author):
        try:
            no_control_characters(value)
        except ValidationError as exc:
            raise ValueError(exc.messages[0]) from exc
    return reference


def _wanted_fields(work: Work, extracted: Extracted, *, title: str, author: str,
                   kind: str | None, language: str | None, source_name: str) -> dict:
    """The work's fields as ``register_work`` should leave them (see its Args for the defaults),
    names and titles cut to their columns' lengths (characters)."""
    default_kind = WorkKind.NOVEL if len(extracted.sections) >= 2 else (
        work.kind or WorkKind.OTHER)
    return {
        "title": (title or without_controls(extracted.title or "").strip() or work.title
                  or work.reference)[:500],
        "author": (author or without_controls(extracted.author or "").strip()
                   or work.author)[:300],
        "kind": kind or default_kind,
        "language": language or guess_language(extracted),
        "source_name": (source_name or work.source_name)[:500],
        "sections": extracted.sections,
    }


def enqueue_ingest(work_id: int) -> bool:
    """Queue the Celery task ingesting work ``work_id``.

    Returns:
        True when queued (a "not queued" note left by an earlier attempt is cleared); False
        when the broker is unreachable (logged; the work stays pending with its staged text
        and that note, and ``manage.py reindex``, the sweeper or importing it again queues it).
    """
    try:  # by name: the tasks module imports this one. No result is read, so none is awaited:
        # subscribing to it retried an unreachable Redis 20 times (about 20 s) per work
        current_app.send_task("tracker.core.tasks.ingest_work", args=[work_id], ignore_result=True)
        Work.objects.filter(pk=work_id, status=WorkStatus.PENDING,
                            error__startswith=notes.stored_prefix("not_queued")).update(error="")
        return True
    except Exception as exc:  # kombu raises OperationalError and others when Redis is down
        log.error("could not queue ingestion of work %s: %s", work_id, exc)
        Work.objects.filter(pk=work_id, status=WorkStatus.PENDING).update(
            error=notes.coded("not_queued", gettext_noop(
                "Not queued yet (task queue unreachable: %(error)s)"), error=str(exc)))
        return False


def requeue_pending(older_than_seconds: float | None = None) -> list[int]:
    """Queue again the ingestion of every work still "pending" or "waiting" whose record was
    last touched more than ``older_than_seconds`` ago (default
    settings.WORK_PENDING_REQUEUE_SECONDS): its task was never queued (broker down) or was lost,
    or the retry of a waiting work was lost with the broker (each retry touches the record, see
    ``mark_waiting``). Touches the records, so that a work is queued again at most once per
    that age.

    Returns:
        The ids of the works queued (ingestion is idempotent: a work queued twice is indexed
        once).
    """
    age = settings.WORK_PENDING_REQUEUE_SECONDS if older_than_seconds is None else older_than_seconds
    now = timezone.now()
    stale = list(Work.objects.filter(status__in=[WorkStatus.PENDING, WorkStatus.WAITING],
                                     updated_at__lt=now - timedelta(seconds=age))
                 .values_list("pk", flat=True))
    queued = [work_id for work_id in stale if enqueue_ingest(work_id)]
    Work.objects.filter(pk__in=queued).update(updated_at=now)
    if queued:
        log.warning("queued again the ingestion of %d pending works: %s", len(queued), queued)
    return queued
