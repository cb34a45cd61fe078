"""A work's page shows its cases (by state and one by one), its sites by pages and its
most-copied chapters as bars, to staff and to its holder's users only; each count beside a link
equals the rows that link lists. In Chromium at 1366 and 390 px in both languages: screenshots
work-page-{en,zh-hans}-{1366,390}.png."""

from __future__ import annotations

import re

import pytest
from django.test import Client


def _client(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.fixture
def worked(scenario_cases, scenario):
    """The scenario's cases, a false positive on one more site (left out of the chapters, its
    case dismissed), the big case's pages copying chapter 2, and the mirror's case confirmed."""
    from crawler import case_actions
    from crawler.cases import open_case
    from crawler.models import Case, Match

    novel = scenario.novel
    ch2 = novel.sections[1]
    big = scenario_cases["big"]
    big.pages.update(passages=[{"page_start": 0, "page_end": 300, "work_start": ch2["start"] + 10,
                                "work_end": ch2["start"] + 310}])
    wrong, _ = open_case(novel, "wrong.example.io")
    Match.objects.create(
        work=novel, page_id="e" * 24, version_id="e" * 24, url="https://wrong.example.io/1",
        domain="wrong.example.io", score=0.3, containment_page=0.2, containment_work=0.01,
        passages=[{"page_start": 0, "page_end": 400, "work_start": novel.sections[2]["start"],
                   "work_end": novel.sections[2]["start"] + 400}],
        review_status="false_positive", case=wrong)
    staff = scenario.users.staff
    case_actions.do_dismiss_case(wrong, staff, "not a copy")
    case_actions.do_confirm_case(Case.objects.get(work=novel, domain="example.net"), staff,
                                 "copied")
    return scenario


def test_the_work_page_lists_the_works_cases_sites_and_chapters(worked):
    from dashboard.work_figures import findings

    novel = worked.novel
    shown = findings(novel, worked.users.holder_a)
    assert shown["case_total"] == 4
    assert [(b.label, b.value) for b in shown["sites"]][:1] == [("example.cn", 120)]
    titles = [s["title"] for s in novel.sections]
    chapters = [(b.label, b.value) for b in shown["chapters"]]
    assert chapters == [(titles[1], 121), (titles[0], 1)]  # the false positive's chapter 3: none
    assert shown["chapters"][0].share == 100.0
    assert findings(novel, worked.users.holder_b)["case_total"] == 0


@pytest.mark.parametrize("who", ["staff", "holder_a"])
def test_each_count_on_the_work_page_is_the_rows_its_link_lists(worked, who):
    client = _client(getattr(worked.users, who))
    html = client.get(f"/core/work/{worked.novel.pk}/change/").content.decode()
    heading = re.search(r'<a href="([^"]+)" id="dash-work-cases-link">(\d+) cases', html)
    states = re.findall(r'<a href="([^"]+)" data-state="\w+"><span[^>]*>[^<]*</span> '
                        r'<span class="dash-count">(\d+)</span>', html)
    pairs = [heading.groups(), *states]
    assert len(states) == 3  # new, confirmed, dismissed
    for href, n in pairs:
        listed = client.get(href.replace("&amp;", "&"))
        assert listed.context["cl"].result_count == int(n), href
    for href, n in re.findall(r'<a class="dash-bar-label" href="([^"]+)">[^<]*</a>.*?'
                              r'<span class="dash-bar-value">(\d+) pages?</span>', html, re.S):
        assert client.get(href).context["page_total"] == int(n)


def test_another_holders_work_page_is_not_found(worked):
    client = _client(worked.users.holder_b)
    assert client.get(f"/core/work/{worked.novel.pk}/change/").status_code == 404


@pytest.mark.browser
@pytest.mark.parametrize("language,width", [("en", 1366), ("zh-hans", 1366), ("en", 390),
                                            ("zh-hans", 390)])
def test_the_work_page_in_chromium(worked, open_page, browser_login, screenshot, language, width):
    page = open_page(language)
    page.set_viewport_size({"width": width, "height": 900})
    browser_login(page, "holder_a")
    page.goto(f"/core/work/{worked.novel.pk}/change/")
    block = page.locator("#dash-work-findings")
    assert block.locator("#dash-work-cases tbody tr").count() == 4
    bars = block.locator("#dash-work-chapters li")
    assert bars.count() == 2
    assert "121" in bars.nth(0).inner_text()
    assert page.inner_text("#dash-work-cases-link") == (
        "4 cases of this work" if language == "en" else "本作品有 4 个案件")
    block.scroll_into_view_if_needed()
    screenshot(page, f"work-page-{language}-{width}")
    widths = page.evaluate("[document.documentElement.scrollWidth, "
                           "document.querySelector('#dash-work-findings').scrollWidth]")
    assert widths[0] <= width and widths[1] <= width, widths
    with page.expect_navigation():
        page.click("#dash-work-cases-link")
    assert page.locator("#result_list tbody tr").count() == 4
