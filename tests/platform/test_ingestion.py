"""Ingestion through a real Celery worker: extract -> fingerprint -> MongoDB -> Redis index."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from core import errors, ingestion, notes, registration
from core.chapters import attribute
from core.engine import get_engine, get_store
from core.models import Work, WorkStatus
from core.tasks import ingest_work
from core.text_extraction import extract_pasted
from lib.runtime import embedded, supervisor
from lib.text import normalize

pytestmark = pytest.mark.django_db(transaction=True)


def _status(work, *wanted):
    work.refresh_from_db()
    return work if work.status in wanted else None


def _index_keys(client) -> int:
    return sum(1 for _ in client.scan_iter(match=f"{settings.FINGERPRINT_INDEX_PREFIX}:*"))


def test_registered_work_is_indexed_and_found_by_chapter(
        celery_worker, platform_stores, people, novel_text, wait_for):
    from fingerprint import FINGERPRINT_VERSION

    extracted = extract_pasted(novel_text)
    reg = registration.register_work(people["press"], "xyj-1-3", extracted, source_name="pasted")
    assert (reg.outcome, reg.queued) == ("registered", True)
    work = wait_for(lambda: _status(reg.work, WorkStatus.INDEXED, WorkStatus.FAILED))
    assert work.status == WorkStatus.INDEXED, work.error
    assert work.windows > 0 and work.fingerprint_version == FINGERPRINT_VERSION
    assert work.kind == "novel" and len(work.sections) == 3
    assert not registration.staged_path(work.engine_id, work.sha256).exists()
    assert get_store().get(work.engine_id)["text"] == extracted.text  # canonical text in Mongo
    chapter2 = work.sections[1]
    page = "转载自某网站\n" + extracted.text[chapter2["start"] + 200:chapter2["start"] + 1700]
    best = get_engine().match(page)[0]
    assert best.work_id == work.engine_id
    assert attribute(work.sections, best.passages).titles == [chapter2["title"]]


def test_ingestion_is_idempotent(celery_worker, platform_stores, people, novel_text, wait_for):
    _db, redis_client = platform_stores
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text))
    work = wait_for(lambda: _status(reg.work, WorkStatus.INDEXED))
    keys = _index_keys(redis_client)
    again = registration.register_work(people["press"], "xyj", extract_pasted(novel_text))
    assert (again.outcome, again.queued) == ("skipped", False)
    assert ingest_work.delay(work.pk).get(timeout=60) == "already indexed"
    assert _index_keys(redis_client) == keys
    assert list(get_store().ids()) == [work.engine_id]


def test_changed_text_replaces_the_postings(celery_worker, platform_stores, people, novel_text,
                                            wait_for):
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text[:8000]))
    wait_for(lambda: _status(reg.work, WorkStatus.INDEXED))
    new = registration.register_work(people["press"], "xyj", extract_pasted(novel_text[8000:]))
    assert new.outcome == "updated" and new.work.pk == reg.work.pk
    work = wait_for(lambda: _status(new.work, WorkStatus.INDEXED))
    assert get_store().get(work.engine_id)["text"] == normalize(novel_text[8000:])
    assert not get_engine().match(novel_text[1000:2500])  # the old text is no longer indexed


def test_engine_rejection_marks_failed_with_reason(celery_worker, platform_stores, people,
                                                   wait_for):
    reg = registration.register_work(people["press"], "digits", extract_pasted("12345 67890"))
    work = wait_for(lambda: _status(reg.work, WorkStatus.FAILED, WorkStatus.INDEXED))
    assert work.status == WorkStatus.FAILED and "letters" in work.error  # digits give 10
    assert not get_engine().has_work(work.engine_id)


def test_deleting_a_work_removes_its_postings(celery_worker, platform_stores, people,
                                              novel_text, wait_for):
    _db, redis_client = platform_stores
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text))
    work = wait_for(lambda: _status(reg.work, WorkStatus.INDEXED))
    assert _index_keys(redis_client) > 0
    work.delete()
    assert not get_engine().has_work(work.engine_id)
    assert get_store().get(work.engine_id) is None
    assert not get_engine().match(novel_text[3000:4500])


def test_reindex_rebuilds_the_index_after_a_redis_loss(platform_stores, people, novel_text,
                                                        settings):
    # A private index prefix, ingested in this process: wiping it cannot disturb the session
    # worker's cached work numbers.
    settings.FINGERPRINT_INDEX_PREFIX = "fp-reindex-test"
    _db, redis_client = platform_stores
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text), ingest=False)
    assert ingestion.ingest(reg.work.pk) == "indexed"
    pending = registration.register_work(people["press"], "later", extract_pasted(novel_text[:5000]),
                                     ingest=False)
    for key in list(redis_client.scan_iter(match="fp-reindex-test:*")):
        redis_client.delete(key)  # the index is lost; MongoDB still has the work
    assert not get_engine().match(novel_text[3000:4500])
    out = io.StringIO()
    call_command("reindex", stdout=out)
    assert "works stored in MongoDB: 1" in out.getvalue()
    assert "queued again for ingestion: 1" in out.getvalue()  # "later" was never ingested
    assert get_engine().match(novel_text[9000:10500])[0].work_id == reg.work.engine_id
    assert Work.objects.get(pk=pending.work.pk).status == WorkStatus.PENDING
    for key in list(redis_client.scan_iter(match="fp-reindex-test:*")):
        redis_client.delete(key)


def test_reindex_check_reports_a_work_removed_behind_the_index_back(
        platform_stores, people, novel_text, settings):
    """`reindex --check` finds the index equal to a rebuild from MongoDB, then, after a work's
    postings are removed from Redis behind the platform's back, names it and exits 1."""
    settings.FINGERPRINT_INDEX_PREFIX = "fp-check-test"
    _db, redis_client = platform_stores
    works = [registration.register_work(people["press"], f"part-{i}",
                                    extract_pasted(novel_text[i * 6000:(i + 1) * 6000]),
                                    ingest=False).work for i in range(2)]
    for work in works:
        assert ingestion.ingest(work.pk) == "indexed"
    out = io.StringIO()
    call_command("reindex", "--check", stdout=out)
    assert "the index equals a rebuild from MongoDB" in out.getvalue()
    get_engine().index.remove(works[1].engine_id)  # the index loses a work, MongoDB keeps it
    out = io.StringIO()
    with pytest.raises(CommandError, match="differs") as failed:
        call_command("reindex", "--check", stdout=out)
    assert failed.value.returncode == 1
    assert f"missing from the index: 1 {works[1].engine_id}" in out.getvalue()
    assert "in the index but not in MongoDB: 0" in out.getvalue()
    engine = get_engine()  # the work back, less its last 5 postings
    postings = engine.postings(engine.letters(get_store().get(works[1].engine_id)["text"]))
    engine.index.add(works[1].engine_id, postings[:-5])
    out = io.StringIO()
    with pytest.raises(CommandError, match="differs"):
        call_command("reindex", "--check", stdout=out)
    assert "missing from the index: 0" in out.getvalue()
    assert f"{works[1].engine_id}: 5 missing, 0 extra" in out.getvalue()
    for key in list(redis_client.scan_iter(match="fp-check-test:*")):
        redis_client.delete(key)


