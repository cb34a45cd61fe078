"""Rebuilding the Redis index from MongoDB (``manage.py reindex``) and finding the works the
index lacks (``index_gaps``)."""

from __future__ import annotations

import logging

from django.utils.translation import gettext_noop

from core import notes
from fingerprint import FINGERPRINT_VERSION

from .connections import storage_errors
from .engine import get_engine, get_store, indexed_work_ids
from .errors import StorageUnavailable
from .models import Work, WorkStatus
from .registration import enqueue_ingest, staged_path

log = logging.getLogger(__name__)


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
