"""Layout in real Chromium: every list page fits a 1366 px wide screen without horizontal
scrolling, with readable title columns; screenshots of each in both languages at 1366x768 go
to test-artifacts/."""

import pytest

pytestmark = pytest.mark.browser

LISTS = ["/crawler/match/", "/crawler/scanrun/", "/crawler/targetsite/",
         "/dashboard/takedownnotice/", "/core/auditevent/", "/core/work/", "/core/rightsholder/"]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_list_pages_fit_1366(scenario, open_page, browser_login, screenshot, language):
    from crawler.actions import do_review_match
    from dashboard.actions import do_draft_notices

    do_review_match(scenario.matches[0], "confirmed", "整章转载，未获授权", scenario.users.staff)
    do_draft_notices(scenario.matches[:1], scenario.users.staff)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    overflowing = {}
    for url in LISTS:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        name = url.strip("/").replace("/", "-")
        screenshot(page, f"list-{name}-{language}-1366")
        widths = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
        if widths[0] > widths[1]:
            overflowing[url] = widths
        for cell in page.query_selector_all("#result_list .field-title"):
            assert cell.bounding_box()["width"] >= 100, (url, cell.inner_text())  # not 1 a line
        for cell in page.query_selector_all("#result_list td.field-from_state, "
                                            "#result_list td.field-to_state"):
            assert cell.bounding_box()["width"] >= 50, (url, cell.inner_text())
    assert not overflowing, overflowing
