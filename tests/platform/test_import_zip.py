"""A holder imports a .zip of works in the dashboard: a background job with a progress row,
a summary like ``import_works``'s, a bad file reported and never a job left running."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from core import import_jobs
from core.models import AuditEvent, ImportJob, ImportState, Work, WorkStatus

pytestmark = pytest.mark.django_db(transaction=True)


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_zip_import_runs_in_the_worker_and_reports_each_file(
        client, people, idle_worker, platform_stores, novel_text, wait_for):
    client.force_login(people["alice"])
    data = _zip({"novels/xiyouji.txt": novel_text.encode(),
                 "news/today.txt": "今日新闻\n本报讯 市民纷纷外出踏青，公园里人山人海。".encode(),
                 "broken.pdf": b"not a pdf at all", "cover.png": b"\x89PNG\r\n\x1a\n"})
    response = client.post("/core/work/import/", {
        "holder": people["press"].pk, "archive": SimpleUploadedFile("works.zip", data)},
        headers={"accept-language": "en"})
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert response["Location"] == f"/core/work/import/{job.pk}/"
    status_url = f"/core/work/import/{job.pk}/status/"

    state = wait_for(lambda: client.get(status_url).json()["state"] != "running" and
                     client.get(status_url).json())
    assert state["state"] == "finished" and (state["done"], state["total"]) == (3, 3)
    assert state["percent"] == 100
    summary = state["summary"]
    assert sorted(summary["registered"]) == ["news/today", "novels/xiyouji"]
    assert summary["failed"][0][0] == "broken.pdf" and "content is plain text" in \
        summary["failed"][0][1]  # worded in the uploader's language (en)
    assert summary["skipped"] == [["cover.png", "not a work file (type not accepted)"]]
    novel = Work.objects.get(reference="novels/xiyouji")
    wait_for(lambda: Work.objects.filter(pk=novel.pk, status=WorkStatus.INDEXED).exists())
    # by subject: the session's worker caches content type ids that earlier transactional
    # tests' flushes may have changed
    assert AuditEvent.objects.get(kind="work", subject=str(novel)).username == "alice"
    assert not import_jobs.staged_file(job).exists()

    client.force_login(people["bob"])  # another holder's job is not there
    assert client.get(status_url).status_code == 404


def test_a_damaged_archive_is_refused_in_the_form(client, people):
    client.force_login(people["alice"])
    page = client.post("/core/work/import/", {
        "holder": people["press"].pk, "archive": SimpleUploadedFile("works.zip", b"PK\x03\x04xx")},
        headers={"accept-language": "en"})
    assert page.status_code == 200 and "damaged" in page.text
    assert not ImportJob.objects.exists()


def test_a_job_whose_worker_was_lost_is_failed_once_its_resumptions_are_spent(
        client, people, settings):
    """A stalled archive job is queued again IMPORT_RESUME_ATTEMPTS times (resumed:
    tests/platform/test_import_under_load.py), then failed."""
    job = ImportJob.objects.create(holder=people["press"], user=people["alice"], name="w.zip",
                                   options={"resumed": settings.IMPORT_RESUME_ATTEMPTS})
    ImportJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    client.force_login(people["alice"])
    state = client.get(f"/core/work/import/{job.pk}/status/",
                       headers={"accept-language": "en"}).json()
    assert state["state"] == ImportState.FAILED and "stopped moving" in state["error"]
    assert state["error_code"] == "stalled"
