"""The case list (the daily queue) and the case page, in the browser at 1366 px in both
languages, with the scoping of two holders, bulk actions that skip what they cannot act on,
and a case of many pages paginated."""

from __future__ import annotations

import pytest


def _wide(page):
    page.set_viewport_size({"width": 1366, "height": 900})
    return page


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_case_list_and_page_in_the_browser(scenario_cases, scenario, open_page, browser_login,
                                           screenshot, language):
    page = _wide(open_page(language))
    browser_login(page, "staff")
    page.goto("/crawler/case/")
    counts = page.locator("#dash-case-counts")
    assert counts.locator("[data-state=new] .dash-count").inner_text() == "4"
    assert page.locator("#result_list tbody tr").count() == 4
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366, f"the case list is {width} px wide"
    screenshot(page, f"case-list-{language}")

    page.goto(f"/crawler/case/{scenario_cases['big'].pk}/change/")
    assert page.locator("#dash-case-pages tbody tr").count() == 50
    assert "120" in page.locator("#dash-case-pages-total").inner_text()
    with page.expect_navigation():
        page.click("#dash-case-paginator a")
    assert page.locator("#dash-case-pages tbody tr").count() == 50
    assert "第二回" in page.locator("#dash-case-pages").inner_text()
    page.fill("#id_case_reason", "整本书被逐页复制" if language == "zh-hans" else "whole book")
    with page.expect_navigation():
        page.click("#dash-case-confirm")
    assert page.locator("#dash-case-state").get_attribute("class").endswith("confirmed")
    timeline = page.locator("#dash-case-timeline").inner_text()
    assert ("已确认" if language == "zh-hans" else "confirmed") in timeline
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366, f"the case page is {width} px wide"
    screenshot(page, f"case-page-{language}")


def test_bulk_confirm_skips_the_case_it_cannot_confirm_and_says_why(scenario_cases, scenario, open_page,
                                                                   browser_login, screenshot):
    from crawler import case_actions

    case_actions.do_dismiss_case(scenario_cases["news"], scenario.users.staff, "a quotation")
    page = _wide(open_page("en"))
    browser_login(page, "staff")
    page.goto("/crawler/case/")
    page.check("#action-toggle")
    page.select_option("select[name=action]", "confirm_cases")
    page.click("button[name=index]")
    page.fill("#id_reason", "copies of our books")
    with page.expect_navigation():
        page.click("input[type=submit].default")
    text = page.locator(".messagelist").inner_text()
    assert "3 cases updated." in text
    assert f"Skipped case #{scenario_cases['news'].pk}" in text and "cannot become" in text
    screenshot(page, "case-bulk-skipped-en")
    scenario_cases["novel"].refresh_from_db()
    assert scenario_cases["novel"].state == "confirmed"
    assert set(scenario_cases["novel"].pages.values_list("review_status", flat=True)) == {"confirmed"}


def test_each_holder_sees_only_its_cases(scenario_cases, scenario, client):
    client.force_login(scenario.users.holder_b)
    listing = client.get("/crawler/case/").content.decode()
    assert f"/crawler/case/{scenario_cases['news'].pk}/change/" in listing
    assert f"/crawler/case/{scenario_cases['novel'].pk}/change/" not in listing
    assert client.get(f"/crawler/case/{scenario_cases['novel'].pk}/change/").status_code == 404
    assert client.get(f"/crawler/case/{scenario_cases['news'].pk}/change/").status_code == 200
    client.force_login(scenario.users.holder_a)
    assert client.get(f"/crawler/case/{scenario_cases['news'].pk}/change/").status_code == 404


def test_bulk_draft_notices_drafts_for_confirmed_cases_and_names_the_others(scenario_cases,
                                                                            scenario, client):
    from django.contrib.messages import get_messages
    from django.utils import translation

    from crawler import case_actions
    from dashboard.models import TakedownNotice

    novel, news = scenario_cases["novel"], scenario_cases["news"]
    case_actions.do_confirm_case(novel, scenario.users.staff, "copied chapter")
    client.force_login(scenario.users.staff)
    with translation.override("en"):  # the request activates it in this thread: put it back
        answer = client.post("/crawler/case/", {
            "action": "draft_case_notices", "apply": "1", "language": "en",
            "_selected_action": [novel.pk, news.pk]}, follow=True, HTTP_ACCEPT_LANGUAGE="en")
    said = [str(m) for m in get_messages(answer.wsgi_request)]
    notice = TakedownNotice.objects.get()
    assert set(notice.matches.values_list("case", flat=True)) == {novel.pk}
    assert "1 takedown notices drafted." in said
    assert any(f"Skipped case #{news.pk}" in line and "“new”" in line for line in said)