def test_reindex_rebuilds_an_index_of_the_old_layout(platform_stores, people, novel_text,
                                                     settings):
    """An index written in the first Redis layout (a hash field per fingerprint) is refused
    with a message naming `manage.py reindex`, which clears and rebuilds it from MongoDB."""
    from fingerprint import FINGERPRINT_VERSION
    from fingerprint.index import IndexLayoutError

    settings.FINGERPRINT_INDEX_PREFIX = "fp-layout-test"
    _db, redis_client = platform_stores
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text), ingest=False)
    assert ingestion.ingest(reg.work.pk) == "indexed"
    for key in list(redis_client.scan_iter(match="fp-layout-test:*")):
        redis_client.delete(key)
    # the first layout's bookkeeping and one posting hash, as it wrote them
    redis_client.set("fp-layout-test:version", FINGERPRINT_VERSION)
    redis_client.set("fp-layout-test:groups", 64)
    redis_client.hset("fp-layout-test:ids", reg.work.engine_id, 1)
    redis_client.hset("fp-layout-test:g:3", mapping={"": "-" * 1024, "12345": b"\1\0\0\0"})
    with pytest.raises(IndexLayoutError, match="reindex"):
        get_engine().match(novel_text[3000:4500])
    out = io.StringIO()
    call_command("reindex", stdout=out)
    assert "old layout" in out.getvalue() and "works stored in MongoDB: 1" in out.getvalue()
    assert redis_client.get("fp-layout-test:layout") == b"2"
    assert get_engine().match(novel_text[9000:10500])[0].work_id == reg.work.engine_id
    for key in list(redis_client.scan_iter(match="fp-layout-test:*")):
        redis_client.delete(key)


