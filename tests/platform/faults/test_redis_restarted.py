"""Drill (a): Redis (broker and fingerprint index) killed by SIGKILL during an import of 200
works and started again while the import runs. The import ends with a non-zero status naming
the works it could not queue; importing the same file again queues those (it must not skip
them as unchanged), and the sweeper (crawler.sweep_stuck, driven here with a short
settings.WORK_PENDING_REQUEUE_SECONDS) queues again the works whose tasks Redis lost. An
ingestion lock that survived in Redis is taken over by the retry of the task that took it; a
work whose task Redis lost is queued again as a new task, which waits for the lock's expiry
(INGEST_LOCK_TTL_SECONDS, short here). Every work ends indexed exactly once and the index equals a rebuild from
MongoDB."""

from __future__ import annotations

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.db import connection
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from core import notes, registration
from core.models import Work, WorkStatus
from core.text_extraction import extract_pasted
from crawler.models import TargetSite
from crawler.scan_actions import do_start_scan
from crawler.tasks import sweep_stuck

pytestmark = pytest.mark.django_db(transaction=True)
WORKS = 200
OUTAGE_WORKS = 10  # works the import fails to queue before Redis is started again


def _import(records, outcome: dict) -> None:
    """Run ``import_works`` on ``records``; ``outcome`` gets "exit" (0 or the exception) and
    "out" (its standard output)."""
    out = io.StringIO()
    try:
        call_command("import_works", str(records), "--holder", "Drill", "--create-holder", "--no-progress",
                     stdout=out, stderr=io.StringIO())
        outcome["exit"] = 0
    except Exception as exc:  # CommandError: works not queued while Redis was down
        outcome["exit"] = exc
    finally:
        outcome["out"] = out.getvalue()
        connection.close()


def test_import_recovers_when_redis_is_killed_and_started_again(
        private_stack, novel_text, tmp_path, settings, until, check_platform):
    records = tmp_path / "works.jsonl"
    with records.open("w", encoding="utf-8") as out:
        for i in range(WORKS):  # small texts, each its own slice of the novel
            start = (i * 97) % (len(novel_text) - 400)
            out.write(json.dumps({"id": f"w{i:03d}", "title": f"第{i}篇",
                                  "text": novel_text[start:start + 400]}, ensure_ascii=False)
                      + "\n")
    # A work's ingestion lock taken just before the kill outlives it (the append-only file keeps
    # it); when the task that took it was lost too, the new task the sweeper queues waits for
    # settings.INGEST_LOCK_TTL_SECONDS: short here.
    private_stack.start_worker(TRACKER_STORAGE_RETRY_MAX="2", TRACKER_INGEST_LOCK_TTL="10",
                               TRACKER_INGEST_LOCK_WAIT="2")
    not_queued = Work.objects.filter(status=WorkStatus.PENDING,
                                     error__startswith=notes.stored_prefix("not_queued"))
    first = {}
    importer = threading.Thread(target=_import, args=(records, first))
    importer.start()
    until(lambda: Work.objects.filter(status=WorkStatus.INDEXED).count() >= 20,
          "20 works indexed before the kill")
    private_stack.kill_redis()
    until(lambda: not_queued.count() >= OUTAGE_WORKS, f"{OUTAGE_WORKS} works not queued")
    private_stack.restart_redis()
    importer.join(timeout=300)
    assert not importer.is_alive(), "the import hung after Redis came back"
    assert first["exit"] != 0, first["out"]  # works left unqueued are reported
    assert Work.objects.count() == WORKS  # every work registered, queued or not
    left = set(not_queued.values_list("reference", flat=True))
    assert len(left) >= OUTAGE_WORKS
    assert Work.objects.filter(reference__in=left, status=WorkStatus.INDEXED).count() == 0

    # The person imports the same file again: the unqueued works are queued, not skipped.
    second = {}
    _import(records, second)
    assert second["exit"] == 0, second["out"]
    assert "registered: 0" in second["out"]
    assert not not_queued.exists()
    # Beat's sweeper queues again the works whose tasks were lost with the killed Redis.
    settings.WORK_PENDING_REQUEUE_SECONDS = 5

    def all_indexed() -> bool:
        sweep_stuck()
        return Work.objects.filter(status=WorkStatus.INDEXED).count() == WORKS

    until(all_indexed, "every work indexed after Redis came back", poll=1.0)
    check_platform()


def test_a_worker_busy_when_redis_restarts_stays_up_and_takes_new_work(
        private_stack, drill_site, people, novel_text, until):
    """The worker holds an unacknowledged crawl task (a page answered after 3 s) and waits on
    the broker for more when Redis is killed: it must reconnect when Redis is back, not exit.
    Celery 5.7.0 exits here ("Unrecoverable error", its reconnect closes the lost connection
    twice); pyproject.toml keeps Celery below 5.7 for this."""
    from tracker.celery import app

    site = drill_site([novel_text[:400]], pages=1, delay=3.0)
    target = TargetSite.objects.create(name="slow", start_urls=[site.url],
                                       allowed_domains=["127.0.0.1"], delay_seconds=0)
    worker = private_stack.start_worker(CRAWLER_READ_TIMEOUT="10")
    do_start_scan(target)
    until(lambda: site.page_requests >= 1, "the worker fetching the slow page")
    private_stack.kill_redis()
    private_stack.restart_redis()

    def answers_or_exited():
        try:
            return worker.poll() is not None or app.control.ping(timeout=1.0)
        except (ConnectionError, OperationalError, RedisError):  # this process reconnecting
            return False

    until(answers_or_exited, "the worker answering or exiting after Redis came back")
    log = next(private_stack.folder.glob("drill-*.log"))
    assert worker.poll() is None, f"the worker exited ({worker.returncode}):\n{log.read_text()[-3000:]}"

    work = registration.register_work(people["press"], "after", extract_pasted(novel_text[:600]),
                                      ingest=True).work
    until(lambda: Work.objects.get(pk=work.pk).status == WorkStatus.INDEXED,
          "a work registered after Redis came back indexed")
