"""Layout in real Chromium: every list page fits a 1366 px wide screen without horizontal
scrolling, neither of the page nor of the table inside its box, with readable title columns;
the evidence view is readable at phone width (390x844). Screenshots of every page (lists, change
forms, evidence, overview, notices) in both languages at 1366x768 and 390x844 go to
test-artifacts/."""

import pytest

pytestmark = pytest.mark.browser

LANGUAGES = ["zh-hans", "en"]
# Columns that hold titles and names: never squeezed to a character a line (px).
TITLE_CELLS = ("#result_list td.field-title, #result_list th.field-title, "
               "#result_list td.field-work_link, #result_list td.field-page, "
               "#result_list td.field-subject, #result_list th.field-name, "
               "#result_list td.field-name, #result_list td.field-site")
TITLE_MIN_PX = 100
STATE_CELLS = "#result_list td.field-from_state, #result_list td.field-to_state"
STATE_MIN_PX = 50
OVERFLOW_JS = """() => {
  const boxes = [...document.querySelectorAll('.results, #changelist-form, #content, .dash-card, .dash-panes')];
  const inner = boxes.filter(b => b.scrollWidth > b.clientWidth + 1)
                     .map(b => (b.id || b.className) + ' ' + b.scrollWidth + '>' + b.clientWidth);
  return {page: document.scrollingElement.scrollWidth, view: window.innerWidth, inner};
}"""


def _record(scenario):
    from crawler.review_actions import do_review_match
    from dashboard.notice_actions import do_draft_notices

    do_review_match(scenario.matches[0], "confirmed", "整章转载，未获授权", scenario.users.staff)
    return do_draft_notices(scenario.matches[:1], scenario.users.staff)


def list_pages(page) -> list[str]:
    """The changelist URLs the logged-in user's navigation offers (the admin index's links)."""
    page.goto("/")
    links = page.eval_on_selector_all(
        "#content-main a, #nav-sidebar a",
        "els => els.map(a => a.getAttribute('href'))")
    return sorted({href for href in links if href and href.count("/") == 3
                   and not href.endswith("/add/") and href.startswith("/")})


@pytest.mark.parametrize("language", LANGUAGES)
def test_list_pages_fit_1366(scenario, open_page, browser_login, screenshot, language):
    _record(scenario)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    urls = list_pages(page)
    assert {"/crawler/match/", "/crawler/scanrun/", "/core/auditevent/", "/core/work/",
            "/dashboard/takedownnotice/"} <= set(urls), urls
    overflowing, narrow = {}, []
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        screenshot(page, f"list-{url.strip('/').replace('/', '-')}-{language}-1366")
        found = page.evaluate(OVERFLOW_JS)
        if found["page"] > found["view"] or found["inner"]:
            overflowing[url] = found
        for selector, least in ((TITLE_CELLS, TITLE_MIN_PX), (STATE_CELLS, STATE_MIN_PX)):
            narrow += [(url, cell.inner_text()[:20], cell.bounding_box()["width"])
                       for cell in page.query_selector_all(selector)
                       if cell.bounding_box()["width"] < least]
    assert not overflowing, {u: v["inner"] for u, v in overflowing.items()}
    assert not narrow, narrow  # titles not squeezed to a character a line


