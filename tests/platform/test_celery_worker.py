"""The session's real Celery worker runs tasks against the test database, MongoDB and Redis."""

import time
from pathlib import Path

import pytest

from core import notes
from core.models import RightsHolder, Work, WorkStatus
from core.tasks import ingest_work


@pytest.mark.django_db(transaction=True)
def test_worker_answers_and_sees_committed_rows(celery_worker):
    assert ingest_work.delay(999_999).get(timeout=60) == "gone"
    holder = RightsHolder.objects.create(name="Worker Press")
    work = Work.objects.create(holder=holder, reference="w1", title="t", sha256="0" * 64)
    # No staged text for this work: the worker must find the row and record the failure.
    assert ingest_work.delay(work.pk).get(timeout=60) == "failed"
    work.refresh_from_db()
    assert work.status == WorkStatus.FAILED
    assert "missing" in notes.in_english(work.error)



@pytest.mark.django_db(transaction=True)
def test_idle_worker_drops_tasks_left_by_earlier_tests(celery_worker, request):
    from tracker.celery import app

    left = ingest_work.apply_async(args=[999_998], countdown=300)  # the worker holds it
    inspect = app.control.inspect(destination=[celery_worker], timeout=2.0)
    deadline = time.monotonic() + 30
    while not any((inspect.scheduled() or {}).values()):
        assert time.monotonic() < deadline, "the worker never received the task"
    request.getfixturevalue("idle_worker")
    # Revoked: the worker discards it when it falls due instead of running it.
    assert left.id in (inspect.revoked() or {}).get(celery_worker, [])


@pytest.mark.django_db(transaction=True)
def test_worker_and_beat_logs_are_in_the_documented_files(celery_worker, worker_env, tmp_path):
    """`make run` names celery-worker.log and celery-beat.log: the log lines are there, not in
    the <log>.out file kept for what a process prints before its logging starts."""
    from django.conf import settings

    from lib.runtime import supervisor

    result = ingest_work.delay(999_997)
    assert result.get(timeout=60) == "gone"
    log = Path(settings.VAR_DIR) / "celery-worker.log"
    line = f"Task tracker.core.tasks.ingest_work[{result.id}] succeeded"
    deadline = time.monotonic() + 30
    while line not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"{log} lacks {line!r}"
        time.sleep(0.2)
    beat_log = tmp_path / "celery-beat.log"
    beat = supervisor.start_beat(worker_env(), beat_log, tmp_path / "beat.pid",
                              cwd=settings.BASE_DIR)
    try:
        while "beat: Starting" not in (beat_log.read_text() if beat_log.exists() else ""):
            assert beat.poll() is None and time.monotonic() < deadline + 60, \
                supervisor.output_path(beat_log).read_text(errors="replace")
            time.sleep(0.2)
    finally:
        supervisor.stop(beat)
