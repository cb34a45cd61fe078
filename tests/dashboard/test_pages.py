"""The dashboard's pages through Django's test client: overview, match list with filters,
evidence view, review, notices, exports, reports; and who may see what (ids guessed)."""

import csv
import io

import pytest
from django.test import Client

from core.models import AuditEvent
from crawler.review_actions import do_review_match
from dashboard.notice_actions import do_draft_notices


def client_for(user, language="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_overview_counts_for_staff_and_holder(scenario):
    page = client_for(scenario.users.staff).get("/")
    assert page.status_code == 200
    overview = page.context["o"]
    assert overview["awaiting"] == 3
    assert sum(overview["chart_per_day"]["values"]) == 3
    assert len(overview["chart_per_day"]["values"]) == 90
    assert [d["domain"] for d in overview["domains"]][0] in {
        "copy.example.com", "mirror.example.net", "news-copy.example.org"}
    assert overview["works"][0]["work__title"] == "西游记（节选）"
    assert overview["works"][0]["n"] == 2
    assert len(overview["scans"]) == 2 and overview["show_errors"]
    html = page.content.decode()
    assert '<span class="dash-error" data-field="errors_in_words">timeout 2</span>' in html
    assert "skipped as robots.txt asks: 1" in html  # obeying the site is no error

    holder = client_for(scenario.users.holder_b).get("/")
    overview = holder.context["o"]
    assert overview["awaiting"] == 1
    assert [w["work__title"] for w in overview["works"]] == [scenario.news.title]
    assert [d["domain"] for d in overview["domains"]] == ["news-copy.example.org"]
    assert not overview["show_errors"] and "timeout 2" not in holder.content.decode()
    assert sorted(scan.progress["matches"] for scan in overview["scans"]) == [0, 1]  # not 3


def test_the_overview_covers_the_days_its_settings_say_and_its_headings_say_them(scenario,
                                                                                 settings):
    from datetime import timedelta

    from django.utils import timezone

    from crawler.models import ScanRun

    old = ScanRun.objects.create(site=ScanRun.objects.first().site, status="finished",
                                 started_at=timezone.now() - timedelta(days=5))
    settings.OVERVIEW_DAYS, settings.OVERVIEW_SCAN_DAYS = 45, 3
    said = {"en": ("Matches per day, last 45 days", "Scans of the last 3 days"),
            "zh-hans": ("近 45 天每日匹配数", "近 3 天的扫描")}
    for language, headings in said.items():
        page = client_for(scenario.users.staff, language).get("/")
        overview = page.context["o"]
        assert len(overview["chart_per_day"]["values"]) == 45
        assert len(overview["scans"]) == 2 and old not in overview["scans"]
        assert all(heading in page.content.decode() for heading in headings)
    settings.OVERVIEW_SCAN_DAYS = 7
    page = client_for(scenario.users.staff).get("/")
    assert old in page.context["o"]["scans"] and "Scans of the last 7 days" in page.content.decode()


def listed(response) -> list[int]:
    return sorted(m.pk for m in response.context["cl"].result_list)


@pytest.mark.parametrize("query,expected", [
    ("", [0, 1, 2]),
    ("domain=copy.example.com", [0]),
    ("score=0", [2]),
    ("score=20", [1]),
    ("score=80", [0]),
    ("q=mirror", [1]),
    ("q=西游记第二回", [0]),
    ("review_status__exact=confirmed", []),
    ("first_seen_from=2000-01-01&first_seen_to=2100-01-01", [0, 1, 2]),
])
def test_match_list_filters(scenario, query, expected):
    response = client_for(scenario.users.staff).get(f"/crawler/match/?{query}")
    assert response.status_code == 200
    assert listed(response) == sorted(scenario.matches[i].pk for i in expected)


def test_match_list_date_range_excludes_older(scenario):
    from django.utils import timezone

    since = (timezone.localdate() - timezone.timedelta(days=5)).isoformat()
    response = client_for(scenario.users.staff).get(f"/crawler/match/?first_seen_from={since}")
    assert listed(response) == sorted([scenario.matches[0].pk, scenario.matches[2].pk])


def test_bad_date_is_reported_not_fatal(scenario):
    response = client_for(scenario.users.staff).get("/crawler/match/?first_seen_from=yesterday")
    assert response.status_code == 200
    assert "Not a date: yesterday" in response.content.decode()


def _work_choices(response) -> list[tuple[str, bool]]:
    from dashboard.filters import WorkFilter

    changelist = response.context["cl"]
    return [(c["display"], c["selected"]) for spec in changelist.filter_specs
            if isinstance(spec, WorkFilter) for c in spec.choices(changelist)]


def test_work_filter_lists_the_most_matched_works_and_the_chosen_one(scenario, monkeypatch):
    from dashboard.filters import WorkFilter

    monkeypatch.setattr(WorkFilter, "LIMIT", 1)
    staff = client_for(scenario.users.staff)
    assert _work_choices(staff.get("/crawler/match/")) == [("All", True), ("西游记（节选） (2)", False)]
    chosen = staff.get(f"/crawler/match/?work__id__exact={scenario.news.pk}")
    assert listed(chosen) == [scenario.matches[2].pk]
    assert _work_choices(chosen)[-1] == (f"{scenario.news.title} (1)", True)
    assert staff.get("/crawler/match/?work__id__exact=xyz").status_code == 302  # ?e=1
    other = client_for(scenario.users.holder_a).get(
        f"/crawler/match/?work__id__exact={scenario.news.pk}")
    assert listed(other) == [] and scenario.news.title not in other.content.decode()


def test_holder_sees_only_its_matches_and_no_holder_filter(scenario):
    response = client_for(scenario.users.holder_a).get("/crawler/match/")
    assert listed(response) == sorted(m.pk for m in scenario.matches[:2])
    assert "news-copy.example.org" not in response.content.decode()


def test_evidence_view_shows_stored_text_with_passages(scenario):
    match = scenario.matches[0]
    response = client_for(scenario.users.holder_a).get(f"/crawler/match/{match.pk}/change/")
    assert response.status_code == 200
    context = response.context
    marked = [s.text for s in context["page_segments"] if s.passages]
    text = scenario.texts[match.pk]
    assert marked == [text[p["page_start"]:p["page_end"]] for p in scenario.passages[match.pk]]
    assert context["sections"] == ["第二回　悟彻菩提真妙理　断魔归本合元神"]
    assert context["hash_ok"] is True
    assert context["sentences"][0].startswith(
        f"{round(match.containment_page * 100)}% of the page comes from “第二回")


def test_review_through_the_evidence_view(scenario):
    match = scenario.matches[0]
    client = client_for(scenario.users.holder_a)
    url = f"/crawler/match/{match.pk}/change/"
    response = client.post(url, {"decision": "confirmed", "reason": ""}, follow=True)
    assert "Give a reason" in response.content.decode()
    client.post(url, {"decision": "confirmed", "reason": "整章照搬"})
    match.refresh_from_db()
    assert match.review_status == "confirmed"
    assert AuditEvent.objects.about(match).get().username == "holder_a"


def test_bulk_review_asks_for_a_reason_then_applies(scenario):
    client = client_for(scenario.users.staff)
    ids = [m.pk for m in scenario.matches[:2]]
    form = {"action": "mark_false_positive", "_selected_action": ids}
    page = client.post("/crawler/match/", form)
    assert page.status_code == 200 and "Reason" in page.content.decode()
    client.post("/crawler/match/", {**form, "apply": "1", "reason": "引用，合理使用"})
    statuses = {m.pk: m.review_status for m in scenario.matches[0].__class__.objects.all()}
    assert [statuses[i] for i in ids] == ["false_positive", "false_positive"]


def test_export_csv_follows_the_filters(scenario):
    response = client_for(scenario.users.staff).get(
        "/crawler/match/export/csv/?domain=copy.example.com")
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content).decode("utf-8")
    assert body.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(body[1:])))
    assert rows[0][:2] == ["match id", "rights holder"]
    assert [r[4] for r in rows[1:]] == ["https://copy.example.com/novel/xyj-2.html"]


