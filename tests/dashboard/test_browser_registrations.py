"""Registrations in real headless Chromium at 1366 px: the duplicate warning, the rights conflict
page, a site proposal from a holder to staff's approval, and a .zip import's progress.

Screenshots in test-artifacts/: duplicate-warning-zh-hans.png, upload-duplicate-{zh-hans,en}.png,
upload-work-{zh-hans,en}.png, rights-conflict-en.png,
rights-conflict-zh-hans.png, site-proposal-zh-hans.png, site-proposal-decide-en.png,
zip-import-zh-hans.png, zip-import-en.png.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from core import ingestion, work_actions
from core.models import RightsConflict, RightsHolder
from core.text_extraction import extract_pasted

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NOVEL = (Path(__file__).resolve().parents[2] / "demo" / "works" / "xiyouji-01-03.txt"
         ).read_text(encoding="utf-8")
NEWS = ["今日天气\n本报讯 今天全市晴转多云，气温回升，市民纷纷外出踏青赏花。",
        "地铁新线\n本报讯 地铁十号线南段昨日开通试运营，沿线居民出行更加方便。",
        "图书馆夜读\n本报讯 市图书馆推出夜间阅读服务，每周五开放至晚上十点。",
        "菜价平稳\n本报讯 本周蔬菜批发价格总体平稳，叶菜类略有下降。",
        "马拉松报名\n本报讯 今年城市马拉松报名人数创新高，赛事将于十一月举行。"]
CHAPTER_TWO = NOVEL[NOVEL.index("\n第二回"):NOVEL.index("\n第三回")]


@pytest.fixture
def holders(make_user):
    press = RightsHolder.objects.create(name="出版社甲")
    agency = RightsHolder.objects.create(name="Agency B")
    make_user("alice", holders=[press])
    make_user("bob", holders=[agency])
    make_user("staff", staff_role=True)
    return press, agency


def _indexed(holder, reference: str, text: str):
    work = work_actions.do_register_work(holder, reference, extract_pasted(text), ingest=False).work
    assert ingestion.ingest(work.pk) == "indexed"  # in this process: the signal flags conflicts
    return work


# WCAG 2 contrast ratio of an element's text colour against its own background colour.
CONTRAST_JS = """(selector) => {
  const el = document.querySelector(".errorlist " + selector), style = getComputedStyle(el);
  const lum = (css) => {
    const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def _fits(page) -> bool:
    return page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


def _page(open_page, browser_login, language: str, user: str):
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, user)
    return page


def test_duplicate_warning_offers_the_work_to_update(
        holders, platform_stores, open_page, browser_login, screenshot):
    press, _ = holders
    work = _indexed(press, "xiyouji", NOVEL)
    page = _page(open_page, browser_login, "zh-hans", "alice")
    page.goto("/core/work/add/")
    page.fill("#id_text", CHAPTER_TWO)
    page.click("input[name=_save]")
    warning = page.locator(".errornote, .errorlist.nonfield").first
    assert "100% 相同" in page.inner_text("#content")
    assert "改为更新该作品" in page.inner_text("#content")
    assert warning.is_visible() and _fits(page)
    screenshot(page, "duplicate-warning-zh-hans")
    assert page.evaluate(CONTRAST_JS, "a.button") >= 4.5  # the link readable on its button
    page.click("a:has-text('改为更新该作品')")
    assert page.url.endswith(f"/core/work/{work.pk}/change/")


def test_an_uploaded_file_goes_through_its_job_to_the_work_page(
        holders, idle_worker, platform_stores, open_page, browser_login, screenshot):
    """The work form's file is read by a job: its page shows the progress; refused as a
    duplicate, it names the holder's work and offers "register anyway", whose job ends on the
    new work's page."""
    from core.models import Work

    press, _ = holders
    _indexed(press, "xiyouji", NOVEL)
    words = {"zh-hans": ("有 100% 相同", "改为更新该作品", "仍然登记", "失败"),
             "en": ("100% the same", "Update that work instead", "Register anyway", "failed")}
    for language, (same, update, anyway, failed) in words.items():
        page = _page(open_page, browser_login, language, "alice")
        page.goto("/core/work/add/")
        page.set_input_files("#id_upload", files=[{
            "name": "第二回.txt", "mimeType": "text/plain",
            "buffer": CHAPTER_TWO.encode("utf-8")}])
        page.click("input[name=_save]")
        page.wait_for_url("**/core/work/import/*/")
        page.wait_for_selector("#import-job[data-state=failed]")
        assert same in page.inner_text("#import-error")
        assert failed in page.inner_text("#import-state")
        assert page.locator(f"#import-existing:has-text('{update}')").is_visible()
        assert page.locator(f"#import-anyway input[value='{anyway}']").is_visible()
        assert _fits(page)
        screenshot(page, f"upload-duplicate-{language}")
        page.click(f"#import-anyway input[value='{anyway}']")
        page.wait_for_url("**/core/work/*/change/")  # the new job's page went on to the work
        work = Work.objects.get(pk=int(page.url.rstrip("/").split("/")[-2]))
        assert work.source_name == "第二回.txt" and work.length > 0.9 * len(CHAPTER_TWO)
        assert "第二回.txt" in page.inner_text("#content") and _fits(page)
        screenshot(page, f"upload-work-{language}")


def test_staff_sees_both_works_of_a_rights_conflict(
        holders, platform_stores, open_page, browser_login, screenshot):
    press, agency = holders
    _indexed(press, "xiyouji", NOVEL)
    _indexed(agency, "xyj", NOVEL)
    conflict = RightsConflict.objects.get()
    for language, note in (("zh-hans", None), ("en", "Agency B holds a licence from 出版社甲.")):
        page = _page(open_page, browser_login, language, "staff")
        page.goto("/core/rightsconflict/")
        assert page.locator("#result_list tbody tr").count() == 1 and _fits(page)
        page.goto(f"/core/rightsconflict/{conflict.pk}/change/")
        table = page.inner_text("table.conflict-pair")
        assert "出版社甲" in table and "Agency B" in table and "灵根育孕源流出" in table
        assert page.locator("table.conflict-pair mark").count() >= 2 and _fits(page)
        screenshot(page, f"rights-conflict-{language}")
        if note:
            page.fill("#id_note", note)
            page.click("input[name=_save]")
            conflict.refresh_from_db()
            assert conflict.status == "resolved"
    bob = _page(open_page, browser_login, "en", "bob")
    assert bob.goto(f"/core/rightsconflict/{conflict.pk}/change/").status == 403


def test_site_proposal_from_holder_to_staff(holders, open_page, browser_login, screenshot,
                                            settings):
    settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": "127.0.0.1"}
    page = _page(open_page, browser_login, "zh-hans", "alice")
    page.goto("/crawler/siteproposal/add/")
    page.fill("#id_url", "http://127.0.0.1:9/novels/")
    page.fill("#id_reason", "该站全文转载了《西游记》第一至三回")
    page.click("input[name=_save]")
    page.goto("/crawler/siteproposal/")
    assert "127.0.0.1:9/novels/" in page.inner_text("#result_list") and _fits(page)
    assert "已提议" in page.inner_text("#result_list")
    screenshot(page, "site-proposal-zh-hans")

    staff = _page(open_page, browser_login, "en", "staff")
    staff.goto("/crawler/siteproposal/")
    staff.click("#result_list a:has-text('127.0.0.1')")
    staff.check("input[name=decision][value=approved]")
    staff.fill("#id_decision_reason", "Copies found by hand.")
    assert _fits(staff)
    screenshot(staff, "site-proposal-decide-en")
    staff.click("input[name=_save]")
    assert "created; it is scanned daily" in staff.inner_text("#content-start, .messagelist")

    page.goto("/crawler/siteproposal/")
    assert "已批准" in page.inner_text("#result_list")


def test_zip_import_shows_its_progress(holders, idle_worker, platform_stores, open_page,
                                       browser_login, screenshot, tmp_path):
    archive = tmp_path / "works.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("novels/xiyouji.txt", NOVEL)
        for n, news in enumerate(NEWS, 1):
            out.writestr(f"news/{n}.txt", news * 3)  # long enough to be indexed
        out.writestr("broken.pdf", b"not a pdf")
    for language in ("zh-hans", "en"):
        page = _page(open_page, browser_login, language, "alice")
        page.goto("/core/work/")
        page.click("#work-import-zip")
        page.set_input_files("#id_archive", str(archive))
        page.click("input[type=submit]")
        page.wait_for_selector("#import-job")
        page.wait_for_selector("#import-job[data-state=finished], #import-job[data-state=failed]",
                               timeout=90_000)
        assert page.locator("#import-bar").evaluate("b => b.value") == 100
        assert page.locator(".import-failed li").count() == 1
        assert "broken.pdf" in page.inner_text(".import-failed") and _fits(page)
        screenshot(page, f"zip-import-{language}")
    assert "7 / 7" in page.inner_text("#import-count")
    assert page.locator(".import-registered li").count() == 0  # the second time: unchanged
    assert page.locator(".import-skipped li").count() == 6
