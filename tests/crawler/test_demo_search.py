"""The demo's web search engine (crawler.demo_search, served by `make run`): it answers exact
phrases with the demo sites' pages that hold them, never a page robots.txt forbids; and
`discover --search`, run through the session's worker as in a second terminal beside `make
run`, finds the unlisted demo site's copy of 红楼梦 第二回, which no target site lists, and the
run's page says what became of each result page, in both languages."""

from __future__ import annotations

import io
import json

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core.management import call_command

from crawler.demo import PLATFORM_DIR, SITE_DIR, serve
from crawler.demo_search import UNLISTED_DIR, serve_search, site_pages
from lib.text import find_sections
from tests.search_service import WORKER_SEARCH_PORT

WORKS = SITE_DIR.parent / "works"
SITE, PLATFORM, UNLISTED = ("http://127.0.0.1:8931", "http://localhost:8932",
                            "http://127.0.0.2:8934")
CHAPTER_2 = UNLISTED + "/book/hongloumeng-02.html"


def _urls(base: str, phrase: str) -> list[str]:
    answer = requests.get(base + "/search", params={"q": f'"{phrase}"', "format": "json"},
                          timeout=5)
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
    return [result["url"] for result in answer.json()["results"]]


def test_the_demo_search_engine_finds_each_demo_copy_and_no_page_robots_forbid():
    sites = [(SITE, SITE_DIR), (PLATFORM, PLATFORM_DIR), (UNLISTED, UNLISTED_DIR)]
    indexed = {url for base, folder in sites for url, _, _ in site_pages(base, folder)}
    assert CHAPTER_2 in indexed and PLATFORM + "/article/xiyouji-01.html" in indexed
    assert not any("/private/" in url for url in indexed)  # robots.txt: Disallow: /private/
    service, base = serve_search(0, sites)
    try:
        # 红楼梦: chapter 2 only on the unlisted site, chapter 1 (GBK, no charset) on the demo site
        assert _urls(base, "冷子兴演说荣国府") == [CHAPTER_2]
        assert _urls(base, "甄士隐梦幻识通灵") == [SITE + "/reprint/hongloumeng-01.html"]
        # 西游记 chapter 1 on the demo site and on the demo platform
        assert set(_urls(base, "灵根育孕源流出")) == {SITE + "/reprint/xiyouji-01.html",
                                                  PLATFORM + "/article/xiyouji-01.html"}
        # chapter 3, only in the draft that robots.txt forbids
        assert _urls(base, "四海千山皆拱伏") == []
        assert requests.get(base + "/search", params={"q": "x"}, timeout=5).status_code == 404
        assert service.queries == 4
    finally:
        service.stop()
    assert "四海千山皆拱伏" in (SITE_DIR / "private" / "draft-xiyouji-03.html").read_text(
        encoding="utf-8")


@pytest.mark.django_db(transaction=True)
def test_discover_finds_the_unlisted_demo_site_and_its_page_says_what_it_read(
        settled_worker, platform_stores, settings, client):
    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.models import CandidateSite, Case, Match, SearchRun

    text = (WORKS / "hongloumeng-01-02.txt").read_bytes().decode("gb18030").replace("\r\n", "\n")
    holder = RightsHolder.objects.create(name="示例出版社")
    work = Work.objects.create(holder=holder, reference="HLM", title="红楼梦", length=len(text),
                               status="indexed", indexed_at=timezone.now(),
                               sections=find_sections(text))
    get_engine().add_work(work.engine_id, text)
    # the worker may reach 127.0.0.1 only: the unlisted site there, on a port of its own
    unlisted = serve(0, "127.0.0.1", UNLISTED_DIR)
    service, base = serve_search(WORKER_SEARCH_PORT, [(unlisted.url, UNLISTED_DIR)])
    settings.SEARCH_PROVIDERS = f"searxng={base}"
    try:
        out = io.StringIO()
        call_command("discover", "--search", "--wait", "--timeout", "300", stdout=out,
                     stderr=io.StringIO())
    finally:
        service.stop()
        unlisted.stop()
    summary = json.loads(out.getvalue().splitlines()[-1])
    assert (summary["status"], summary["pages_matched"], summary["new_cases"]) == \
        ("finished", 1, 1), summary
    (match,) = Match.objects.all()
    assert match.url == unlisted.url + "/book/hongloumeng-02.html" and match.work_id == work.pk
    assert match.section.startswith("第二回") and Case.objects.get().work_id == work.pk
    candidate = CandidateSite.objects.get()
    assert (candidate.domain, candidate.status) == ("127.0.0.1", "proposed")
    run = SearchRun.objects.get()
    client.force_login(get_user_model().objects.create_superuser("boss", "b@example.com", "x"))
    page = f"/crawler/searchrun/{run.pk}/change/"
    en = client.get(page, headers={"accept-language": "en"}).content.decode()
    assert "command line" in en and ">command<" not in en
    assert f'<a href="{match.url}"' in en and "fetched" in en
    assert f'<a href="/crawler/match/{match.pk}/change/">match #{match.pk} (score' in en
    assert en.count("Works searched") == 1 and "Works to search" not in en  # once: done / total
    zh = client.get(page, headers={"accept-language": "zh-hans"}).content.decode()
    assert "命令行" in zh and "已抓取" in zh and "已返回结果" in zh
    assert f"匹配 #{match.pk}（得分" in zh and "结果网页" in zh