def test_export_xlsx(scenario):
    from openpyxl import load_workbook

    response = client_for(scenario.users.holder_b).get("/crawler/match/export/xlsx/")
    sheet = load_workbook(io.BytesIO(response.content)).active
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert len(values) == 2 and values[1][4] == scenario.matches[2].url


def test_evidence_report_is_self_contained(scenario):
    match = scenario.matches[0]
    response = client_for(scenario.users.staff, "zh-hans").get(f"/crawler/match/{match.pk}/report/")
    html = response.content.decode()
    assert response["Content-Disposition"].startswith("attachment")
    assert "<script" not in html and "<link" not in html
    assert "证据报告" in html and match.url in html
    first = scenario.passages[match.pk][0]
    assert scenario.texts[match.pk][first["page_start"]:first["page_end"]] in html


def test_evidence_report_as_pdf(scenario, pdf_reader):
    match = scenario.matches[0]
    response = client_for(scenario.users.staff, "zh-hans").get(
        f"/crawler/match/{match.pk}/report/pdf/")
    assert response["Content-Type"] == "application/pdf"
    text = "".join(p.extract_text() for p in pdf_reader.PdfReader(io.BytesIO(response.content)).pages)
    assert "证据报告" in text and "copy.example.com" in text


def test_notice_pages_and_downloads(scenario):
    match = scenario.matches[0]
    do_review_match(match, "confirmed", "copy", scenario.users.staff)
    client = client_for(scenario.users.holder_a)
    response = client.post("/crawler/match/", {"action": "draft_notice", "apply": "1",
                                            "_selected_action": [match.pk], "language": "en"})
    notice = match.takedown_notices.get()
    assert response.status_code == 302 and response.url.endswith(f"/{notice.pk}/change/")
    page = client.get(response.url)
    assert "Notice of Copyright Infringement" in page.content.decode()
    client.post(f"/dashboard/takedownnotice/{notice.pk}/status/", {"status": "sent"})
    notice.refresh_from_db()
    assert notice.status == "sent" and notice.sent_at
    docx = client.get(f"/dashboard/takedownnotice/{notice.pk}/download/docx/")
    assert docx.status_code == 200 and docx.content[:2] == b"PK"