@pytest.mark.parametrize("language", LANGUAGES)
def test_evidence_readable_at_390(scenario, open_page, browser_login, screenshot, language):
    match = scenario.matches[0]
    page = open_page(language)
    page.set_viewport_size({"width": 390, "height": 844})
    browser_login(page, "staff")
    page.goto(f"/crawler/match/{match.pk}/change/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"evidence-{language}-390")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    panes = [page.query_selector(f"#{side}-text").bounding_box() for side in ("page", "work")]
    assert panes[1]["y"] >= panes[0]["y"] + panes[0]["height"], "panes are not stacked"
    for selector in ("#dash-status", "#dash-score"):
        box = page.query_selector(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    page.goto("/crawler/match/")  # the list too: score and status without sideways scrolling
    screenshot(page, f"list-crawler-match-{language}-390")
    visible = page.evaluate("(() => { const r = document.querySelector('.results')"
                            ".getBoundingClientRect(); return Math.min(r.right, 390); })()")
    for cell in page.query_selector_all("#result_list td.field-score_pct, "
                                        "#result_list td.field-status_badge"):
        box = cell.bounding_box()
        assert box["x"] + box["width"] <= visible, (cell.inner_text(), box, visible)


PAGES = ["/", "/crawler/match/{match}/change/",
         "/dashboard/takedownnotice/{notice}/change/", "/core/work/{work}/change/",
         "/core/work/add/", "/crawler/targetsite/{site}/change/", "/crawler/targetsite/add/",
         "/crawler/scanrun/{scan}/change/", "/core/rightsholder/{holder}/change/",
         "/crawler/whitelisteddomain/add/"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_screenshots_of_every_page(scenario, open_page, browser_login, screenshot, language):
    """Every page at both sizes as a picture to look at; each answers 200 and the page itself
    never scrolls sideways at 1366."""
    from crawler.models import ScanRun, TargetSite

    notices = _record(scenario)
    ids = {"match": scenario.matches[0].pk, "notice": notices[0].pk, "work": scenario.novel.pk,
           "site": TargetSite.objects.get().pk, "scan": ScanRun.objects.first().pk,
           "holder": scenario.a.pk}
    page = open_page(language)
    browser_login(page, "staff")
    urls = list_pages(page) + [p.format(**ids) for p in PAGES]
    for width, height in ((1366, 768), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for url in urls:
            assert page.goto(url).status == 200, url
            page.wait_for_load_state("networkidle")
            name = url.strip("/").replace("/", "-") or "overview"
            screenshot(page, f"page-{name}-{language}-{width}")
            if width == 1366:
                assert page.evaluate("document.scrollingElement.scrollWidth") <= width, url


# A status is never broken inside a word (a Chinese one is one word: "确认侵权" on one line),
# however long the titles beside it; English may wrap at its spaces.
LINES_JS = """(selector) => [...document.querySelectorAll(selector)].map(el => {
  const range = document.createRange(); range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return [el.innerText.trim(), tops.size];
})"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_status_words_keep_to_one_line_beside_long_titles(scenario, open_page, browser_login,
                                                          screenshot, language):
    from core.models import Work
    from crawler.models import Match

    _record(scenario)  # the first match is a confirmed infringement
    long_title = "西游记（节选）" * 8
    Work.objects.filter(pk=scenario.novel.pk).update(title=long_title)
    Match.objects.update(title="转载：" + long_title)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    broken = []
    for url, selector in (("/crawler/match/", "#result_list td.field-status_badge .dash-badge"),
                          ("/core/work/", "#result_list td.field-status_live")):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        screenshot(page, f"status-words-{url.strip('/').replace('/', '-')}-{language}-1366")
        cells = page.evaluate(LINES_JS, selector)
        assert cells, url
        broken += [(url, text, lines) for text, lines in cells if lines > len(text.split())]
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    assert not broken, broken


# Inside every cell of the tables a person reads on a phone: nothing drawn over a neighbour
# (a badge, a button), no cell squeezed to a few characters a line (3 lines or more of under 4
# characters each), no table wider than its card.
TABLE_JS = """(selector) => {
  const table = document.querySelector(selector);
  if (!table) return {missing: selector};
  const found = {spill: [], narrow: [], wide: null};
  const card = table.closest('.dash-card, .results, #content');
  const t = table.getBoundingClientRect(), c = card.getBoundingClientRect();
  if (t.right > c.right + 1 || t.left < c.left - 1) found.wide = [t.left, t.right, c.left, c.right];
  for (const cell of table.querySelectorAll('td')) {
    const r = cell.getBoundingClientRect();
    if (r.width === 0) continue;  // a column hidden on phones
    for (const el of cell.querySelectorAll('a, span, button, code, strong')) {
      const e = el.getBoundingClientRect();
      if (e.width && (e.left < r.left - 1 || e.right > r.right + 1))
        found.spill.push([cell.className, el.innerText.slice(0, 20), e.left, e.right, r.left, r.right]);
    }
    const text = cell.innerText.replace(/\\s+/g, '');
    const range = document.createRange(); range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].map(x => Math.round(x.top))).size;
    if (lines >= 3 && text.length / lines < 4)  // a few characters a line
      found.narrow.push([cell.className, text.slice(0, 20), r.width, lines]);
  }
  return found;
}"""


def _phone_tables(page, checks) -> dict:
    """``checks``: (url, [table selectors]). Returns what failed per url: the page wider than
    the screen, a table wider than its card, content spilling out of its cell, squeezed cells."""
    failed = {}
    for url, selectors in checks:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        scroll = page.evaluate("document.scrollingElement.scrollWidth")
        problems = {"page": scroll} if scroll > 390 else {}
        for selector in selectors:
            found = page.evaluate(TABLE_JS, selector)
            if found.get("missing") or found["spill"] or found["narrow"] or found["wide"]:
                problems[selector] = found
        if problems:
            failed[url] = problems
    return failed


@pytest.mark.parametrize("language", LANGUAGES)
def test_case_and_overview_tables_readable_at_390(scenario_cases, scenario, open_page,
                                                  browser_login, screenshot, language):
    """At 390x844: the case page's pages table, the case list (its work column shown), the
    evidence captures and the overview's scans keep every cell readable and inside the screen;
    at 1366 the same pages still fit. Screenshots of both sizes go to test-artifacts/."""
    from django.core.files.base import ContentFile

    from crawler.evidence.models import Capture

    match = scenario.matches[0]
    capture = Capture(match=match, kind="detection", state="done", version_id=match.version_id,
                      url=match.url, bundle_sha256="ab" * 32)
    capture.bundle.save("detection.wacz", ContentFile(b"PK\x03\x04 bundle"))
    case = scenario_cases["big"]
    checks = [(f"/crawler/case/{case.pk}/change/", ["#dash-case-pages"]),
              ("/crawler/case/", ["#result_list"]),
              (f"/crawler/match/{match.pk}/change/", ["#dash-captures table"]),
              ("/", ["#dash-scans table"])]
    page = open_page(language)
    browser_login(page, "staff")
    for width, height in ((390, 844), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        for url, tables in checks:
            page.goto(url)
            page.wait_for_load_state("networkidle")
            name = ("case-page" if "/case/" in url and "change" in url else "case-list"
                    if "/case/" in url else "evidence" if "/match/" in url else "overview")
            shot = screenshot(page, f"tables-{name}-{language}-{width}")
            page.locator(tables[0]).first.screenshot(path=str(shot.with_name(
                f"tables-{name}-{language}-{width}-table.png")))
            if width == 1366:
                assert page.evaluate("document.scrollingElement.scrollWidth") <= width, url
    page.set_viewport_size({"width": 390, "height": 844})
    assert _phone_tables(page, checks) == {}
    page.goto("/crawler/case/")
    work_cells = page.locator("#result_list td.field-work_link")
    assert work_cells.count() and all(
        (box := cell.bounding_box()) and box["width"] >= 60 and box["x"] + box["width"] <= 390
        for cell in work_cells.all()), "the case list hides or squeezes the work column"
