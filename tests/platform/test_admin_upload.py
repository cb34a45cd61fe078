"""Uploading works through the admin: a file is stored and read by a job in the worker, the form
going to the job's progress page; what needs no reading (size, suffix, an empty file) and pasted
text are refused in the form with a message that says why."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core import import_jobs, ingestion
from core.models import ImportJob, ImportState, Work, WorkStatus


def _form(people, **extra) -> dict:
    return {"holder": people["press"].pk, "reference": "", "title": "", "author": "",
            "kind": "", "language": "", "upload": "", "text": "", **extra}


def _finished_job(client, response, wait_for) -> dict:
    """The job the form redirected to, polled until it is no longer running."""
    assert response.status_code == 302, response.content[:2000]
    job = ImportJob.objects.get()
    assert response["Location"] == f"/core/work/import/{job.pk}/"
    status_url = f"/core/work/import/{job.pk}/status/"
    return wait_for(lambda: (state := client.get(status_url).json())["state"] != "running"
                    and state)


@pytest.mark.django_db(transaction=True)
def test_holder_uploads_a_gbk_novel_and_the_worker_reads_and_indexes_it(
        client, people, idle_worker, platform_stores, novel_text, wait_for):
    client.force_login(people["alice"])
    upload = SimpleUploadedFile("西游记.txt", novel_text.encode("gbk", errors="ignore"))
    state = _finished_job(client, client.post("/core/work/add/", _form(people, upload=upload)),
                          wait_for)
    work = Work.objects.get(holder=people["press"])
    assert state["state"] == "finished" and state["work"] == work.pk
    assert state["work_url"] == f"/core/work/{work.pk}/change/"
    assert work.title == "西游记（第一回至第三回）" and work.author == "吴承恩"
    assert work.kind == "novel" and len(work.sections) == 3 and work.source_name == "西游记.txt"
    assert work.reference.startswith("W-")
    assert not import_jobs.staged_file(ImportJob.objects.get()).exists()
    work = wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).first())
    assert ingestion.work_text(work).startswith("西游记（第一回至第三回）")
    page = client.get(f"/core/work/{work.pk}/change/")
    assert "第二回" in page.text  # the sections are listed on the work's page


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name, data, code, message", [
    ("fake.pdf", "只是文字，不是 PDF。".encode(), "mismatch", "its content is plain text"),
    ("old.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "unsupported",
     "Word 97-2003"),
])
def test_a_file_the_job_cannot_read_fails_with_the_reason(
        client, people, idle_worker, platform_stores, wait_for, name, data, code, message):
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", _form(
        people, reference="r1", upload=SimpleUploadedFile(name, data)),
        headers={"accept-language": "en"})
    state = _finished_job(client, response, wait_for)
    assert (state["state"], state["error_code"]) == (ImportState.FAILED, code)
    assert message in state["error"]  # in the uploader's language (en)
    assert not Work.objects.exists()
    assert not import_jobs.staged_file(ImportJob.objects.get()).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name, data, message", [
    ("empty.txt", b"", "is empty"),  # Django's own check of an empty upload
    ("photo.jpg", b"\xff\xd8\xff\xe0", "not accepted"),
])
def test_what_needs_no_reading_is_refused_in_the_form(client, people, name, data, message):
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", _form(
        people, reference="r1", title="t", upload=SimpleUploadedFile(name, data)),
        headers={"accept-language": "en"})
    assert response.status_code == 200
    assert message in response.text
    assert not Work.objects.exists() and not ImportJob.objects.exists()


@pytest.mark.django_db
def test_a_pasted_text_over_the_length_limit_is_refused_in_the_form(client, people, settings):
    """Pasted text longer than WORK_TEXT_MAX_CHARS characters (under the upload limit in
    bytes): the form says so in the user's language instead of a server error."""
    client.force_login(people["alice"])
    long_text = "x" * (settings.WORK_TEXT_MAX_CHARS + 1)
    response = client.post("/core/work/add/", _form(people, reference="r1", text=long_text),
                           headers={"accept-language": "zh-hans"})
    assert response.status_code == 200
    assert (f"文本有 {settings.WORK_TEXT_MAX_CHARS + 1} 个字符；一部作品最多 "
            f"{settings.WORK_TEXT_MAX_CHARS} 个字符。") in response.text
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_pasted_text_needs_letters_and_one_source(client, people):
    client.force_login(people["alice"])
    form = {"holder": people["press"].pk, "reference": "r1", "title": "t", "author": "",
            "kind": "", "language": ""}
    assert "粘贴的正文 中没有正文" in client.post("/core/work/add/", {**form, "text": "。。。"}).text
    assert "Upload a file or paste" in client.post(
        "/core/work/add/", {**form, "text": ""}, headers={"accept-language": "en"}).text
    assert not Work.objects.exists()
    assert client.post("/core/work/add/", {**form, "text": "第一章\n正文在此。"}).status_code == 302
    assert Work.objects.get(reference="r1").status == WorkStatus.PENDING
