"""A web search run's page in Chromium at 1366 px: what started it, and each result page it
read with what became of it and the match it recorded, copies first, in the reader's
language. Screenshots search-run-{en,zh-hans}-1366.png."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {"trigger": "command line", "fetched": "fetched", "target": "on a target site: read by "
           "its scans", "robots": "forbidden by robots.txt", "answered": "answered",
           "match": "match #{id} (score 0.86)", "heading": "Result pages"},
    "zh-hans": {"trigger": "命令行", "fetched": "已抓取", "target": "在目标站点上：由该站点的扫描读取",
                "robots": "robots.txt 禁止", "answered": "已返回结果",
                "match": "匹配 #{id}（得分 0.86）", "heading": "结果网页"},
}


@pytest.fixture
def search_run(scenario):
    """A finished run of one query with three result pages: the scenario's first match (read
    and matched), a target site's page (left to its scans) and a page robots.txt forbids."""
    from crawler.models import SearchHit, SearchQuery, SearchRun

    copied = scenario.matches[0]
    run = SearchRun.objects.create(trigger="command", status="finished", works_total=1,
                                   works_done=1, queries=1, results=3, pages_fetched=1,
                                   pages_matched=1, new_cases=1)
    query = SearchQuery.objects.create(run=run, work=copied.work, phrase="花果山福地",
                                       provider="searxng", results=3, attempts=1)
    SearchHit.objects.create(query=query, url="https://listed.example.com/a.html", rank=1,
                             outcome="target_site")
    SearchHit.objects.create(query=query, url="https://closed.example.com/b.html", rank=2,
                             outcome="robots_disallowed")
    SearchHit.objects.create(query=query, url=copied.url, rank=3, outcome="ok", match=copied)
    return run, copied


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_web_search_run_says_what_became_of_each_result_page(
        search_run, open_page, browser_login, screenshot, language):
    run, copied = search_run
    words = WORDS[language]
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/searchrun/{run.pk}/change/")
    assert words["trigger"] in page.inner_text(".field-trigger_label")
    assert page.inner_text(".field-pages_read label").startswith(words["heading"])
    rows = page.locator("#search-pages-read tbody tr")
    assert rows.count() == 3
    first = rows.nth(0).locator("td")  # the copy first, whatever its rank
    assert first.nth(0).inner_text() == copied.url and first.nth(3).inner_text() == words["fetched"]
    assert first.nth(4).inner_text() == words["match"].format(id=copied.pk)
    first.nth(4).locator("a").click()
    page.wait_for_url(f"**/crawler/match/{copied.pk}/change/")
    page.go_back()
    outcomes = [rows.nth(i).locator("td").nth(3).inner_text() for i in (1, 2)]
    assert outcomes == [words["target"], words["robots"]]
    assert words["answered"] in page.inner_text(".field-status_words")
    query = page.locator(".inline-group tbody tr").nth(0)  # its phrase once, in its column
    assert query.inner_text().count("花果山福地") == 1
    screenshot(page, f"search-run-{language}-1366")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
