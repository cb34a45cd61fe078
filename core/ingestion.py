"""Ingesting a registered work: its staged text fingerprinted into MongoDB and Redis.

``ingest`` (run by the ``ingest_work`` task) takes a Redis lock on the work (the index allows one
writer per work), calls ``Engine.add_work`` (atomic: on error no postings remain), marks the work
indexed only if its text is still the one just indexed, and deletes the staged file. While
MongoDB or Redis is unreachable the task retries with backoff and the work shows "waiting" with
the reason (``mark_waiting``); the staged file stays, so nothing is lost.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from fingerprint import FINGERPRINT_VERSION

from .connections import get_redis, storage_errors
from .engine import get_engine, get_store
from .errors import StorageUnavailable
from .models import Work, WorkStatus
from .registration import staged_path

log = logging.getLogger(__name__)


# Sent when a work's text was indexed (new or changed), keyword argument ``work_id`` (int); the
# crawler searches its stored pages for copies of it (crawler.rematch).
work_indexed = Signal()


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
        path.unlink(missing_ok=True)  # before the receivers: a work shown indexed has no staged text
        work_indexed.send(sender=Work, work_id=work.pk)
        return "indexed"
    finally:
        with contextlib.suppress(Exception):  # expired or Redis gone: it times out by itself
            lock.release()


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
        log.warning("removing work %s postponed: %s", engine_id, exc)
        current_app.send_task("tracker.core.tasks.remove_work", args=[engine_id])


def work_text(work: Work) -> str | None:
    """Return the work's canonical text (from MongoDB, else its staged file), or None."""
    record = get_store().get(work.engine_id)
    if record is not None:
        return record["text"]
    path = staged_path(work.engine_id, work.sha256)
    return path.read_text(encoding="utf-8") if path.exists() else None
