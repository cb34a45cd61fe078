"""/api/v1/cases/ scoped per holder (list, detail, pages, decisions) and `manage.py cases`
(one line per case, JSON Lines or CSV with the formula guard)."""

from __future__ import annotations

import csv
import io
import json

import pytest
import requests
from django.core.management import call_command

from dashboard.models import ApiToken


@pytest.fixture
def api(live_server):
    """Factory ``api(user) -> requests.Session`` with a Bearer token of ``user``; the session's
    ``url(path)`` gives the absolute /api/v1/ URL."""

    def make(user):
        token = ApiToken(user=user, name="cases")
        raw = token.issue()
        token.save()
        session = requests.Session()
        session.headers.update({"Authorization": f"Bearer {raw}", "Accept-Language": "en"})
        session.url = lambda path: f"{live_server.url}/api/v1/{path}"
        return session

    return make


def test_cases_api_is_scoped_per_holder(scenario_cases, scenario, api):
    big, news = scenario_cases["big"], scenario_cases["news"]
    b = api(scenario.users.holder_b)
    listed = b.get(b.url("cases/"), timeout=30).json()
    assert [row["id"] for row in listed["results"]] == [news.pk]
    assert listed["results"][0]["domain"] == "example.org"
    assert b.get(b.url(f"cases/{big.pk}/"), timeout=30).status_code == 404
    assert b.get(b.url(f"cases/{big.pk}/pages/"), timeout=30).status_code == 404
    refused = b.post(b.url(f"cases/{big.pk}/decide/"), timeout=30,
                     json={"verb": "dismiss", "reason": "guess"})
    assert refused.status_code == 404
    big.refresh_from_db()
    assert big.state == "new"

    a = api(scenario.users.holder_a)
    rows = a.get(a.url("cases/?domain=example.cn"), timeout=30).json()["results"]
    assert [(r["id"], r["pages"], r["pages_still_up"], r["state"]) for r in rows] == [
        (big.pk, 120, 120, "new")]
    pages = a.get(a.url(f"cases/{big.pk}/pages/?page=3"), timeout=30).json()
    assert pages["count"] == 120 and len(pages["results"]) == 120 - 2 * 50
    assert {row["work"] for row in pages["results"]} == {scenario.novel.pk}


def test_decide_through_the_api_is_audited_and_refuses_a_wrong_move(scenario_cases, scenario,
                                                                    api):
    from core.models import AuditEvent

    a = api(scenario.users.holder_a)
    case = scenario_cases["novel"]
    done = a.post(a.url(f"cases/{case.pk}/decide/"), timeout=30,
                  json={"verb": "confirm", "reason": "a copy of chapter 2"})
    assert done.status_code == 200 and done.json()["state"] == "confirmed"
    assert AuditEvent.objects.about(case).first().username == "holder_a"
    again = a.post(a.url(f"cases/{case.pk}/decide/"), timeout=30,
                   json={"verb": "confirm", "reason": "twice"})
    assert again.status_code == 400 and again.json()["code"] == "action_refused"
    assert "cannot become" in again.json()["message"]


def test_cases_command_lists_one_case_per_work_and_site(scenario_cases, scenario, capsys):
    from crawler.models import Case

    Case.objects.filter(pk=scenario_cases["news"].pk).update(domain="=cmd|' /C calc'!A0")
    call_command("cases", "--format", "jsonl")
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted((r["work_reference"], r["domain"], r["pages"]) for r in rows) == sorted([
        ("XYJ-001", "example.com", 1), ("XYJ-001", "example.net", 1),
        ("XYJ-001", "example.cn", 120), (scenario.news.reference, "=cmd|' /C calc'!A0", 1)])
    call_command("cases", "--format", "csv", "--state", "new", "--language", "en")
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out.removeprefix("\ufeff"))))
    assert len(table) == 4
    assert "'=cmd|' /C calc'!A0" in {row["site (registered domain)"] for row in table}  # the formula guard
    call_command("cases", "--format", "csv", "--state", "removed", "--language", "en")
    out = capsys.readouterr().out
    assert out.startswith("\ufeff")
    assert list(csv.reader(io.StringIO(out[1:]))) == [
        ["case id", "rights holder", "work id", "work reference", "work title",
         "site (registered domain)", "state", "reason", "pages", "pages still up",
         "opened (Asia/Shanghai, UTC+08:00)", "state changed (Asia/Shanghai, UTC+08:00)",
         "notice sent (Asia/Shanghai, UTC+08:00)", "removed (Asia/Shanghai, UTC+08:00)",
         "first scan"]]


def test_the_cases_csv_is_the_dashboards_bom_localised_states_and_dates_with_the_zone(
        scenario_cases, capsys):
    """`manage.py cases --format csv` writes the dashboard's CSV: a byte-order mark, headings
    and states in the language asked for (zh-hans by default), times as dates a spreadsheet
    reads (local time of the zone named in the heading), not ISO text."""
    from datetime import datetime

    from django.utils import timezone

    from crawler.models import Case

    when = datetime(2026, 11, 27, 23, 30, 5, tzinfo=timezone.get_fixed_timezone(0))  # UTC
    Case.objects.filter(pk=scenario_cases["big"].pk).update(opened_at=when)
    call_command("cases", "--format", "csv")
    out = capsys.readouterr().out
    assert out.startswith("\ufeff")
    table = list(csv.DictReader(io.StringIO(out[1:])))
    assert {row["状态"] for row in table} == {"新"}  # the label, not "new"
    big = next(row for row in table if row["案件 ID"] == str(scenario_cases["big"].pk))
    assert big["立案时间 (Asia/Shanghai, UTC+08:00)"] == "2026-11-28 07:30:05"
    assert all("T" not in row["状态变更时间 (Asia/Shanghai, UTC+08:00)"] for row in table)
