"""The session's real Celery worker runs tasks against the test database, MongoDB and Redis."""

import time

import pytest

from tracker.core import notes
from tracker.core.models import RightsHolder, Work, WorkStatus
from tracker.core.tasks import ingest_work


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
