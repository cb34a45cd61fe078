"""The candidate sites found by discovery, in real Chromium: ranked with their evidence, fitting
a 1366 px screen in both languages (screenshots in test-artifacts/); staff make one a target
site from the list; a rights holder sees only the candidates copying its works."""

import pytest

from core import notes

pytestmark = pytest.mark.browser
PROMOTE = {"zh-hans": "设为目标站点", "en": "Make target site"}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_candidate_list_ranked_with_evidence(scenario, open_page, browser_login, screenshot,
                                            language):
    from crawler.models import CandidateSite, TargetSite

    mirror = CandidateSite.objects.create(
        domain="mirror-copy.example.net", status="proposed", link_count=4, pages_sampled=3,
        matches_found=2, linked_from=[m.url for m in scenario.matches[:2]],
        sample_urls=["https://mirror-copy.example.net/xyj/1.html"])
    mirror.works.set([scenario.novel])
    CandidateSite.objects.create(domain="news-portal.example.org", status="no_match",
                                 link_count=9, pages_sampled=3, matches_found=0,
                                 linked_from=[scenario.matches[2].url])
    found = "https://search-found.example.com/xyj/2.html"  # linked from no page: a web search's
    CandidateSite.objects.create(
        domain="search-found.example.com", status="proposed", pages_sampled=1, matches_found=1,
        sample_urls=[found], note=notes.coded("found_by_search", "found by web search: %(url)s",
                                              url=found))
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    page.goto("/crawler/candidatesite/")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).locator(".field-domain").inner_text() == "mirror-copy.example.net"  # ranked first
    searched = rows.nth(1).locator(".field-evidence")
    assert searched.inner_text() == {"en": "web search", "zh-hans": "全网搜索"}[language]
    assert found in searched.locator("span").get_attribute("title")
    assert scenario.novel.title in rows.nth(0).inner_text()
    evidence = rows.nth(0).locator(".field-evidence")
    assert evidence.inner_text().endswith("(+1)")  # two source pages, the first one shown
    assert evidence.locator("span").get_attribute("title").split("\n") == [
        m.url for m in scenario.matches[:2]]
    assert rows.nth(0).locator(".field-sample").inner_text() == "2 / 3"
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"candidate-sites-{language}-1366")
    rows.nth(0).locator("input.action-select").check()
    page.select_option("select[name=action]", label=PROMOTE[language])
    page.click("button[name=index]")
    page.wait_for_load_state("networkidle")
    assert TargetSite.objects.filter(allowed_domains=["mirror-copy.example.net"]).exists()
    screenshot(page, f"candidate-sites-promoted-{language}-1366")

    holder_page = open_page(language)
    browser_login(holder_page, "holder_b")  # the news holder: the mirror copies the novel
    holder_page.goto("/crawler/candidatesite/")
    assert "mirror-copy.example.net" not in holder_page.content()


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_candidate_page_lists_its_pages_as_links(scenario, open_page, browser_login, screenshot,
                                                 language):
    from crawler.discovery import _problems_note
    from crawler.models import CandidateSite
    from lib.crawl.outcomes import Outcome

    candidate = CandidateSite.objects.create(
        domain="localhost", status="unreadable", link_count=2, sample_attempts=3,
        linked_from=[scenario.matches[0].url],
        sample_urls=["http://localhost/xyj/1.html", "http://localhost/xyj/2.html"],
        note=_problems_note([("http://localhost/xyj/1.html", Outcome.SSRF_REFUSED,
                              "127.0.0.1 is a loopback address")]))
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    page.goto(f"/crawler/candidatesite/{candidate.pk}/change/")
    links = page.locator(".field-sample_urls_list a")
    assert links.count() == 2 and links.nth(1).inner_text() == "http://localhost/xyj/2.html"
    assert page.locator("#content textarea").count() == 0  # no JSON to edit
    refused = {"zh-hans": "拒绝访问内网地址", "en": "private address refused"}[language]
    assert refused in page.inner_text(".field-note_words")  # the outcome in words, not a code
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"candidate-site-page-{language}-1366")
