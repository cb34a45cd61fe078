"""The overview's case funnel: found -> confirmed -> notice sent -> removed for the cases opened
in the last CASE_FUNNEL_DAYS days, beside the period before, with the removal rate, the
median time from notice to removal and the copies still up after their notice; each figure
links to the case list it counts. Checked in
Chromium at 1366 px in both languages, and per holder."""

from __future__ import annotations

from datetime import timedelta

import pytest

from .conftest import removed_after_notice


@pytest.fixture
def worked(scenario_cases, scenario):
    """The novel's case on example.com confirmed, noticed (2 days before its removal) and
    removed by a takedown check; the case on example.net confirmed, noticed and found still up;
    an older case (opened 40 days ago) in the previous period."""
    from crawler import case_actions
    from crawler.models import Case, CheckOutcome
    from crawler.takedown import record_check
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    staff = scenario.users.staff
    novel = scenario_cases["novel"]
    removed_after_notice(novel, staff, timedelta(days=2))
    mirror = Case.objects.get(work=scenario.novel, domain="example.net")
    case_actions.do_confirm_case(mirror, staff, "copied chapter")
    notice, = do_draft_notices(mirror.pages.all(), staff, "en")
    do_advance_notice(notice, "sent", staff)
    record_check(mirror.pages.get(), CheckOutcome.PRESENT, 200, "ab" * 32, "")  # still up
    big = scenario_cases["big"]
    Case.objects.filter(pk=big.pk).update(opened_at=big.opened_at - timedelta(days=40))
    return novel


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_funnel_on_the_overview(worked, open_page, browser_login, screenshot, language):
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto("/")
    funnel = page.locator("#dash-case-funnel")
    values = [funnel.locator(f"[data-step={key}] .value").inner_text()
              for key in ("new", "confirmed", "notice_sent", "removed")]
    assert values == ["3", "2", "2", "1"]  # example.com, example.net, the news case
    assert "1" in funnel.locator("[data-step=new] .dash-muted").inner_text()  # the older case
    assert "50%" in page.locator("#dash-removal-rate").inner_text()
    still_up = page.locator("#dash-still-up").inner_text()
    assert "example.net" in still_up and "example.com" not in still_up
    assert "2.0" in page.locator("#dash-removal-median").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366, f"the overview is {width} px wide"
    funnel.screenshot(path=str(screenshot(page, f"case-funnel-{language}").with_name(
        f"case-funnel-block-{language}.png")))
    with page.expect_navigation():  # 90 days: the older case counts too
        page.click("#dash-funnel-periods [data-days='90']")
    assert funnel.locator("[data-step=new] .value").inner_text() == "4"
    with page.expect_navigation():
        page.click("#dash-case-funnel [data-step=removed] a")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1 and f"#{worked.pk}" in rows.inner_text()


def test_funnel_counts_only_the_holders_cases(worked, scenario):
    from django.conf import settings

    from dashboard.case_figures import funnel

    mine = funnel(scenario.users.holder_b, settings.CASE_FUNNEL_DAYS)
    assert [s["count"] for s in mine["steps"]] == [1, 0, 0, 0, 0]
    assert mine["rate"] is None and mine["median"] is None