def test_mongo_down_work_waits_then_is_indexed(celery_worker, platform_stores, people,
                                               novel_text, wait_for, tmp_path, worker_env):
    """A worker whose MongoDB is down keeps the work waiting, retrying with backoff, and
    indexes it once MongoDB is up, with nothing lost."""
    port = embedded.free_port()
    queue = "ingest-mongo-down"
    env = worker_env(MONGO_URL=f"mongodb://127.0.0.1:{port}")
    log = tmp_path / "worker.log"
    proc = supervisor.start_worker(env, log, "mongo-down", concurrency=1, queues=[queue])
    mongo = None
    try:
        from tracker.celery import app

        supervisor.wait_until_ready(app, proc, "mongo-down", log,
                                    settings.WORKER_READY_TIMEOUT_SECONDS)
        reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text),
                                     ingest=False)
        ingest_work.apply_async(args=[reg.work.pk], queue=queue)
        work = wait_for(lambda: _status(reg.work, WorkStatus.WAITING))
        assert "Waiting for storage" in notes.in_english(work.error)
        assert registration.staged_path(work.engine_id, work.sha256).exists()  # nothing lost
        mongo = embedded.start_mongo(tmp_path / "mongo", port=port, journal=False)
        work = wait_for(lambda: _status(reg.work, WorkStatus.INDEXED), timeout=180)
        import pymongo

        from fingerprint.store import MongoWorkStore

        store = MongoWorkStore(pymongo.MongoClient(mongo.url)[settings.MONGO_DB])
        assert store.get(work.engine_id)["text"] == normalize(novel_text)
    finally:
        supervisor.stop(proc)
        if mongo:
            mongo.stop()


def test_a_retry_takes_over_its_own_lock_left_by_a_redis_crash(platform_stores, people,
                                                              novel_text, settings):
    """A work's ingestion lock that Redis kept through a crash (its append-only file) holds the
    id of the task that took it: that task's retry (same id) takes it over and indexes the
    work at once; another task still waits for it, then gives up to retry later."""
    from core.connections import get_redis

    settings.INGEST_LOCK_WAIT_SECONDS = 0.5
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text[:6000]),
                                 ingest=False)
    key = f"tracker:ingest-lock:{reg.work.engine_id}"
    get_redis().set(key, "task-1", ex=600)
    with pytest.raises(errors.StorageUnavailable, match="another task"):
        ingestion.ingest(reg.work.pk, token="task-2")
    assert ingestion.ingest(reg.work.pk, token="task-1") == "indexed"
    assert get_redis().get(key) is None  # released when done
    assert Work.objects.get(pk=reg.work.pk).status == WorkStatus.INDEXED
