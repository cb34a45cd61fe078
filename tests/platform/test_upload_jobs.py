"""Upload jobs (core.single_upload) in a real worker: a hostile .docx leaves the web
request at once and its job fails "too_large"; a duplicate fails with the holder's work and may
be registered anyway; a job whose worker was lost is failed by the sweeper."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from bench.docx_extract import hostile_docx
from core import import_jobs, work_actions
from core.models import (
    AuditEvent,
    ImportJob,
    ImportKind,
    ImportState,
    RightsConflict,
    Work,
    WorkStatus,
)
from core.text_extraction import extract_pasted

pytestmark = pytest.mark.django_db(transaction=True)


def _form(holder, reference: str, upload, **extra) -> dict:
    return {"holder": holder.pk, "reference": reference, "title": "", "author": "", "kind": "",
            "language": "", "text": "", "upload": upload, **extra}


def _settled(client, job_id: int, wait_for, timeout: float = 90.0) -> dict:
    url = f"/core/work/import/{job_id}/status/"
    return wait_for(lambda: (state := client.get(url).json())["state"] != "running" and state,
                    timeout)


def test_a_docx_of_100_mb_of_paragraphs_fails_too_large_in_the_worker(
        client, people, idle_worker, platform_stores, wait_for):
    """The issue's case: a few MB whose document.xml expands to 100 MB of small paragraphs.
    The request only stores it; the job stops reading past the text limit."""
    data = hostile_docx(100)
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", _form(
        people["press"], "bomb", SimpleUploadedFile("bomb.docx", data)),
        headers={"accept-language": "en"})
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert job.kind == ImportKind.FILE and job.state == ImportState.RUNNING
    assert import_jobs.staged_file(job).stat().st_size == len(data)
    state = _settled(client, job.pk, wait_for, timeout=300)
    assert (state["state"], state["error_code"]) == ("failed", "too_large")
    assert "more than 1000000 paragraphs" in state["error"]  # before 10,000,000 characters
    assert not Work.objects.exists() and not import_jobs.staged_file(job).exists()


def test_a_duplicate_file_fails_and_can_be_registered_anyway(
        client, people, idle_worker, platform_stores, novel_text, wait_for):
    work = work_actions.do_register_work(people["press"], "xiyouji", extract_pasted(novel_text),
                                         acting_user=people["alice"]).work
    wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).exists())
    chapter_two = novel_text[novel_text.index("\n第二回"):novel_text.index("\n第三回")]
    client.force_login(people["alice"])
    client.post("/core/work/add/", _form(people["press"], "ch2", SimpleUploadedFile(
        "第二回.txt", chapter_two.encode())), headers={"accept-language": "zh-hans"})
    job = ImportJob.objects.get()
    state = _settled(client, job.pk, wait_for)
    assert (state["state"], state["error_code"]) == ("failed", "duplicate_work")
    assert "与您的作品《xiyouji》（xiyouji）有 100% 相同" in state["error"]
    assert state["existing_url"] == f"/core/work/{work.pk}/change/"
    assert state["anyway_url"] == f"/core/work/import/{job.pk}/anyway/"
    assert import_jobs.staged_file(job).exists()  # kept for "register anyway"
    assert not Work.objects.filter(reference="ch2").exists()

    assert client.get(state["anyway_url"]).status_code == 405
    again = client.post(state["anyway_url"])
    new = ImportJob.objects.exclude(pk=job.pk).get()
    assert again["Location"] == f"/core/work/import/{new.pk}/"
    assert new.options["allow_duplicate"] is True and not import_jobs.staged_file(job).exists()
    assert _settled(client, new.pk, wait_for)["state"] == "finished"
    copy = Work.objects.get(holder=people["press"], reference="ch2")
    new.refresh_from_db()
    assert copy.source_name == "第二回.txt" and new.work == copy
    assert AuditEvent.objects.filter(kind="work", subject=str(copy), username="alice").exists()
    assert client.post(state["anyway_url"]).status_code == 302  # the file is gone: said so
    assert ImportJob.objects.count() == 2

    client.force_login(people["bob"])  # another holder's job is not there
    assert client.get(f"/core/work/import/{new.pk}/status/").status_code == 404


def test_a_new_file_for_a_work_and_another_holders_copy_go_through_their_jobs(
        client, people, idle_worker, platform_stores, novel_text, wait_for):
    """A file on a work's change page updates that work through its job; another holder's
    upload of the same text is registered, indexed and flagged as a rights conflict."""
    work = work_actions.do_register_work(people["press"], "xiyouji", extract_pasted(
        novel_text[:novel_text.index("\n第三回")]), acting_user=people["alice"]).work
    wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).exists())
    client.force_login(people["alice"])
    client.post(f"/core/work/{work.pk}/change/", _form(
        people["press"], "xiyouji", SimpleUploadedFile("全本.txt", novel_text.encode()),
        title=work.title, kind=work.kind, language=work.language))
    state = _settled(client, ImportJob.objects.get().pk, wait_for)
    assert (state["state"], state["work"], state["summary"]) == (
        "finished", work.pk, {"outcome": "updated"})
    work.refresh_from_db()
    assert work.source_name == "全本.txt" and len(work.sections) == 3
    wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).exists())

    client.force_login(people["bob"])
    client.post("/core/work/add/", _form(people["agency"], "xyj", SimpleUploadedFile(
        "西游记.txt", novel_text.encode())))
    job = ImportJob.objects.exclude(work=work).get()
    assert _settled(client, job.pk, wait_for)["state"] == "finished"
    copy = Work.objects.get(holder=people["agency"])
    wait_for(lambda: RightsConflict.objects.filter(existing=work, claimed=copy).exists())


def test_an_upload_job_whose_worker_was_lost_is_failed_by_the_sweeper(people, settings):
    from crawler.tasks import sweep_stuck

    job = ImportJob.objects.create(holder=people["press"], user=people["alice"], name="lost.txt",
                                   kind=ImportKind.FILE, options={"reference": "lost"})
    import_jobs.staged_file(job).parent.mkdir(parents=True, exist_ok=True)
    import_jobs.staged_file(job).write_bytes(b"text")
    ImportJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(
        seconds=settings.IMPORT_STUCK_SECONDS + 1))
    assert sweep_stuck()["imports_failed"] == [job.pk]
    job.refresh_from_db()
    assert (job.state, job.error_code) == (ImportState.FAILED, "stalled")
    assert not import_jobs.staged_file(job).exists()


def test_a_file_whose_reading_killed_the_worker_is_refused_at_its_next_start(people, settings):
    """A worker process killed while reading (out of memory) gives the task back
    (CELERY_TASK_ACKS_LATE): past UPLOAD_MAX_ATTEMPTS starts the job fails instead of looping."""
    from core import single_upload

    job = ImportJob.objects.create(
        holder=people["press"], user=people["alice"], name="poison.txt", kind=ImportKind.FILE,
        language="en", options={"reference": "poison"},
        summary={"attempts": settings.UPLOAD_MAX_ATTEMPTS})
    import_jobs.staged_file(job).parent.mkdir(parents=True, exist_ok=True)
    import_jobs.staged_file(job).write_bytes("第一章\n正文在此。".encode())
    assert single_upload.run(job.pk) == ImportState.FAILED
    job.refresh_from_db()
    assert job.error_code == "worker_lost" and not import_jobs.staged_file(job).exists()
    assert not Work.objects.exists()
    assert single_upload.run(job.pk) == "gone"
