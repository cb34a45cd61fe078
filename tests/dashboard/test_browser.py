"""The dashboard in real headless Chromium (Debian's package, driven by Playwright) against the
live server: staff's daily path, the pages in Chinese and English, and a holder's scope.

Screenshots go to test-artifacts/ (git-ignored): overview-en.png, overview-zh-hans.png,
evidence-en.png, evidence-zh-hans.png, match-list-zh-hans.png, notice-en.png, notice-zh-hans.png.
"""

import csv
import io
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


def marked_text(page, pane: str, passage: int) -> str:
    """The text of every mark of ``passage`` in ``pane`` ("page-text" or "work-text")."""
    return page.eval_on_selector_all(
        f'#{pane} mark[data-p~="{passage}"]', "marks => marks.map(m => m.textContent).join('')")


def test_staff_daily_path(scenario, open_page, browser_login, screenshot):
    page = open_page("en")
    browser_login(page, "staff")

    # overview
    assert page.inner_text("#kpi-awaiting .value") == "3"
    page.wait_for_function("document.documentElement.dataset.chartsReady === '1'")
    assert page.locator("#chart-per-day").bounding_box()["height"] > 100
    assert "timeout 2" in page.inner_text("#dash-scans")
    screenshot(page, "overview-en")

    # match list, filtered by domain through the filter sidebar
    page.goto("/crawler/match/")
    assert page.locator("#result_list tbody tr").count() == 3
    page.click("#changelist-filter a:has-text('copy.example.com')")
    page.wait_for_load_state("networkidle")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1
    assert "copy.example.com/novel/xyj-2.html" in rows.first.inner_text()

    # export CSV with the current filter
    with page.expect_download() as download_info:
        page.click("#dash-export-csv")
    content = Path(download_info.value.path()).read_text(encoding="utf-8-sig")
    exported = list(csv.reader(io.StringIO(content)))
    assert [row[4] for row in exported[1:]] == ["https://copy.example.com/novel/xyj-2.html"]

    # evidence view: the highlighted passages are exactly the matched text, on both sides
    match = scenario.matches[0]
    page.click(f"#result_list a:has-text('#{match.pk}')")
    page.wait_for_selector("#dash-evidence")
    text = scenario.texts[match.pk]
    for i, passage in enumerate(scenario.passages[match.pk]):
        expected = text[passage["page_start"]:passage["page_end"]]
        assert marked_text(page, "page-text", i) == expected
        assert marked_text(page, "work-text", i) == scenario.novel_text[
            passage["work_start"]:passage["work_end"]]
    assert page.inner_text("[data-role=counter]") == "Passage 1 of 2"
    page.click("#dash-next")
    assert page.inner_text("[data-role=counter]") == "Passage 2 of 2"
    current = page.eval_on_selector_all("#page-text mark.current",
                                        "ms => ms.map(m => m.textContent).join('')")
    second = scenario.passages[match.pk][1]
    assert current == text[second["page_start"]:second["page_end"]]
    assert "comes from “第二回" in page.inner_text("#dash-summary")
    page.click("#dash-prev")
    screenshot(page, "evidence-en")

    # confirm the match, with a reason
    page.check("input[name=decision][value=confirmed]")
    page.fill("#id_reason", "Chapter 2 copied without licence")
    page.click("#dash-decide")
    page.wait_for_load_state("networkidle")
    match.refresh_from_db()
    assert match.review_status == "confirmed"
    assert "Chapter 2 copied without licence" in page.inner_text("#dash-trail")

    # generate a takedown notice in English, mark it sent, download it
    page.select_option("#dash-draft select[name=language]", "en")
    page.click("#dash-draft input[type=submit]")
    page.wait_for_selector("#id_body")
    draft = page.input_value("#id_body")
    assert "Notice of Copyright Infringement" in draft and match.url in draft
    assert "星河出版社" in draft
    page.fill("#id_body", draft.replace("To: copy.example.com", "To: abuse@copy.example.com"))
    page.click("input[name=_continue]")
    page.wait_for_load_state("networkidle")
    page.click("#dash-notice-move button[value=sent]")
    page.wait_for_load_state("networkidle")
    assert "sent" in page.inner_text("#dash-notice-status").lower()
    notice_text = page.inner_text("#dash-notice-text")  # the text as sent, frozen
    assert "To: abuse@copy.example.com" in notice_text and page.locator("#id_body").count() == 0
    screenshot(page, "notice-en")
    with page.expect_download() as download_info:
        page.click("#dash-notice-docx")
    assert download_info.value.suggested_filename.endswith(".docx")


