"""Names with control characters: refused at input (the API, the admin's holder form, an
import line) with a message in the user's language; for what is stored already, every export
(CSV, XLSX, JSON Lines) and the command line stay safe: the XLSX opens (no 500), nothing
a terminal would act on (ANSI escapes, BEL, bidi overrides) is printed, JSON reads back the
same value."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from tests.dashboard.test_api import token_for

pytestmark = pytest.mark.django_db
HOSTILE = "星河\x1b[2J\x1b[31m出版\x07社\u202e"
RAW = ("\x1b", "\x07", "\u202e")


def _client(user, language="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_names_with_control_characters_are_refused_at_input(scenario, live_server, tmp_path):
    import requests

    from core.models import RightsHolder, Work

    api = requests.Session()
    api.headers.update({"Authorization": f"Bearer {token_for(scenario.users.holder_a)}",
                        "Accept-Language": "zh-hans"})
    for field in ("title", "author", "reference"):
        body = {"holder": scenario.a.pk, "reference": "R1", "text": "正文内容" * 20,
                field: "西游\x1b[31m记"}
        answer = api.post(f"{live_server.url}/api/v1/works/", json=body, timeout=30)
        assert answer.status_code == 400, (field, answer.text)
        assert field in answer.json()["fields"] and "U+001B" in answer.text
        assert "不允许" in answer.text  # in the user's language
    answer = api.post(f"{live_server.url}/api/v1/works/", timeout=30, json={
        "holder": scenario.a.pk, "reference": "R2", "text": "正文内容" * 20, "title": "标题\u202e"})
    assert answer.status_code == 400 and "U+202E" in answer.text  # a bidi override too

    staff = _client(scenario.users.staff)
    page = staff.post("/core/rightsholder/add/", {"name": "Evil\x1b[31m Press"})
    assert page.status_code == 200 and "Control characters are not allowed" in page.content.decode()
    assert not RightsHolder.objects.filter(name__startswith="Evil").exists()

    lines = tmp_path / "works.jsonl"
    lines.write_text(json.dumps({"id": "j1", "title": "坏\x07标题", "text": "正文内容" * 20},
                                ensure_ascii=False) + "\n"
                     + json.dumps({"id": "j2", "title": "好标题", "text": "别的正文" * 20},
                                  ensure_ascii=False) + "\n", encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(Exception, match="1 item"):
        call_command("import_works", str(lines), "--holder", scenario.a.name, "--no-progress",
                     stdout=out)
    assert "U+0007" in out.getvalue()
    assert set(Work.objects.filter(reference__in=["j1", "j2"]).values_list("reference", flat=True)) \
        == {"j2"}


def test_stored_control_characters_are_safe_in_every_export(scenario, capsys):
    from openpyxl import load_workbook

    from crawler.cases import open_case
    from crawler.models import Match

    type(scenario.a).objects.filter(pk=scenario.a.pk).update(name=HOSTILE)
    match = next(m for m in scenario.matches if m.work.holder_id == scenario.a.pk)
    type(match.work).objects.filter(pk=match.work_id).update(title="=西游记\x08\x1b[5m")
    case, _ = open_case(match.work, match.domain)
    Match.objects.filter(pk=match.pk).update(case=case)

    for user in (scenario.users.staff, scenario.users.holder_a):
        response = _client(user).get("/crawler/match/export/xlsx/")
        assert response.status_code == 200
        sheet = load_workbook(io.BytesIO(response.content)).active
        cells = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
        assert "星河\\x1b[2J\\x1b[31m出版\\x07社\\u202e" in cells
        assert "'=西游记\\x08\\x1b[5m" in cells
    body = b"".join(_client(scenario.users.staff).get(
        "/crawler/match/export/csv/").streaming_content).decode("utf-8")
    assert "星河\\x1b[2J" in body and not any(c in body for c in (*RAW, "\x00"))

    call_command("cases", "--format", "csv")
    call_command("cases")
    call_command("matches", "--format", "csv")
    call_command("matches")
    printed = capsys.readouterr().out
    assert not any(c in printed for c in (*RAW, "\x00", "\x9b"))
    call_command("cases")
    [record] = [json.loads(line) for line in capsys.readouterr().out.splitlines()
                if "星河" in line]
    assert record["holder"] == HOSTILE  # JSON Lines keeps the value, escaped
