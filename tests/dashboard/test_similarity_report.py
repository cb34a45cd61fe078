"""The similarity report of a work (Turnitin's, from the work's page): two sites copying
different chapters of the novel, each span coloured by its site, each site's share of the work,
the chapter copied nowhere; scoped to the holder; in Chromium at 1366 and 390 px in both
languages."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def copied_chars(scenario, index: int) -> int:
    """Characters of the work the scenario's match ``index`` copies (its passages' union)."""
    spans = scenario.passages[scenario.matches[index].pk]
    return sum(p["work_end"] - p["work_start"] for p in spans)


def test_two_sites_copying_different_chapters(scenario, scenario_cases, client):
    from crawler.models import Match

    Match.objects.filter(domain="www.big-copy.example.cn").delete()  # two sites: the two copies
    copy, mirror = copied_chars(scenario, 0), copied_chars(scenario, 1)  # chapter 2, chapter 1
    length = len(scenario.novel_text)
    client.force_login(scenario.users.holder_a)
    work_page = client.get(f"/core/work/{scenario.novel.pk}/change/",
                           HTTP_ACCEPT_LANGUAGE="en").content.decode()
    url = f"/works/{scenario.novel.pk}/similarity/"
    assert f'href="{url}"' in work_page and "Similarity report" in work_page

    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    sources = re.findall(r'<li data-domain="([^"]+)" data-colour="(\d+)">.*?'
                         r'data-role="share">([^<]+)<', html, re.S)
    assert sources == [("example.com", "1", f"{round(100 * copy / length)}%"),
                       ("example.net", "2", f"{round(100 * mirror / length)}%")]
    assert f'id="sim-share">{round(100 * (copy + mirror) / length)}%<' in html
    marks = re.findall(r'<mark class="sim-c(\d)" data-sites="([^"]+)"[^>]*>(.*?)</mark>', html,
                       re.S)
    assert 'id="sim-text" lang="zh-Hans"' in html  # the work's language, not the interface's
    first = scenario.passages[scenario.matches[0].pk][0]
    ch2 = scenario.novel_text[first["work_start"]:first["work_end"]]
    assert ("1", "example.com") in {(c, s) for c, s, _t in marks}
    assert ("2", "example.net") in {(c, s) for c, s, _t in marks}
    assert sum(len(t) for c, _s, t in marks if c == "1") == copy  # every copied character
    assert any(ch2[:50] in t for c, _s, t in marks if c == "1")
    nowhere = re.search(r'<ul class="sim-nowhere" id="sim-nowhere">(.*?)</ul>', html, re.S)
    third = scenario.novel.sections[2]["title"]
    assert nowhere and re.findall(r"<li>(.*?)</li>", nowhere.group(1)) == [third]

    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "相似度报告" in chinese and "未被任何网站复制的章节" in chinese
    client.force_login(scenario.users.holder_b)  # another holder's work: nothing
    assert client.get(url).status_code == 404


def test_a_site_copying_what_another_copies_is_named_on_the_span(scenario, scenario_cases,
                                                                  client):
    client.force_login(scenario.users.staff)
    html = client.get(f"/works/{scenario.novel.pk}/similarity/",
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # the 120 pages on www.big-copy.example.cn copy chapter 2 as copy.example.com's page does
    assert re.search(r'<li data-domain="example.cn" data-colour="\d+">.*?120 pages',
                     html, re.S)
    sites = set(re.findall(r'data-sites="([^"]+)"', html))
    assert any("example.com" in s and "example.cn" in s for s in sites), sites


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", [1366, 390])
def test_the_similarity_report_in_the_browser(scenario, scenario_cases, open_page,
                                              browser_login, screenshot, language, width):
    from crawler.models import Match

    Match.objects.filter(domain="www.big-copy.example.cn").delete()
    page = open_page(language)
    page.set_viewport_size({"width": width, "height": 900})
    browser_login(page, "holder_a")
    page.goto(f"/core/work/{scenario.novel.pk}/change/")
    page.click("#dash-work-similarity")
    page.wait_for_load_state("networkidle")
    assert page.locator("#sim-sources li").count() == 2
    colours = {page.locator(f"mark.sim-c{n}").first.evaluate(
        "m => getComputedStyle(m).backgroundColor") for n in (1, 2)}
    assert len(colours) == 2  # two sites, two colours
    assert page.locator("#sim-nowhere li").count() == 1
    screenshot(page, f"similarity-report-{language}-{width}")
    assert page.evaluate("() => document.scrollingElement.scrollWidth"
                         " <= document.scrollingElement.clientWidth + 1")
