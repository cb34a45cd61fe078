"""A rewritten copy (洗稿) found by the engine's rewrite stage: the case row and the evidence
view name the kind, and the evidence view and the report show the work's sentences beside the
page's, the words replaced by a synonym marked and the moved sentences numbered, in both
languages at 1366 px (screenshots rewrite-{en,zh-hans}-1366.png); a revised English answer
the same way, its sentences paired without synonym marks (rewrite-english-{en,zh-hans}-1366.png);
the notice recipient's page pairs them too, at 1366 and 390 px (recipient-rewrite-*.png)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.dashboard.conftest import store_page
from tests.fingerprint.test_rewrite import rewrite
from tests.fingerprint.test_rewrite_english import revise

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).parents[1] / "fingerprint" / "fixtures" / "engine"
CHAPTERS = FIXTURES / "hongloumeng_chapters.json"


def record_rewritten(scenario, reference: str, title: str, language: str, work_text: str,
                     page_text: str, url: str):
    """Register ``work_text`` (a WorkLanguage ``language``), match ``page_text`` with the
    platform's engine and record the match as the crawler records it (kind "rewritten");
    yields the Match."""
    from core.engine import get_engine
    from core.models import Work
    from crawler.models import Match

    work = Work.objects.create(holder=scenario.a, reference=reference, title=title,
                               kind="novel", language=language, length=len(work_text),
                               status="indexed")
    engine = get_engine()
    engine.add_work(work.engine_id, work_text)
    (found,) = [m for m in engine.match(page_text) if m.work_id == work.engine_id]
    assert found.kind == "rewritten"
    page_id, version_id = store_page(url, page_text, "洗稿")
    template = scenario.matches[0]
    yield Match.objects.create(
        work=work, page_id=page_id, version_id=version_id, kind=found.kind,
        url=url, domain="wash.example.com", title="洗稿",
        score=found.score, containment_page=found.containment_page,
        containment_work=found.containment_work,
        passages=[p.to_dict() for p in found.passages], first_seen=template.first_seen,
        last_seen=template.last_seen, site=template.site, first_scan=template.first_scan,
        last_scan=template.last_scan)
    engine.remove_work(work.engine_id)  # the index outlives the test's database


@pytest.fixture
def rewritten_match(scenario):
    """A page that rewrites 800 characters of a 红楼梦 chapter."""
    chapter = json.loads(CHAPTERS.read_text(encoding="utf-8"))[0]["text"][:800]
    work_text = chapter[:chapter.rfind("。") + 1]
    yield from record_rewritten(scenario, "HLM-008", "红楼梦（第八回节选）", "zh-hans", work_text,
                                rewrite(work_text, random.Random(0), 0.9, 0.6, True),
                                "https://wash.example.com/1.html")


@pytest.fixture
def revised_english_match(scenario):
    """A page that revises an English answer (words moved inside its sentences, some dropped,
    sentences swapped)."""
    answer = json.loads((FIXTURES / "english_answers.json").read_text(encoding="utf-8"))[2]
    yield from record_rewritten(scenario, "EN-002", answer["topic"], "en", answer["text"],
                                revise(answer["text"], random.Random(7), 0.2, 1.0),
                                "https://wash.example.com/en.html")


def open_rewrite_pairs(open_page, browser_login, language: str, match):
    """The evidence view of ``match`` for staff in ``language`` at 1366 px: (page, its
    rewritten-pairs section, the section's pair rows), with at least five pairs shown."""
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/match/{match.pk}/change/")
    section = page.locator("#dash-rewrite")
    rows = section.locator("tr.dash-rewrite-pair")
    assert rows.count() >= 5
    return page, section, rows


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_evidence_view_pairs_the_rewritten_sentences(rewritten_match, open_page,
                                                        browser_login, screenshot, language):
    page, section, rows = open_rewrite_pairs(open_page, browser_login, language,
                                             rewritten_match)
    assert rows.first.locator("td.side").first.get_attribute("lang") == "zh-Hans"
    synonym = section.locator("mark.dash-synonym").first
    title = synonym.get_attribute("title")
    moved = section.locator(".dash-moved-tag").first
    if language == "en":
        assert "洗稿" in section.locator("h2").inner_text()
        assert title.startswith("synonym of “") or title.startswith("replaced on the page")
        assert moved.inner_text().startswith("moved: sentence ")
    else:
        assert section.locator("h2").inner_text().startswith("洗稿")
        assert "同义" in title
        assert moved.inner_text().startswith("移位：")
    section.scroll_into_view_if_needed()
    screenshot(page, f"rewrite-{language}-1366")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_evidence_view_pairs_a_revised_english_answer(revised_english_match, open_page,
                                                          browser_login, screenshot, language):
    page, section, rows = open_rewrite_pairs(open_page, browser_login, language,
                                             revised_english_match)
    assert section.locator("mark.dash-synonym").count() == 0  # no English synonym classes
    assert rows.first.locator("td.side").first.get_attribute("lang") == "en"
    assert page.locator("#work-text").get_attribute("lang") == "en"
    section.scroll_into_view_if_needed()
    screenshot(page, f"rewrite-english-{language}-1366")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


@pytest.mark.parametrize(("language", "kind", "label"), [("en", "kind of match", "rewritten (洗稿)"),
                                                   ("zh-hans", "匹配类型", "洗稿（改写）")])
def test_the_match_list_tells_a_rewrite_from_a_copy(rewritten_match, scenario, open_page,
                                                   browser_login, screenshot, language, kind,
                                                   label):
    # staff pick the 洗稿 out of the reports: a badge under the score, and a filter
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto("/crawler/match/")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == len(scenario.matches) + 1
    badges = page.locator("#result_list td.field-score_pct .dash-badge.rewritten")
    assert badges.count() == 1 and badges.first.inner_text() == label
    assert rewritten_match.url in badges.first.locator("xpath=ancestor::tr").inner_text()
    page.locator("#changelist-filter details", has_text=kind).locator(
        "a", has_text=label).click()
    page.wait_for_load_state()
    assert rows.count() == 1 and rewritten_match.url in rows.first.inner_text()
    screenshot(page, f"match-list-rewritten-{language}-1366")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


@pytest.mark.parametrize(("language", "moved"), [("en", "moved: sentence "),
                                                 ("zh-hans", "移位：网页第 ")])
def test_the_report_pairs_the_rewritten_sentences(rewritten_match, scenario, language, moved):
    from django.utils.translation import override

    from dashboard.report import render

    with override(language):
        html = render(rewritten_match, scenario.users.staff)
    assert html.count('<tr class="dash-rewrite-pair') >= 5
    assert 'class="dash-synonym"' in html and moved in html


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", [1366, 390])
def test_the_notice_recipient_sees_the_rewritten_sentences_paired(
        rewritten_match, scenario, open_page, screenshot, language, width):
    # the host's abuse team opens the notice's link, logged out: for a 洗稿 it is shown the
    # work's sentences beside the page's, not "copied passages" of a text it does not copy
    from dashboard import sources
    from dashboard.notice_actions import do_draft_notices
    from tests.dashboard.test_recipient_page import archived_html, link_path, screenshot_png
    from tests.evidence_captures import finished_capture

    rewritten_match.review_status = "confirmed"
    rewritten_match.save(update_fields=["review_status"])
    finished_capture(rewritten_match, {"evidence/screenshot.png": screenshot_png()},
                     html=archived_html(sources.load(rewritten_match).page_text))
    [notice] = do_draft_notices([rewritten_match], scenario.users.staff, language)
    page = open_page(language)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/" + link_path(notice))
    heading = page.locator("#rcp-rewrite-1")
    assert "洗稿" in heading.inner_text()
    assert page.get_by_text("Copied passages, the page beside the work").count() == 0
    assert page.get_by_text("复制段落：网页与作品并排对照").count() == 0
    rows = page.locator("tr.dash-rewrite-pair")
    assert rows.count() >= 5 and page.locator("mark.dash-synonym").count() >= 1
    moved = page.locator(".dash-moved-tag").first
    assert moved.inner_text().startswith("moved: sentence " if language == "en" else "移位：")
    assert rows.first.locator("td.side").first.get_attribute("lang") == "zh-Hans"
    heading.scroll_into_view_if_needed()
    screenshot(page, f"recipient-rewrite-{language}-{width}")
    assert page.evaluate("() => document.scrollingElement.scrollWidth"
                         " <= document.scrollingElement.clientWidth + 1")
