"""The session's real Celery worker runs tasks against the test database, MongoDB and Redis."""

import pytest

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
    assert "missing" in work.error
