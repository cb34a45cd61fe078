"""The one match exporter (crawler.exports): spreadsheet-safe cells, the chapter column from the
one chapter attribution, the same columns in JSON Lines, CSV and XLSX."""

import csv
import io
import json

import pytest
from django.utils import timezone, translation

from core.models import RightsHolder, Work
from core.spreadsheets import safe
from crawler import exports
from crawler.models import Match


@pytest.mark.parametrize("value", ["=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx"])
def test_formula_cells_are_neutralized(value):
    assert safe(value) == "'" + value


def test_plain_cells_are_kept():
    assert safe("https://a.example/") == "https://a.example/"
    assert safe(0.5) == 0.5


@pytest.fixture
def spilled_match(db):
    holder = RightsHolder.objects.create(name="出版社")
    work = Work.objects.create(holder=holder, reference="XYJ", title="西游记", sections=[
        {"title": "第一回", "start": 0, "end": 100}, {"title": "第二回", "start": 100, "end": 300}])
    now = timezone.now()
    return Match.objects.create(
        page_id="p1", version_id="v1", url="https://copy.example/x", domain="copy.example",
        title="=cmd|' /C calc'!A0", work=work, score=0.9, containment_page=0.9,
        containment_work=0.5, first_seen=now, last_seen=now, section="",
        passages=[{"page_start": 0, "page_end": 204, "work_start": 96, "work_end": 300}])


def test_every_format_names_the_chapter_once_and_guards_formulas(spilled_match):
    rows = Match.objects.select_related("work__holder")
    (line,) = list(exports.jsonl_lines(rows))
    record = json.loads(line)
    assert record["chapter"] == "第二回"  # the 4 characters spilling into 第一回 are not a chapter
    assert record["passages"] == [{"page_start": 4, "page_end": 204, "work_start": 100,
                                   "work_end": 300}]
    assert record["page_title"].startswith("=")  # JSON Lines keeps values as they are
    plain = list(csv.DictReader(io.StringIO("".join(exports.csv_lines(rows, translated=False)))))
    assert plain[0]["chapter"] == "第二回" and plain[0]["page_title"].startswith("'=")
    with translation.override("en"):
        body = b"".join(exports.csv_chunks(rows)).decode("utf-8")
        from openpyxl import load_workbook

        sheet = load_workbook(io.BytesIO(exports.to_xlsx(rows))).active
    assert body.startswith("\ufeffmatch id,rights holder")
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert values[0][:2] == ["match id", "rights holder"]
    assert values[1][exports.KEYS.index("chapter")] == "第二回"
    assert values[1][exports.KEYS.index("page_title")].startswith("'=")


def test_dashboard_exports_write_what_the_list_shows_with_typed_xlsx_cells(spilled_match):
    from datetime import datetime

    from openpyxl import load_workbook

    rows = Match.objects.select_related("work__holder")
    with translation.override("zh-hans"), timezone.override("Asia/Shanghai"):
        body = b"".join(exports.csv_chunks(rows)).decode("utf-8-sig")
        sheet = load_workbook(io.BytesIO(exports.to_xlsx(rows))).active
    [row] = list(csv.DictReader(io.StringIO(body)))
    assert row["仍然匹配"] == "是" and (row["得分"], row["作品出现在网页上的比例"]) == ("90%", "50%")
    assert "True" not in body and "0.9" not in body
    cells = {heading.value: cell for heading, cell in zip(sheet[1], sheet[2], strict=True)}
    # a date cell has no zone: its heading names it (it was "首次发现" alone, the +08:00 lost)
    score, first_seen = cells["得分"], cells["首次发现 (Asia/Shanghai, UTC+08:00)"]
    assert score.value == 0.9 and score.number_format == "0%"  # a number, shown in %
    assert isinstance(first_seen.value, datetime) and first_seen.is_date
    local = timezone.localtime(spilled_match.first_seen, timezone.get_fixed_timezone(480))
    assert f"{first_seen.value:%Y-%m-%d %H:%M:%S}" == f"{local:%Y-%m-%d %H:%M:%S}"  # +0800
    assert cells["仍然匹配"].value == "是"
    # the CSV: the same date as text a spreadsheet reads as a date, under the same heading
    assert row["首次发现 (Asia/Shanghai, UTC+08:00)"] == f"{local:%Y-%m-%d %H:%M:%S}"


def test_a_rewritten_match_says_its_kind_in_every_format(spilled_match):
    Match.objects.filter(pk=spilled_match.pk).update(kind="rewritten")
    rows = Match.objects.select_related("work__holder")
    (line,) = list(exports.jsonl_lines(rows))
    assert json.loads(line)["kind"] == "rewritten"
    with translation.override("zh-hans"):
        body = b"".join(exports.csv_chunks(rows)).decode("utf-8")
    (row,) = list(csv.DictReader(io.StringIO(body.lstrip("\ufeff"))))
    assert row["匹配类型"] == "洗稿（改写）"
    from openpyxl import load_workbook

    with translation.override("en"):
        sheet = load_workbook(io.BytesIO(exports.to_xlsx(rows))).active
    values = [[c.value for c in r] for r in sheet.iter_rows()]
    assert values[0][exports.KEYS.index("kind")] == "kind of match"
    assert values[1][exports.KEYS.index("kind")] == "rewritten (洗稿)"


def test_a_match_names_the_other_works_its_page_copies_in_every_format(spilled_match):
    # the same text registered twice by the holder and once by another holder, and a whole
    # novel holding the copied work: the holder's works by reference, the other holder's
    # counted as a rights conflict and never named
    holder = spilled_match.work.holder
    twin = Work.objects.create(holder=holder, reference="XYJ-2", title="西游记（重印）")
    novel = Work.objects.create(holder=holder, reference="", title="西游记全集")
    rival = Work.objects.create(holder=RightsHolder.objects.create(name="另一家"),
                                reference="RIVAL-9", title="别家西游")
    Match.objects.filter(pk=spilled_match.pk).update(same_text=[rival.pk, twin.pk],
                                                     part_of_works=[novel.pk])
    rows = Match.objects.select_related("work__holder")
    (line,) = list(exports.jsonl_lines(rows))
    record = json.loads(line)
    assert record["same_text"] == {"works": ["XYJ-2"], "other_holders": 1}
    assert record["part_of_works"] == {"works": ["西游记全集"], "other_holders": 0}
    assert record["part_works"] == {"works": [], "other_holders": 0}
    with translation.override("zh-hans"):
        body = b"".join(exports.csv_chunks(rows)).decode("utf-8-sig")
    (row,) = list(csv.DictReader(io.StringIO(body)))
    assert row["文本相同的作品"] == "XYJ-2; 另有 1 部属于其他权利人（权利冲突）"
    assert (row["所属的作品（是其一部分）"], row["包含的作品"]) == ("西游记全集", "")
    from openpyxl import load_workbook

    with translation.override("en"):
        sheet = load_workbook(io.BytesIO(exports.to_xlsx(rows))).active
    cells = {heading.value: cell.value for heading, cell in zip(sheet[1], sheet[2], strict=True)}
    assert cells["same text as"] == "XYJ-2; 1 of another rights holder (a rights conflict)"
    assert cells["part of works"] == "西游记全集" and cells["works inside it"] in ("", None)
    plain = "".join(exports.csv_lines(rows, translated=False))
    assert all("RIVAL" not in text and "别家" not in text for text in (line, body, plain))
