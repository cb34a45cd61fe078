"""Fixtures of the dashboard tests: real headless Chromium (Debian's package) driven by Playwright
against pytest-django's live server, accounts of both roles, and screenshots as test artifacts.

Browser tests are marked ``browser``; they skip, with the reason printed by ``-ra`` in
``make test``, when ``/usr/bin/chromium`` (or ``$CHROMIUM_PATH``) is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browsers import CHROMIUM

# Flags that work on these machines (root, no GPU, closed network): without the
# background-networking ones Chromium keeps trying to reach Google's hosts.
CHROMIUM_ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "Dash-board-2026!"
# Playwright's locale sets Accept-Language; Django maps zh-CN to zh-hans.
BROWSER_LOCALES = {"zh-hans": "zh-CN", "en": "en-US"}


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium for one test module (a Playwright ``Browser``).

    Module scope on purpose: Playwright's sync API keeps an asyncio loop marked as running in
    this thread, so Django refuses ORM calls unless DJANGO_ALLOW_ASYNC_UNSAFE is set; the
    variable is set only while the browser lives and removed afterwards, so that other test
    modules run with Django's usual guard. Skips the module when Chromium is not installed.
    """
    if not CHROMIUM.exists():
        pytest.skip(f"browser test: no Chromium at {CHROMIUM} "
                    "(apt-get install chromium fonts-noto-cjk, as .ci/run does)")
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def pdf_reader():
    """The ``pypdf`` module, for tests that render a PDF report and read its text back. Skips,
    with the reason, when pypdf is missing, when WeasyPrint cannot load Pango, or when no
    Chinese font is installed: WeasyPrint would draw every Chinese character as a .notdef box
    (the Dockerfile and .ci/run install fonts-noto-cjk)."""
    pypdf = pytest.importorskip("pypdf")
    try:
        import weasyprint  # noqa: F401
    except OSError as exc:  # the Python package is there, the Pango library is not
        pytest.skip(f"PDF report: WeasyPrint cannot load Pango here ({exc})")
    fonts = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True,
                           check=False).stdout if shutil.which("fc-list") else ""
    if not fonts.strip():
        pytest.skip("PDF report: no Chinese font (apt-get install fonts-noto-cjk, as .ci/run does)")
    return pypdf


@pytest.fixture
def open_page(chromium, live_server) -> Iterator[Callable]:
    """Factory ``open_page(language="en") -> playwright Page`` on the live server.

    Each call opens a fresh browser context (own cookies) whose Accept-Language asks for
    ``language`` ("en" or "zh-hans"); relative URLs in ``page.goto`` resolve against the live
    server. Contexts are closed after the test.
    """
    contexts = []

    def factory(language: str = "en"):
        context = chromium.new_context(base_url=live_server.url, locale=BROWSER_LOCALES[language],
                                       viewport={"width": 1400, "height": 1000},
                                       timezone_id="Asia/Shanghai")
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield factory
    for context in contexts:
        context.close()


