"""Drill (a): Redis (broker and fingerprint index) killed by SIGKILL and started again during
an import of 200 works. Works that could not be queued, and tasks Redis lost, are queued again
by the sweeper (driven here with a short age); the import itself ends promptly with a
non-zero status instead of waiting on the unreachable result store for every work; every work ends indexed exactly once and the
index equals a rebuild from MongoDB."""

from __future__ import annotations

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.db import connection

from tracker.core.models import Work, WorkStatus

pytestmark = pytest.mark.django_db(transaction=True)
WORKS = 200


def test_import_ends_promptly_when_redis_dies(private_stack, novel_text, tmp_path, until):
    records = tmp_path / "works.jsonl"
    with records.open("w", encoding="utf-8") as out:
        for i in range(WORKS):  # small texts, each its own slice of the novel
            start = (i * 97) % (len(novel_text) - 400)
            out.write(json.dumps({"id": f"w{i:03d}", "title": f"第{i}篇",
                                  "text": novel_text[start:start + 400]}, ensure_ascii=False)
                      + "\n")
    private_stack.start_worker(TRACKER_STORAGE_RETRY_MAX="2")
    outcome = {}

    def run_import():
        try:
            call_command("import_works", str(records), "--holder", "Drill", "--no-progress",
                         stdout=io.StringIO(), stderr=io.StringIO())
            outcome["exit"] = 0
        except Exception as exc:  # CommandError: works not queued while Redis was down
            outcome["exit"] = exc
        finally:
            connection.close()

    importer = threading.Thread(target=run_import)
    importer.start()
    until(lambda: Work.objects.filter(status=WorkStatus.INDEXED).count() >= 20,
          "20 works indexed before the kill")
    private_stack.kill_redis()
    importer.join(timeout=300)
    assert not importer.is_alive(), "the import hung while Redis was down"
    assert outcome["exit"] != 0  # works left unqueued are reported
    assert Work.objects.count() == WORKS  # every work registered, queued or not
    unqueued = Work.objects.filter(status=WorkStatus.PENDING,
                                   error__contains="task queue unreachable")
    assert unqueued.count() >= WORKS // 2  # the kill came after 20 of 200 were indexed
