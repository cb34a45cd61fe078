"""The case list's CSV and XLSX exports: exactly the cases the list shows with its filters, states
in the reader's language, times as dates in the configured zone (named in the headings), formula
cells neutralised, and a holder's user gets only its holder's cases."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from django.test import Client
from openpyxl import load_workbook


def _client(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _csv(response) -> list[dict]:
    body = b"".join(response.streaming_content).decode("utf-8")
    assert body.startswith("\ufeff")  # the byte-order mark: Excel reads it as UTF-8
    return list(csv.DictReader(io.StringIO(body[1:])))


def _xlsx(response) -> list[dict]:
    rows = list(load_workbook(io.BytesIO(response.content)).active.iter_rows(values_only=True))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_the_case_list_exports_what_it_shows_in_both_languages(scenario_cases, scenario):
    from django.utils import timezone

    from crawler.models import Case

    when = datetime(2026, 11, 27, 23, 30, 5, tzinfo=timezone.get_fixed_timezone(0))  # UTC
    Case.objects.filter(pk=scenario_cases["big"].pk).update(state="confirmed", opened_at=when)
    Case.objects.filter(pk=scenario_cases["novel"].pk).update(
        state="confirmed", domain="=HYPERLINK(\"http://evil\")")
    listed = "?state__exact=confirmed"
    staff = scenario.users.staff
    page = _client(staff, "en").get(f"/crawler/case/{listed}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="/crawler/case/export/csv/{listed}"' in html
    assert f'href="/crawler/case/export/xlsx/{listed}"' in html

    expected = {scenario_cases["big"].pk, scenario_cases["novel"].pk}  # the news case is "new"
    for language, state, case_id, opened in [
            ("en", "confirmed", "case id", "opened (Asia/Shanghai, UTC+08:00)"),
            ("zh-hans", "已确认", "案件 ID", "立案时间 (Asia/Shanghai, UTC+08:00)")]:
        client = _client(staff, language)
        response = client.get(f"/crawler/case/export/csv/{listed}")
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response["Content-Disposition"].startswith('attachment; filename="cases-')
        rows = _csv(response)
        assert {int(r[case_id]) for r in rows} == expected
        assert {next(v for k, v in r.items() if k in ("state", "状态")) for r in rows} == {state}
        big = next(r for r in rows if int(r[case_id]) == scenario_cases["big"].pk)
        assert big[opened] == "2026-11-28 07:30:05"  # local time of the zone in the heading
        assert "'=HYPERLINK(\"http://evil\")" in {v for r in rows for v in r.values()}

        sheet = _xlsx(client.get(f"/crawler/case/export/xlsx/{listed}"))
        assert {r[case_id] for r in sheet} == expected
        assert {next(v for k, v in r.items() if k in ("state", "状态")) for r in sheet} == {state}
        big = next(r for r in sheet if r[case_id] == scenario_cases["big"].pk)
        assert big[opened] == datetime(2026, 11, 28, 7, 30, 5)  # a date cell, not text
        cells = {v for r in sheet for v in r.values() if isinstance(v, str)}
        assert "'=HYPERLINK(\"http://evil\")" in cells
        assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)

    # a holder's user gets its own holder's cases only, whatever the filters say
    mine = _csv(_client(scenario.users.holder_b, "en").get("/crawler/case/export/csv/"))
    assert [int(r["case id"]) for r in mine] == [scenario_cases["news"].pk]
    assert _client(staff, "en").get("/crawler/case/export/pdf/").status_code == 403
    bad = _client(staff, "en").get("/crawler/case/export/csv/?opened_at__gte=yesterday")
    assert bad.status_code == 400
