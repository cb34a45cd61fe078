"""Notes the code writes (a scan cancelled by someone, a scan skipped) read in the reader's
language on the scan run page, in the progress JSON, in the audit log and through the API;
notes stored as English sentences before they were coded still show as they were written."""

from __future__ import annotations

from django.test import Client

from crawler.models import ScanRun, ScanStatus

from . import test_api

api = test_api.api  # the fixtures of the API tests
_fresh_throttle_counts = test_api._fresh_throttle_counts

OLD_NOTE = "skipped: scan #3 of this site is still running"  # as stored before notes were coded


def client_for(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _cancelled(scenario) -> ScanRun:
    from crawler.scan_actions import do_cancel_scan

    run = ScanRun.objects.create(site=ScanRun.objects.first().site, trigger="admin")
    assert do_cancel_scan(run, scenario.users.staff) is True
    run.refresh_from_db()
    return run


def _note_on_page(client, run) -> str:
    html = client.get(f"/crawler/scanrun/{run.pk}/change/").content.decode()
    start = html.index('data-field="note">') + len('data-field="note">')
    return html[start:html.index("</dd>", start)]


def test_cancel_note_reads_in_the_users_language(scenario):
    run = _cancelled(scenario)
    staff = scenario.users.staff.username

    assert _note_on_page(client_for(scenario.users.staff, "zh-hans"), run) == f"已由 {staff} 取消"
    assert _note_on_page(client_for(scenario.users.staff, "en"), run) == f"cancelled by {staff}"

    url = f"/crawler/scanrun/progress/?id={run.pk}"
    zh = client_for(scenario.users.staff, "zh-hans").get(url).json()["scans"][0]
    assert zh["note"] == f"已由 {staff} 取消"

    audit = client_for(scenario.users.staff, "zh-hans").get(
        "/core/auditevent/?kind=scan").content.decode()
    assert f"已由 {staff} 取消" in audit and "cancelled by" not in audit


def test_notes_stored_as_english_text_still_show(scenario):
    old = ScanRun.objects.create(site=ScanRun.objects.first().site, trigger="schedule",
                                 status=ScanStatus.SKIPPED, note=OLD_NOTE)
    assert _note_on_page(client_for(scenario.users.staff, "zh-hans"), old) == OLD_NOTE
    progress = client_for(scenario.users.staff, "zh-hans").get(
        f"/crawler/scanrun/progress/?id={old.pk}").json()["scans"][0]
    assert progress["note"] == OLD_NOTE


def test_api_gives_the_note_as_code_parameters_and_words(scenario, api):
    run = _cancelled(scenario)
    old = ScanRun.objects.create(site=run.site, trigger="schedule", status=ScanStatus.SKIPPED,
                                 note=OLD_NOTE)
    staff = scenario.users.staff.username

    body = api(scenario.users.staff, "zh-hans").get(f"scans/{run.pk}/").json()
    assert body["note_code"] == "scan_cancelled" and body["note_params"] == {"user": staff}
    assert body["note"] == f"已由 {staff} 取消"
    assert api(scenario.users.staff).get(f"scans/{run.pk}/").json()["note"] == \
        f"cancelled by {staff}"

    body = api(scenario.users.staff).get(f"scans/{old.pk}/").json()
    assert (body["note"], body["note_code"], body["note_params"]) == (OLD_NOTE, "", {})
