"""`manage.py import_works`: folders, ZIP archives and JSON Lines; re-import; reasons."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from core import notes
from core.models import AuditEvent, RightsHolder, Work, WorkStatus

pytestmark = pytest.mark.django_db


def _run(*args) -> str:
    out = io.StringIO()
    call_command("import_works", *map(str, args), "--create-holder", "--no-progress", stdout=out)
    return out.getvalue()


def _records(*records) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"


@pytest.fixture
def folder(tmp_path, novel_text):
    root = tmp_path / "works"
    (root / "novels").mkdir(parents=True)
    (root / "novels" / "xiyouji.txt").write_text(novel_text, encoding="utf-8")
    (root / "novels" / "gbk.txt").write_bytes(novel_text[:3000].encode("gbk", errors="ignore"))
    (root / "cover.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "news.jsonl").write_text(_records(
        {"id": "n1", "title": "新闻一", "text": "今天天气很好，市民纷纷外出踏青。", "author": "记者甲"},
        {"id": 2, "title": "新闻二", "text": "本报讯 新的一年开始了。", "kind": "news"}),
        encoding="utf-8")
    return root


def test_folder_import_then_reimport(folder):
    out = _run(folder, "--holder", "出版社甲")
    holder = RightsHolder.objects.get(name="出版社甲")
    assert "registered: 4" in out and "failed:     0" in out
    assert "cover.png: not a work file" in out
    refs = set(Work.objects.filter(holder=holder).values_list("reference", flat=True))
    assert refs == {"novels/xiyouji", "novels/gbk", "n1", "2"}
    novel = Work.objects.get(reference="novels/xiyouji")
    assert (novel.title, novel.author, novel.kind, len(novel.sections)) == (
        "西游记（第一回至第三回）", "吴承恩", "novel", 3)
    assert Work.objects.get(reference="n1").author == "记者甲"
    assert Work.objects.get(reference="2").kind == "news"
    assert all(w.status == WorkStatus.PENDING for w in Work.objects.all())

    again = _run(folder, "--holder", "出版社甲")
    assert "registered: 0" in again and "updated:    0" in again and "n1: unchanged" in again
    (folder / "news.jsonl").write_text(_records(
        {"id": "n1", "title": "新闻一（更正）", "text": "今天天气很好，市民纷纷外出踏青。"}),
        encoding="utf-8")
    third = _run(folder, "--holder", "出版社甲")
    assert "updated:    1" in third
    assert Work.objects.get(reference="n1").title == "新闻一（更正）"
    assert Work.objects.filter(holder=holder).count() == 4


def test_same_reference_for_two_holders_is_two_works(folder):
    _run(folder / "news.jsonl", "--holder", "甲")
    _run(folder / "news.jsonl", "--holder", "乙")
    assert Work.objects.filter(reference="n1").count() == 2


def test_bad_records_fail_with_reasons_and_the_rest_is_imported(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(_records({"id": "ok", "title": "好", "text": "正常的正文内容。"},
                             {"id": "ok", "title": "重复", "text": "另一段正文。"},
                             {"id": "empty", "title": "空", "text": "   "},
                             {"title": "无编号", "text": "正文"}) + "{not json\n",
                    encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(CommandError, match="4 item"):
        call_command("import_works", str(path), "--holder", "甲", "--create-holder", "--no-progress",
                     stdout=out)
    text = out.getvalue()
    assert "registered: 1" in text and "failed:     4" in text
    assert "already imported" in text and '"text" is missing or empty' in text
    assert '"id" is missing' in text and "not JSON" in text
    assert Work.objects.get(reference="ok").title == "好"


def test_zip_import_and_zip_bomb(tmp_path, novel_text):
    good = tmp_path / "works.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a/xiyouji.txt", novel_text)
        archive.writestr("b.jsonl", _records({"id": "z1", "title": "Z", "text": "压缩包里的正文。"}))
    assert "registered: 2" in _run(good, "--holder", "甲")
    assert set(Work.objects.values_list("reference", flat=True)) == {"a/xiyouji", "z1"}

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big.txt", b"a" * (40 * 1024 * 1024))
    with pytest.raises(CommandError, match="archive bomb"):
        _run(bomb, "--holder", "甲")


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        _run(tmp_path / "nope", "--holder", "甲")


@pytest.mark.django_db(transaction=True)
def test_now_indexes_without_a_worker(platform_stores, folder):
    from core.engine import get_engine

    # gbk.txt is the novel's first 3,000 characters, a duplicate once the novel is indexed
    out = _run(folder / "novels", "--holder", "甲", "--now", "--allow-duplicates")
    assert "2 works fingerprinted" in out
    work = Work.objects.get(reference="xiyouji")
    assert work.status == WorkStatus.INDEXED
    assert get_engine().has_work(work.engine_id)


@pytest.mark.django_db(transaction=True)  # each work queued when its registration commits
def test_reimport_queues_a_work_left_unqueued_and_exits_0(folder):
    _run(folder, "--holder", "Press")
    work = Work.objects.get(reference="n1")
    # as enqueue_ingest leaves it when Redis was unreachable during the first import (set even
    # if a session worker handled the work meanwhile)
    Work.objects.filter(pk=work.pk).update(status=WorkStatus.PENDING, error=notes.coded(
        "not_queued", "Not queued yet (task queue unreachable: %(error)s)", error="refused"))
    out = _run(folder, "--holder", "Press")
    assert "n1: unchanged; still pending, queued again" in out
    assert "not queued" not in out  # it was queued this time: the command exits 0


def test_an_epub_with_empty_title_and_author_is_imported_with_the_rest(tmp_path, novel_text):
    from tests.lib.text.test_uploads import _epub

    archive = tmp_path / "works.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("blank.epub", _epub([("第一回", "东胜神洲海外有一国土，名曰傲来国。")],
                                            title="", author=""))
        zipped.writestr("xiyouji.txt", novel_text)
    out = _run(archive, "--holder", "甲")
    assert "registered: 2" in out and "failed:     0" in out
    assert Work.objects.get(reference="blank").author == ""


def test_a_broken_epub_in_a_zip_is_one_failed_line_and_the_rest_is_imported(tmp_path,
                                                                            novel_text):
    from tests.lib.text.test_uploads import broken_epub

    archive = tmp_path / "works.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("broken.epub", broken_epub("no spine"))
        zipped.writestr("xiyouji.txt", novel_text)
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 item"):
        call_command("import_works", str(archive), "--holder", "甲", "--create-holder",
                     "--no-progress", stdout=out)
    assert "registered: 1" in out.getvalue() and "failed:     1" in out.getvalue()
    assert "broken.epub: The EPUB file is damaged" in out.getvalue()
    assert Work.objects.filter(reference="xiyouji").exists()


@pytest.mark.parametrize("damaged", ["broken.txt", "records.jsonl"])
def test_a_damaged_entry_of_a_zip_is_one_failed_line_and_the_rest_is_imported(
        tmp_path, novel_text, damaged):
    """One byte of an entry's compressed data flipped (its CRC no longer matches)."""
    archive = tmp_path / "works.zip"
    damaged_text = "\n".join(f"第{n}段 正文内容" for n in range(300)) if damaged.endswith(
        ".txt") else _records(*({"id": f"r{n}", "title": "记录", "text": f"正文内容 {n} " * 20}
                               for n in range(30)))
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr(damaged, damaged_text)
        zipped.writestr("xiyouji.txt", novel_text)
    data = bytearray(archive.read_bytes())
    info = zipfile.ZipFile(archive).getinfo(damaged)
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 100] ^= 0xFF
    archive.write_bytes(bytes(data))
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 item"):
        call_command("import_works", str(archive), "--holder", "甲", "--create-holder",
                     "--no-progress", stdout=out)
    assert "registered: 1" in out.getvalue(), out.getvalue()
    assert f"{damaged}: {damaged} in the archive is damaged" in out.getvalue()
    assert Work.objects.filter(reference="xiyouji").exists()


def test_unknown_holder_is_refused_with_the_known_ones_unless_created(tmp_path, folder):
    RightsHolder.objects.create(name="出版社甲")
    with pytest.raises(CommandError, match="no rights holder '出版社乙'; known holders: "
                                           "'出版社甲'") as refused:
        call_command("import_works", str(folder / "news.jsonl"), "--holder", "出版社乙",
                     "--no-progress", stdout=io.StringIO())
    assert refused.value.returncode == 2
    assert not RightsHolder.objects.filter(name="出版社乙").exists()
    assert not Work.objects.exists()
    out = io.StringIO()
    call_command("import_works", str(folder / "news.jsonl"), "--holder", "出版社乙",
                 "--create-holder", "--no-progress", stdout=out)
    created = RightsHolder.objects.get(name="出版社乙")
    assert "Created rights holder '出版社乙'" in out.getvalue()
    assert Work.objects.filter(holder=created).count() == 2
    assert AuditEvent.objects.filter(kind=AuditEvent.Kind.ACCESS, holder=created,
                                     new_state="created").count() == 1