def login(page, username: str, password: str = PASSWORD) -> None:
    """Log in through the admin's login form on ``page`` (a Playwright Page); returns None."""
    page.goto("/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_load_state("networkidle")


@pytest.fixture
def browser_login() -> Callable:
    """The ``login(page, username, password=PASSWORD)`` helper, as a fixture."""
    return login


@pytest.fixture
def screenshot() -> Callable:
    """Factory ``screenshot(page, name) -> Path``: a full-page PNG in test-artifacts/."""

    def take(page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        try:
            page.screenshot(path=str(path), full_page=True)
        except PlaywrightError as exc:
            # Chromium now and then refuses a capture just after a navigation, under load
            # ("Unable to capture screenshot"); the page is there, so it is taken once more
            if "Unable to capture screenshot" not in str(exc):
                raise
            page.wait_for_load_state("load")
            page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def make_user(django_user_model) -> Callable:
    """Factory ``make_user(username, staff_role=False, holders=()) -> User``.

    Every user gets ``is_staff`` (needed to enter the admin) and the password ``PASSWORD``.
    ``staff_role=True`` puts the user in the "Platform staff" group (sees every holder);
    otherwise in "Rights holders", as a member of each holder in ``holders``.
    """
    from django.contrib.auth.models import Group

    from core import roles

    def make(username: str, staff_role: bool = False, holders=()):
        user = django_user_model.objects.create_user(username, password=PASSWORD, is_staff=True)
        roles.ensure_groups()
        group = roles.STAFF_GROUP if staff_role else roles.HOLDER_GROUP
        user.groups.add(Group.objects.get(name=group))
        for holder in holders:
            holder.users.add(user)
        return user

    return make


# -- test data: two rights holders, their works, crawled pages in MongoDB, matches -----------

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HEADER = "【小说频道】热门连载 · 西游记 第二回 · 编辑：王小明\n\n"
AD = "\n\n【广告】下载APP，免费看全本小说！点击领取会员。\n\n"
FOOTER = "\n\n版权所有 © 小说频道 联系我们 | 关于我们"


def chapter_sections(text: str) -> list[dict]:
    """``Work.sections`` of a text whose chapters start with a 第X回 heading line."""
    import re

    starts = [(m.start(), m.group(0).strip()) for m in re.finditer(r"^第.{1,3}回.*$", text, re.M)]
    return [{"title": title, "start": start,
             "end": starts[i + 1][0] if i + 1 < len(starts) else len(text)}
            for i, (start, title) in enumerate(starts)]


def copy_page(work_text: str, pieces: list[tuple[int, int]], fillers: list[str]):
    """Build a page that copies ``pieces`` (work offsets) between ``fillers``.

    ``fillers`` has one more item than ``pieces`` (before, between, after). Returns
    ``(page text, passages as dicts with page/work offsets)``.
    """
    text, passages = fillers[0], []
    for (start, end), filler in zip(pieces, fillers[1:], strict=True):
        passages.append({"page_start": len(text), "page_end": len(text) + end - start,
                         "work_start": start, "work_end": end})
        text += work_text[start:end] + filler
    return text, passages


def store_page(url: str, text: str, title: str, *, when=None) -> tuple[str, str]:
    """Save a crawled page through the crawler's PageStore; returns (page_id, version_id)."""
    from urllib.parse import urlsplit

    from core.connections import get_mongo_db
    from lib.crawl.pagestore import PageStore

    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    result = store.save(canonical_url=url, url=url, final_url=url,
                        domain=urlsplit(url).hostname, site_id=None, scan_id=None, status=200,
                        outcome="fetched", reason="", headers={"content-type": "text/html"},
                        validators={}, body=text.encode(), text=text, title=title,
                        published=None, encoding="utf-8",
                        extraction={"method": "trafilatura", "error": None}, links=[])
    return result.page_id, result.version_id


@pytest.fixture
def scenario(db, platform_stores, make_user):
    """Holders A (星河出版社, a 西游记 excerpt in three chapters) and B (晨光文化传媒, a news
    article); users staff / holder_a / holder_b; three crawled pages in MongoDB copying the
    works, and one Match each (all new; scores 0.86, 0.45, 0.15). Returns a SimpleNamespace with all of them plus
    ``texts`` (page texts by match) and ``passages`` (by match)."""
    import json
    from datetime import timedelta
    from types import SimpleNamespace

    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.models import Match, ScanRun, TargetSite

    a = RightsHolder.objects.create(name="星河出版社", contact_person="李明",
                                    email="legal@xinghe.example", phone="+86 10 5555 0101",
                                    address="北京市朝阳区建国路 88 号")
    b = RightsHolder.objects.create(name="晨光文化传媒", contact_person="Chen Guang",
                                    email="rights@chenguang.example", address="上海市徐汇区")
    novel_text = (FIXTURES / "xiyouji-excerpt.txt").read_text(encoding="utf-8")
    article = json.loads((FIXTURES / "renmin-ribao-article.json").read_text(encoding="utf-8"))
    engine = get_engine()
    novel = Work.objects.create(holder=a, reference="XYJ-001", title="西游记（节选）",
                                author="吴承恩", kind="novel", length=len(novel_text),
                                sections=chapter_sections(novel_text), status="indexed")
    news = Work.objects.create(holder=b, reference=article["id"], title=article["title"],
                               kind="news", length=len(article["text"]), status="indexed")
    engine.add_work(novel.engine_id, novel_text)
    engine.add_work(news.engine_id, article["text"])

    ch2 = novel.sections[1]["start"]
    ch1 = novel.sections[0]["start"]
    now = timezone.now()
    specs = [
        ("https://copy.example.com/novel/xyj-2.html", "西游记第二回 全文阅读", novel,
         novel_text, [(ch2 + 40, ch2 + 520), (ch2 + 600, ch2 + 900)], [HEADER, AD, FOOTER], 2,
         0.86),
        ("https://mirror.example.net/xyj/1.html", "西游记 第一回", novel, novel_text,
         [(ch1 + 60, ch1 + 420)], ["镜像站 转载\n\n", "\n\n（未完待续）"], 10, 0.45),
        ("https://news-copy.example.org/a/19980101.html", "转载：" + article["title"], news,
         article["text"], [(0, 600)], ["新闻聚合 · 今日要闻\n\n", "\n\n责任编辑：佚名"], 1,
         0.15),
    ]
    site = TargetSite.objects.create(name="demo")
    scan = ScanRun.objects.create(site=site, status="finished", pages_fetched=40,
                                  matches_found=3, started_at=now - timedelta(hours=5))
    ScanRun.objects.create(site=site, status="failed", pages_fetched=3,
                           errors={"timeout": 2, "robots": 1},
                           started_at=now - timedelta(hours=2))
    matches, texts, passages = [], {}, {}
    for url, title, work, source, pieces, fillers, days_ago, score in specs:
        text, spans = copy_page(source, pieces, fillers)
        page_id, version_id = store_page(url, text, title)
        copied = sum(p["page_end"] - p["page_start"] for p in spans)
        match = Match.objects.create(
            work=work, page_id=page_id, version_id=version_id, url=url,
            domain=url.split("/")[2], title=title, score=score,
            containment_page=copied / len(text), containment_work=copied / len(source),
            passages=spans, first_seen=now - timedelta(days=days_ago), last_seen=now,
            site=site, first_scan=scan, last_scan=scan)
        matches.append(match)
        texts[match.pk], passages[match.pk] = text, spans
    users = SimpleNamespace(staff=make_user("staff", staff_role=True),
                            holder_a=make_user("holder_a", holders=[a]),
                            holder_b=make_user("holder_b", holders=[b]))
    return SimpleNamespace(a=a, b=b, novel=novel, news=news, novel_text=novel_text,
                           article=article, matches=matches, texts=texts, passages=passages,
                           users=users)


@pytest.fixture
def scenario_cases(scenario):
    """The scenario's matches put into their cases (as a scan would), plus a case of 120
    pages of the novel on one more site. Returns {"novel": Case, "news": Case, "big": Case}."""
    from crawler.cases import open_case
    from crawler.models import Match

    found = {}
    for match in scenario.matches:
        case, _ = open_case(match.work, match.domain)
        Match.objects.filter(pk=match.pk).update(case=case)
        found.setdefault(case.work.reference, case)
    big, _ = open_case(scenario.novel, "www.big-copy.example.cn")
    template = scenario.matches[0]
    Match.objects.bulk_create([Match(
        work=scenario.novel, page_id=f"{n:024x}", version_id=template.version_id,
        url=f"https://www.big-copy.example.cn/book/{n}.html", domain="www.big-copy.example.cn",
        title=f"西游记 第{n}页", score=0.7, containment_page=0.6, containment_work=0.01,
        passages=template.passages, section="第二回", case=big) for n in range(1, 121)])
    return {"novel": found["XYJ-001"], "news": found[scenario.news.reference], "big": big}


DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


def big5_demo_texts() -> tuple[str, str]:
    """(the text extracted from the demo site's Big5 page of 西遊記 第二回, the demo work
    西游记（第一回至第三回）'s text)."""
    from lib.text.encoding import decode_bytes
    from lib.text.html import extract_document

    raw = (DEMO_DIR / "site" / "reprint" / "xiyouji-02-big5.html").read_bytes()
    page = extract_document(decode_bytes(raw, "text/html").text).text
    return page, (DEMO_DIR / "works" / "xiyouji-01-03.txt").read_text(encoding="utf-8")


def big5_demo_match():
    """``big5_demo_texts`` and the engine's match of the page to the work, in a memory index
    that holds only that work: (page, work, fingerprint.Match)."""
    from fingerprint import Engine, EngineConfig
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    page, work = big5_demo_texts()
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())
    engine.add_work("xiyouji", work)
    return page, work, engine.match(page)[0]


@pytest.fixture
def big5_reprint(scenario):
    """The demo site's Big5 page of 西遊記 第二回 as the engine matches it against the demo
    work 西游记（第一回至第三回）: the Match, with the engine's score and passages."""
    from core.engine import get_engine
    from core.models import Work
    from crawler.models import Match

    text, work_text = big5_demo_texts()
    work = Work.objects.create(holder=scenario.a, reference="XYJ-001-003", title="西游记",
                               kind="novel", length=len(work_text), status="indexed")
    get_engine().add_work(work.engine_id, work_text)
    [found] = [m for m in get_engine().match(text) if m.work_id == work.engine_id]
    url = "https://demo.example.com/reprint/xiyouji-02-big5.html"
    page_id, version_id = store_page(url, text, "西遊記 第二回")
    template = scenario.matches[0]
    return Match.objects.create(
        work=work, page_id=page_id, version_id=version_id, url=url, domain="demo.example.com",
        title="西遊記 第二回", score=found.score, containment_page=found.containment_page,
        containment_work=found.containment_work,
        passages=[p.to_dict() for p in found.passages], first_seen=template.first_seen,
        last_seen=template.last_seen, site=template.site, first_scan=template.first_scan,
        last_scan=template.last_scan)


def removed_after_notice(case, staff, span) -> None:
    """Take ``case`` through its takedown as staff would: confirmed, its notice drafted and
    sent, its page found removed by a takedown check; then its notice dated ``span`` (a
    timedelta) before the removal. Returns None."""
    from crawler import case_actions
    from crawler.models import Case, CheckOutcome
    from crawler.takedown import record_check
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    case_actions.do_confirm_case(case, staff, "copied chapter")
    notice, = do_draft_notices(case.pages.all(), staff, "en")
    do_advance_notice(notice, "sent", staff)
    record_check(case.pages.get(), CheckOutcome.REMOVED, 404, "", "HTTP 404")
    case.refresh_from_db()
    Case.objects.filter(pk=case.pk).update(notice_sent_at=case.removed_at - span)
