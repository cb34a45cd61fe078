"""A ZIP bomb (a .docx or a .zip whose entries would expand past
settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES) is refused on every path with the archive-bomb
message in the user's language: an upload job (real worker) fails "archive_bomb", the .zip
import form answers with the error on its field, ``import_works`` ends with the reason (a bomb
inside a .zip is one failed line, the rest imported), and nothing is registered."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from core.models import ImportJob, Work

pytestmark = pytest.mark.django_db(transaction=True)
BOMB_MB = 520  # over the 500 MB of settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES


def _bomb(entry: str) -> bytes:
    """A ZIP of about 0.5 MB whose one ``entry`` expands to BOMB_MB megabytes of zeros."""
    out, chunk = io.BytesIO(), b"\0" * 2**20
    with (zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
          archive.open(entry, "w", force_zip64=True) as stream):
        for _ in range(BOMB_MB):
            stream.write(chunk)
    return out.getvalue()


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {"docx": _bomb("word/document.xml"), "zip": _bomb("big.txt")}


def test_a_docx_bomb_fails_its_upload_job_in_the_users_language(
        client, people, idle_worker, platform_stores, bombs, wait_for, settings):
    assert len(bombs["docx"]) < 2**20 and BOMB_MB * 2**20 > settings.ARCHIVE_MAX_UNCOMPRESSED_BYTES
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", {
        "holder": people["press"].pk, "reference": "bomb", "title": "", "author": "", "kind": "",
        "language": "", "text": "", "upload": SimpleUploadedFile("bomb.docx", bombs["docx"])},
        headers={"accept-language": "zh-hans"})
    assert response.status_code == 302
    job = ImportJob.objects.get()
    url = f"/core/work/import/{job.pk}/status/"
    state = wait_for(lambda: (s := client.get(url).json())["state"] != "running" and s)
    assert (state["state"], state["error_code"]) == ("failed", "archive_bomb"), state
    assert f"DOCX 文件解压后将达 {BOMB_MB} MB" in state["error"] and "压缩炸弹" in state["error"]
    assert not Work.objects.exists()


def test_the_zip_import_form_refuses_a_bomb_on_its_field(client, people, bombs):
    client.force_login(people["alice"])
    for language, words in (("en", f"The ZIP file would expand to {BOMB_MB} MB"),
                            ("zh-hans", f"ZIP 文件解压后将达 {BOMB_MB} MB")):
        response = client.post("/core/work/import/", {
            "holder": people["press"].pk, "archive": SimpleUploadedFile("works.zip", bombs["zip"])},
            headers={"accept-language": language})
        assert response.status_code == 200
        assert words in response.content.decode()
    assert not ImportJob.objects.exists()


def test_import_works_says_why_a_bomb_is_refused(tmp_path, bombs, novel_text):
    (tmp_path / "bomb.docx").write_bytes(bombs["docx"])
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 item"):
        call_command("import_works", str(tmp_path / "bomb.docx"), "--holder", "甲",
                     "--create-holder", "--no-progress", stdout=out)
    assert f"DOCX file would expand to {BOMB_MB} MB" in out.getvalue()
    (tmp_path / "bomb.zip").write_bytes(bombs["zip"])
    with pytest.raises(CommandError, match=f"ZIP file would expand to {BOMB_MB} MB"):
        call_command("import_works", str(tmp_path / "bomb.zip"), "--holder", "甲",
                     "--create-holder", "--no-progress", stdout=io.StringIO())
    outer = tmp_path / "works.zip"
    with zipfile.ZipFile(outer, "w") as archive:
        archive.writestr("bomb.docx", bombs["docx"])
        archive.writestr("xiyouji.txt", novel_text)
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 item"):  # the bomb is the one failed line
        call_command("import_works", str(outer), "--holder", "甲", "--create-holder",
                     "--no-progress", stdout=out)
    assert "registered: 1" in out.getvalue()
    assert f"DOCX file would expand to {BOMB_MB} MB" in out.getvalue()
    assert list(Work.objects.values_list("reference", flat=True)) == ["xiyouji"]