def test_pages_read_in_chinese(scenario, open_page, browser_login, screenshot):
    page = open_page("zh-hans")
    browser_login(page, "staff")
    assert page.inner_text("#content h1") == "概览"
    assert "条新匹配待审核" in page.inner_text("#kpi-awaiting")
    page.wait_for_function("document.documentElement.dataset.chartsReady === '1'")
    screenshot(page, "overview-zh-hans")

    match = scenario.matches[0]
    page.goto(f"/crawler/match/{match.pk}/change/")
    assert page.inner_text("[data-role=counter]") == "第 1 处，共 2 处"
    summary = page.inner_text("#dash-summary")
    assert "来自《西游记（节选）》的“第二回" in summary
    assert "抓取时保存的网页文字" in page.inner_text("#dash-evidence")
    screenshot(page, "evidence-zh-hans")

    page.goto("/crawler/match/")
    assert page.inner_text("#content h1") == "发现的匹配"
    assert page.locator("#result_list tbody tr").count() == 3
    screenshot(page, "match-list-zh-hans")

    page.goto(f"/crawler/match/{match.pk}/change/")
    page.check("input[name=decision][value=confirmed]")
    page.fill("#id_reason", "第二回整章转载，未获授权")
    page.click("#dash-decide")
    page.wait_for_selector("#dash-draft")
    page.select_option("#dash-draft select[name=language]", "zh-hans")
    page.click("#dash-draft input[type=submit]")
    page.wait_for_selector("#id_body")
    notice_text = page.input_value("#id_body")
    assert notice_text.startswith("侵权内容删除通知书")
    assert "信息网络传播权保护条例" in notice_text and "北京市朝阳区建国路 88 号" in notice_text
    screenshot(page, "notice-zh-hans")


def test_holder_sees_only_its_own(scenario, open_page, browser_login):
    page = open_page("en")
    browser_login(page, "holder_b")
    assert page.inner_text("#kpi-awaiting .value") == "1"
    assert "copy.example.com" not in page.inner_text("#dash-overview")
    page.goto("/crawler/match/")
    assert page.locator("#result_list tbody tr").count() == 1
    for other in scenario.matches[:2]:  # holder A's matches, by guessed id
        for url in (f"/crawler/match/{other.pk}/change/", f"/crawler/match/{other.pk}/report/"):
            response = page.goto(url)
            assert response.status == 404, url
    own = scenario.matches[2]
    assert page.goto(f"/crawler/match/{own.pk}/change/").status == 200


def test_holder_uploads_a_work_that_only_it_sees(scenario, open_page, browser_login,
                                                 celery_worker):
    import time

    from core.models import Work

    page = open_page("zh-hans")
    browser_login(page, "holder_b")
    page.goto("/core/work/add/")
    page.fill("#id_title", "晨光专栏：西游记读后")
    page.fill("#id_text", scenario.novel_text[:800])
    page.click("input[name=_save]")
    page.wait_for_load_state("networkidle")
    assert "晨光专栏：西游记读后" in page.inner_text("#result_list")
    work = Work.objects.get(title="晨光专栏：西游记读后")
    assert work.holder == scenario.b
    deadline = time.monotonic() + 60  # the real worker ingests it; wait so nothing is left queued
    while work.status == "pending" and time.monotonic() < deadline:
        time.sleep(0.5)
        work.refresh_from_db()
    assert work.status == "indexed", work.error

    other = open_page("en")
    browser_login(other, "holder_a")
    other.goto("/core/work/")
    assert "晨光专栏" not in other.inner_text("#content")
    assert other.goto(f"/core/work/{work.pk}/change/").status == 404
