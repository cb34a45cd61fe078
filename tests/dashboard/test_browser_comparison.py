"""The evidence view and the PDF report mark, inside each passage, the characters the page
changed, inserted or deleted, and say which edits keep the sound or the character (other
script, other width): what a reviewer reads as "changed a few characters". Screenshots
comparison-{en,zh-hans}-1366.png, and of the demo's Big5 reprint (the ``big5_reprint``
fixture) comparison-big5-{en,zh-hans}-1366.png."""

from __future__ import annotations

import re

import pytest

from tests.dashboard.conftest import store_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORK = "话说天下大势，分久必合，合久必分。周末七国分争，255年，并入于秦。"
# other script (話說), an inserted ad, the same pinyin (事 for 势), a changed character (八 for
# 七), a full-width year (２５５ for 255) and a deleted clause (，并入于秦)
PAGE = "話說天下大事，分久必合，【广告】合久必分。周末八国分争，２５５年。"


@pytest.fixture
def edited_match(scenario):
    """A match of a page that copies WORK with the edits of PAGE, for 星河出版社's new work."""
    from core.engine import get_engine
    from core.models import Work
    from crawler.models import Match

    template = scenario.matches[0]
    work_text = "第一回　三国\n\n" + WORK + "\n\n" + scenario.novel_text[:400]
    work = Work.objects.create(holder=scenario.a, reference="SGY-001", title="三国演义（节选）",
                               kind="novel", length=len(work_text), status="indexed")
    get_engine().add_work(work.engine_id, work_text)
    text = "转载：\n" + PAGE + "\n（完）"
    start, work_start = text.index(PAGE), work_text.index(WORK)
    page_id, version_id = store_page("https://edit.example.com/1.html", text, "改写的转载")
    return Match.objects.create(
        work=work, page_id=page_id, version_id=version_id,
        url="https://edit.example.com/1.html", domain="edit.example.com", title="改写的转载",
        score=0.8, containment_page=0.8, containment_work=0.1,
        passages=[{"page_start": start, "page_end": start + len(PAGE),
                   "work_start": work_start, "work_end": work_start + len(WORK)}],
        first_seen=template.first_seen, last_seen=template.last_seen, site=template.site,
        first_scan=template.first_scan, last_scan=template.last_scan)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_evidence_view_marks_the_edits(edited_match, open_page, browser_login, screenshot,
                                          language):
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/match/{edited_match.pk}/change/")
    section = page.locator("#dash-comparison")
    assert page.locator("#dash-comparison .dash-compared .dash-script").first.inner_text() == "話說"
    assert section.locator(".dash-compared .dash-sound").inner_text() == "事"
    assert section.locator(".dash-compared .dash-changed").inner_text() == "八"
    assert section.locator(".dash-compared ins").inner_text() == "【广告】"
    assert section.locator(".dash-compared del").inner_text() == "，并入于秦"
    assert section.locator(".dash-compared .dash-width").inner_text() == "２５５"
    heading = section.locator("h3").first.inner_text()
    if language == "en":
        assert heading.startswith("Passage 1 · similarity ")
        assert "2 in the other script" in heading and "1 of the same pinyin" in heading
        assert "3 in the other width" in heading
        assert section.locator(".dash-width").first.inner_text() == "same character, other width"
    else:
        assert heading.startswith("第 1 段 · 相似度 ")
        assert "繁简转换 2 个字" in heading and "同音替换 1 个字" in heading
        assert "全角半角转换 3 个字" in heading
        assert section.locator(".dash-width").first.inner_text() == "全角半角转换"
    section.scroll_into_view_if_needed()
    screenshot(page, f"comparison-{language}-1366")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


def test_the_report_marks_the_edits(edited_match, scenario):
    from django.utils import translation

    from dashboard.report import render

    with translation.override("en"):
        html = render(edited_match, scenario.users.staff)
    assert '<ins class="dash-edit" title="inserted on the page">【广告】</ins>' in html
    assert "，并入于秦</del>" in html
    assert 'class="dash-edit dash-sound" title="same pinyin (work: 势)">事</span>' in html


def _percent(heading: str) -> int:
    return int(re.search(r"(\d+)%", heading).group(1))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_demos_big5_reprint_reads_as_the_same_text_in_the_other_script(
        big5_reprint, open_page, browser_login, screenshot, language):
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/match/{big5_reprint.pk}/change/")
    section = page.locator("#dash-comparison")
    heading = section.locator("h3").first.inner_text()
    similarity = _percent(heading)
    # the passage is the copied text: never much less similar than the whole match scores
    assert similarity >= 95 and similarity >= round(big5_reprint.score * 100) - 3, heading
    assert section.locator(".dash-compared .dash-changed").count() <= 3
    assert section.locator(".dash-compared .dash-script").count() > 500
    ad = section.locator(".dash-compared ins").first
    assert ad.inner_text().startswith("【")
    script = section.locator(".dash-compared .dash-script").first
    work_side = re.search(r"[:：]\s*(.+?)[)）]$", script.get_attribute("title")).group(1)
    assert len(work_side) == len(script.inner_text())  # a tooltip pairs the characters shown
    if language == "en":
        assert "in the other script" in heading and "characters changed" not in heading
    else:
        assert "繁简转换" in heading
    section.scroll_into_view_if_needed()
    screenshot(page, f"comparison-big5-{language}-1366")

