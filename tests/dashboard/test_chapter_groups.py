"""The match list in real Chromium: the pages of one chapter split over several pages (下一页,
``_2.html``) are one row with their count, which opens the list of those pages; screenshots in
both languages at 1366x768 go to test-artifacts/."""

import pytest

pytestmark = pytest.mark.browser
LABELS = {"zh-hans": "2 个页面属于同一章", "en": "2 pages of one chapter"}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_parts_of_a_chapter_are_one_row(scenario, open_page, browser_login, screenshot, language):
    from crawler.models import Match

    first = scenario.matches[1]  # the mirror's chapter one, now its first page of two
    Match.objects.filter(pk=first.pk).update(part_of=first.url)
    Match.objects.create(
        work=first.work, page_id="f" * 24, version_id="f" * 24, url=first.url.replace(".html", "_2.html"),
        part_of=first.url, domain=first.domain, title=first.title + " (2/2)", score=0.5,
        containment_page=0.5, containment_work=0.05, passages=first.passages, site=first.site)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    page.goto("/crawler/match/")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3  # four matches, two of them pages of one chapter
    assert rows.nth(1).locator(".field-page").inner_text().endswith(LABELS[language])
    screenshot(page, f"match-list-chapter-group-{language}-1366")
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    page.get_by_role("link", name=LABELS[language]).click()
    page.wait_for_load_state("networkidle")
    assert rows.count() == 2
    assert sorted(page.locator("#result_list .dash-url").all_inner_texts()) == sorted(
        [first.title, first.title + " (2/2)"])
    screenshot(page, f"match-list-chapter-pages-{language}-1366")
