"""Registering works and ingesting them: extract -> stage -> fingerprint -> MongoDB -> Redis.

Flow. ``register_work`` writes the Work row and stages the extracted text as a file named by
the work and the text's SHA-256 (``MEDIA_ROOT/staging/<engine id>-<sha256>.txt``, shared by
the web servers and the workers), then queues the Celery task ``ingest_work`` once the
transaction commits. ``ingest`` (run by that task) takes a Redis lock on the work (the index
allows one writer per work), calls ``Engine.add_work`` (atomic: on error no postings remain;
it stores the text and fingerprints in MongoDB and the postings in Redis), marks the work
indexed only if its text is still the one just indexed, and deletes the staged file. While
MongoDB or Redis is unreachable the task retries with backoff and the work shows "waiting"
with the reason; the staged file stays, so nothing is lost. Because the staged file is named by
the text's hash, a re-upload during ingestion cannot be overwritten or deleted by it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_noop

from tracker.core import notes
from tracker.text import Extracted

from .connections import get_redis, storage_errors
from .engine import get_engine, get_store, indexed_work_ids
from .errors import StorageUnavailable
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
        extracted: the text from ``tracker.core.uploads``.
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
        ValueError: reference empty or longer than 200 characters.
    """
    reference = reference.strip()
    if not reference or len(reference) > 200:
        raise ValueError(f"reference must be 1 to 200 characters, got {reference!r}")
    sha = text_sha256(extracted.text)
    with transaction.atomic():
        work = Work.objects.select_for_update().filter(holder=holder, reference=reference).first()
        outcome = "updated" if work else "registered"
        if work is None:
            work = Work(holder=holder, reference=reference)
        default_kind = WorkKind.NOVEL if len(extracted.sections) >= 2 else (
            work.kind or WorkKind.OTHER)
        wanted = {
            "title": (title or extracted.title or work.title or reference)[:500],
            "author": (author or extracted.author or work.author)[:300],
            "kind": kind or default_kind,
            "language": language or guess_language(extracted),
            "source_name": (source_name or work.source_name)[:500],
            "sections": extracted.sections,
        }
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


def enqueue_ingest(work_id: int) -> bool:
    """Queue the Celery task ingesting work ``work_id``.

    Returns:
        True when queued (a "not queued" note left by an earlier attempt is cleared); False
        when the broker is unreachable (logged; the work stays pending with its staged text
        and that note, and ``manage.py reindex``, the sweeper or importing it again queues it).
    """
    from tracker.celery import app

    try:  # by name: the tasks module imports this one. No result is read, so none is awaited:
        # subscribing to it retried an unreachable Redis 20 times (about 20 s) per work
        app.send_task("tracker.core.tasks.ingest_work", args=[work_id], ignore_result=True)
        Work.objects.filter(pk=work_id, status=WorkStatus.PENDING,
                            error__startswith=notes.stored_prefix("not_queued")).update(error="")
        return True
    except Exception as exc:  # kombu raises OperationalError and others when Redis is down
        log.error("could not queue ingestion of work %s: %s", work_id, exc)
        Work.objects.filter(pk=work_id, status=WorkStatus.PENDING).update(
            error=notes.coded("not_queued", gettext_noop(
                "Not queued yet (task queue unreachable: %(error)s)"), error=str(exc)))
        return False


# Sent when a work's text was indexed (new or changed), keyword argument ``work_id`` (int); the
# crawler searches its stored pages for copies of it (crawler.rematch).
work_indexed = Signal()


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


def _ingest_lock(engine_id: str, token: str | None):
    """The work's ingestion lock (redis-py Lock), acquired; ``token``: the lock's value, the
    ingestion task's id, kept by its retries. A lock that already holds ``token`` is this
    task's own from an earlier attempt that could not release it (Redis went down, and its
    append-only file kept the lock): it is taken over instead of waited for until it expires.

    Raises:
        StorageUnavailable: Redis is unreachable, or the lock stayed taken by another task for
            settings.INGEST_LOCK_WAIT_SECONDS.
    """
    try:
        lock = get_redis().lock(f"tracker:ingest-lock:{engine_id}",
                                timeout=settings.INGEST_LOCK_TTL_SECONDS,
                                blocking_timeout=settings.INGEST_LOCK_WAIT_SECONDS)
        if token is not None:
            lock.local.token = token.encode()
            if lock.owned():
                lock.reacquire()
                return lock
        if not lock.acquire(token=token):
            raise StorageUnavailable(f"work {engine_id} is being ingested by another task")
    except storage_errors() as exc:
        raise StorageUnavailable(f"Redis unreachable: {exc}") from exc
    return lock