GUESSED = [
    "/crawler/match/{m}/change/", "/crawler/match/{m}/report/", "/dashboard/takedownnotice/{n}/change/",
    "/dashboard/takedownnotice/{n}/download/docx/", "/dashboard/takedownnotice/{n}/download/txt/",
]


def test_other_holders_objects_answer_404_everywhere(scenario):
    other = scenario.matches[2]  # holder B's
    do_review_match(other, "confirmed", "copy", scenario.users.staff)
    notice, = do_draft_notices([other], scenario.users.staff)
    intruder = client_for(scenario.users.holder_a)
    for url in GUESSED:
        assert intruder.get(url.format(m=other.pk, n=notice.pk)).status_code == 404, url
    before = other.review_status
    assert intruder.post(f"/crawler/match/{other.pk}/change/",
                         {"decision": "false_positive", "reason": "x"}).status_code == 404
    assert intruder.post(f"/dashboard/takedownnotice/{notice.pk}/status/",
                         {"status": "sent"}).status_code == 404
    intruder.post("/crawler/match/", {"action": "mark_false_positive", "apply": "1",
                                   "reason": "x", "_selected_action": [other.pk]})
    other.refresh_from_db()
    assert other.review_status == before
    exported = b"".join(intruder.get(f"/crawler/match/export/csv/?q={other.url}")
                        .streaming_content).decode("utf-8")
    assert other.url not in exported
    trail = intruder.get("/core/auditevent/").content.decode()
    assert other.url not in trail
    owner = client_for(scenario.users.holder_b)
    for url in GUESSED:
        assert owner.get(url.format(m=other.pk, n=notice.pk)).status_code == 200, url


def test_audit_trail_admin_is_read_only(scenario):
    event = do_review_match(scenario.matches[0], "confirmed", "copy", scenario.users.staff)
    client = client_for(scenario.users.staff)
    assert client.get("/core/auditevent/").status_code == 200
    assert client.get("/core/auditevent/add/").status_code == 403
    assert client.post(f"/core/auditevent/{event.pk}/delete/").status_code == 403
    response = client.post(f"/core/auditevent/{event.pk}/change/", {"reason": "edited"})
    assert response.status_code in (200, 403)
    event.refresh_from_db()
    assert event.reason == "copy"


def test_evidence_view_says_what_is_missing(scenario, platform_stores):
    mongo, _redis = platform_stores
    match = scenario.matches[0]
    mongo["page_versions"].delete_many({})
    response = client_for(scenario.users.staff).get(f"/crawler/match/{match.pk}/change/")
    assert response.status_code == 200
    assert "the captured page version is not in the page store" in response.content.decode()
    assert response.context["page_segments"] == []


def test_evidence_view_with_passages_past_the_text(scenario):
    match = scenario.matches[0]
    match.passages = [{"page_start": 0, "page_end": 10**6, "work_start": 0, "work_end": 5}]
    match.save()
    response = client_for(scenario.users.staff).get(f"/crawler/match/{match.pk}/change/")
    assert response.status_code == 200
    assert "do not fit the stored text" in response.content.decode()
    assert "".join(s.text for s in response.context["page_segments"]) == scenario.texts[match.pk]


def test_draft_page_warns_about_a_match_in_a_sent_notice(scenario):
    from dashboard.notice_actions import do_advance_notice

    match = scenario.matches[0]
    do_review_match(match, "confirmed", "copy", scenario.users.staff)
    sent, = do_draft_notices([match], scenario.users.staff)
    do_advance_notice(sent, "sent", scenario.users.staff)
    client = client_for(scenario.users.holder_a, "zh-hans")
    form = {"action": "draft_notice", "_selected_action": [match.pk], "language": "zh-hans"}
    page = client.post("/crawler/match/", form).content.decode()
    assert f'/dashboard/takedownnotice/{sent.pk}/change/' in page and "已包含在" in page
    assert 'name="resend"' in page
    client.post("/crawler/match/", {**form, "apply": "1"})
    assert match.takedown_notices.count() == 1  # refused without the confirmation
    client.post("/crawler/match/", {**form, "apply": "1", "resend": "1"})
    assert match.takedown_notices.count() == 2
