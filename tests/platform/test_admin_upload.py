"""Uploading works through the admin: a file or pasted text becomes an indexed work; bad files
are refused in the form with a message that says why."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tracker.core import ingestion
from tracker.core.models import Work, WorkStatus


@pytest.mark.django_db(transaction=True)
def test_holder_uploads_a_gbk_novel_and_the_worker_indexes_it(
        client, people, celery_worker, platform_stores, novel_text, wait_for):
    client.force_login(people["alice"])
    upload = SimpleUploadedFile("西游记.txt", novel_text.encode("gbk", errors="ignore"))
    response = client.post("/core/work/add/", {"holder": people["press"].pk, "reference": "",
                                               "title": "", "author": "", "kind": "",
                                               "language": "", "upload": upload, "text": ""})
    assert response.status_code == 302, response.content[:2000]
    work = Work.objects.get(holder=people["press"])
    assert work.title == "西游记（第一回至第三回）" and work.author == "吴承恩"
    assert work.kind == "novel" and len(work.sections) == 3 and work.source_name == "西游记.txt"
    assert work.reference.startswith("W-")
    work = wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).first())
    assert ingestion.work_text(work).startswith("西游记（第一回至第三回）")
    page = client.get(f"/core/work/{work.pk}/change/")
    assert "第二回" in page.text  # the sections are listed on the work's page


@pytest.mark.django_db
@pytest.mark.parametrize("name, data, message", [
    ("empty.txt", b"", "is empty"),  # Django's own check of an empty upload
    ("fake.pdf", "只是文字".encode(), "its content is plain text"),
    ("photo.jpg", b"\xff\xd8\xff\xe0", "not accepted"),
])
def test_bad_files_are_refused_in_the_form(client, people, name, data, message):
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", {
        "holder": people["press"].pk, "reference": "r1", "title": "t", "author": "",
        "kind": "", "language": "", "upload": SimpleUploadedFile(name, data), "text": ""},
        headers={"accept-language": "en"})
    assert response.status_code == 200
    assert message in response.text
    assert not Work.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("source", ["upload", "text"])
def test_a_text_over_the_length_limit_is_refused_in_the_form(client, people, settings, source):
    """A file or pasted text longer than WORK_TEXT_MAX_CHARS characters (under the upload
    limit in bytes): the form says so in the user's language instead of a server error."""
    client.force_login(people["alice"])
    long_text = "x" * (settings.WORK_TEXT_MAX_CHARS + 1)
    value = SimpleUploadedFile("long.txt", long_text.encode()) if source == "upload" else long_text
    form = {"holder": people["press"].pk, "reference": "r1", "title": "t", "author": "",
            "kind": "", "language": "", "upload": "", "text": "", source: value}
    response = client.post("/core/work/add/", form, headers={"accept-language": "zh-hans"})
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