def ingest(work_id: int, token: str | None = None) -> str:
    """Fingerprint work ``work_id``'s staged text into MongoDB and the Redis index.

    Idempotent: a work already indexed with its current text is left alone, and adding a
    work again replaces its postings (Engine.add_work). ``token``: the ingestion task's id
    (see ``_ingest_lock``); None for a call outside a task.

    Returns:
        "indexed", "already indexed", "gone" (the work was deleted) or "failed".

    Raises:
        StorageUnavailable: MongoDB or Redis is unreachable, or the work's lock stayed taken
            for settings.INGEST_LOCK_WAIT_SECONDS; retry later (the work is unchanged).
    """
    from fingerprint import FINGERPRINT_VERSION

    work = Work.objects.filter(pk=work_id).only("uid").first()
    if work is None:
        return "gone"
    lock = _ingest_lock(work.engine_id, token)
    try:
        work = Work.objects.filter(pk=work_id).first()
        if work is None:
            return "gone"
        path = staged_path(work.engine_id, work.sha256)
        if not path.exists():
            if work.status == WorkStatus.INDEXED:
                return "already indexed"
            _finish(work, WorkStatus.FAILED, error=notes.coded("staged_text_missing", gettext_noop(
                "The text to index is missing from the staging folder; upload the work "
                "again.")))
            return "failed"
        text = path.read_text(encoding="utf-8")
        try:
            windows = get_engine().add_work(work.engine_id, text)
        except storage_errors() as exc:
            raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # the engine rejected the text: no postings remain
            log.warning("work %s failed ingestion: %r", work.pk, exc)
            _finish(work, WorkStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
            return "failed"
        _finish(work, WorkStatus.INDEXED, windows=windows, fingerprint_version=FINGERPRINT_VERSION,
                indexed_at=timezone.now(), error="")
        work_indexed.send(sender=Work, work_id=work.pk)
        path.unlink(missing_ok=True)
        return "indexed"
    finally:
        try:
            lock.release()
        except Exception:  # expired or Redis gone: the lock times out by itself
            pass


def _finish(work: Work, status: str, **fields) -> None:
    # Only if the text was not replaced meanwhile: the newer upload has its own task queued.
    Work.objects.filter(pk=work.pk, sha256=work.sha256).update(
        status=status, updated_at=timezone.now(), **fields)


def mark_waiting(work_id: int, reason: str) -> None:
    """Show that work ``work_id`` waits for MongoDB or Redis, with ``reason`` as its error;
    touches ``updated_at``, so that the sweeper (``requeue_pending``) leaves a work alone
    while its retries go on."""
    Work.objects.filter(pk=work_id).exclude(status=WorkStatus.INDEXED).update(
        status=WorkStatus.WAITING, updated_at=timezone.now(),
        error=notes.coded("waiting_for_storage", gettext_noop(
            "Waiting for storage, will retry: %(reason)s"), reason=reason[:1800]))


def forget_work(engine_id: str) -> None:
    """Remove a deleted work's staged text, postings and stored record.

    Runs after the deletion commits. When MongoDB or Redis is unreachable the removal is
    queued as the Celery task ``remove_work``, which retries until it succeeds.
    """
    for path in (Path(settings.MEDIA_ROOT) / "staging").glob(f"{engine_id}-*.txt"):
        path.unlink(missing_ok=True)
    try:
        get_engine().remove_work(engine_id)
    except storage_errors() as exc:
        from tracker.celery import app

        log.warning("removing work %s postponed: %s", engine_id, exc)
        app.send_task("tracker.core.tasks.remove_work", args=[engine_id])


def work_text(work: Work) -> str | None:
    """Return the work's canonical text (from MongoDB, else its staged file), or None."""
    record = get_store().get(work.engine_id)
    if record is not None:
        return record["text"]
    path = staged_path(work.engine_id, work.sha256)
    return path.read_text(encoding="utf-8") if path.exists() else None


def reindex(prune: bool = False) -> dict:
    """Rebuild the Redis index from the works stored in MongoDB and reconcile with the rows.

    For after a Redis loss or a FINGERPRINT_VERSION change. Steps: ``Engine.rebuild_index()``;
    then, for each work not failed: staged text (ingestion never finished) -> queued again;
    stored in MongoDB -> indexed with the current version; neither -> failed (its text must
    be uploaded again). Stored works without a row are orphans, removed when ``prune``.

    Returns:
        {"rebuilt": int (Engine.rebuild_index's count), "stored": int, "requeued": [work
        ids], "lost": [work ids], "orphans": [engine ids], "pruned": int, "version": str}.

    Raises:
        StorageUnavailable: MongoDB or Redis is unreachable.
    """
    from fingerprint import FINGERPRINT_VERSION

    engine = get_engine()
    try:
        rebuilt = engine.rebuild_index()
        stored = set(get_store().ids())
    except storage_errors() as exc:
        raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
    report = {"rebuilt": rebuilt, "stored": len(stored), "requeued": [], "lost": [],
              "orphans": [], "pruned": 0, "version": FINGERPRINT_VERSION}
    known = set()
    for work in Work.objects.all().iterator():
        known.add(work.engine_id)
        if work.status == WorkStatus.FAILED:
            continue
        if staged_path(work.engine_id, work.sha256).exists():  # not ingested yet
            Work.objects.filter(pk=work.pk).update(status=WorkStatus.PENDING)
            enqueue_ingest(work.pk)
            report["requeued"].append(work.pk)
        elif work.engine_id in stored:
            Work.objects.filter(pk=work.pk).update(
                status=WorkStatus.INDEXED, fingerprint_version=FINGERPRINT_VERSION, error="")
        else:
            Work.objects.filter(pk=work.pk).update(
                status=WorkStatus.FAILED, windows=0,
                error=notes.coded("stored_text_missing", gettext_noop(
                    "The work's text is missing from MongoDB; upload it again.")))
            report["lost"].append(work.pk)
    report["orphans"] = sorted(stored - known)
    if prune:
        for engine_id in report["orphans"]:
            report["pruned"] += bool(engine.remove_work(engine_id))
    return report


def index_gaps() -> list[int]:
    """Ids of works marked indexed whose engine id is missing from the Redis index (after a
    Redis loss, or an index cleared by a fingerprint version change).

    Raises:
        StorageUnavailable: Redis is unreachable.
    """
    try:
        present = indexed_work_ids()
    except storage_errors() as exc:
        raise StorageUnavailable(f"Redis unreachable: {exc}") from exc
    return [pk for pk, uid in Work.objects.filter(status=WorkStatus.INDEXED)
            .values_list("pk", "uid") if str(uid) not in present]
