"""The bundled demo site (demo/site/): served by crawler.demo, crawled end to end, and the
demo step of `make run` through a real worker finding every reprint of the demo works."""

import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from crawler.demo import PATH_PATTERNS, SITE_DIR, scan_demo_site, serve
from lib.crawl.pipeline import Crawler, SiteRules

WORKS = Path(__file__).resolve().parents[2] / "demo" / "works"


@pytest.fixture
def demo():
    server = serve()
    yield server
    server.stop()


def test_demo_site_crawls_with_robots_trap_encodings_and_304(demo, config, redis_client, mongo_db, scan_driver):
    crawler = Crawler(dataclasses.replace(config, max_body_bytes=1024 * 1024), redis_client, mongo_db)
    crawler.ensure_indexes()
    rules = SiteRules(1, ("127.0.0.1",), tuple(PATH_PATTERNS))
    starts = [demo.url + "/", demo.url + "/sitemap.xml", demo.url + "/feed.xml"]
    results = scan_driver(crawler, 1, rules, starts)
    outcomes = {u.removeprefix(demo.url): r.outcome.value for u, r in results.items()}
    log = {e["url"].removeprefix(demo.url): e["outcome"] for e in crawler.log.entries(1)}
    assert log["/private/draft-xiyouji-03.html"] == "robots_disallowed"
    assert log["/calendar/2026/01/"] == "trap"
    pages = sorted(p for p, o in outcomes.items() if o == "ok" and p.endswith(".html"))
    assert len(pages) == 13 and all(p.startswith(("/news/", "/reprint/")) for p in pages)
    big5 = crawler.pages.get(demo.url + "/reprint/xiyouji-02-big5.html")
    gbk = crawler.pages.get(demo.url + "/reprint/hongloumeng-01.html")
    assert big5.encoding.startswith("big5") and gbk.encoding == "gb18030 (detected)"
    assert "美猴王" in crawler.pages.version(big5.version_id).text or \
        "猴王" in crawler.pages.version(big5.version_id).text
    again = scan_driver(crawler, 2, rules, starts)
    assert again[demo.url + "/reprint/xiyouji-01.html"].outcome.value == "not_modified"


def test_sitemap_and_feed_carry_the_servers_address(demo):
    import requests

    sitemap = requests.get(demo.url + "/sitemap.xml", timeout=5)
    assert sitemap.headers["Content-Type"] == "application/xml"
    assert f"<loc>{demo.url}/reprint/xiyouji-01.html</loc>" in sitemap.text and "{BASE}" not in sitemap.text
    assert "{BASE}" not in (SITE_DIR / "index.html").read_text(encoding="utf-8")


@pytest.mark.django_db(transaction=True)
def test_demo_step_finds_every_reprint(settled_worker, platform_stores, monkeypatch):
    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.models import Match

    engine, holder = get_engine(), RightsHolder.objects.create(name="示例出版社")
    texts = {"XYJ": (WORKS / "xiyouji-01-03.txt").read_text(encoding="utf-8"),
             "HLM": (WORKS / "hongloumeng-01-02.txt").read_bytes().decode("gb18030")}
    for line in (WORKS / "renmin-ribao-199801.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts[record["id"]] = record["text"]
    heads = [m.start() for m in re.finditer(r"^第[一二三]回", texts["XYJ"], re.MULTILINE)]
    chapters = [{"title": texts["XYJ"][s:s + 3], "start": s, "end": e}
                for s, e in zip(heads, [*heads[1:], len(texts["XYJ"])], strict=True)]
    for ref, text in texts.items():
        work = Work.objects.create(holder=holder, reference=ref, title=ref, length=len(text),
                                   status="indexed", indexed_at=timezone.now(),
                                   sections=chapters if ref == "XYJ" else [])
        engine.add_work(work.engine_id, text)
    monkeypatch.setenv("DEMO_SITE_PORT", "0")  # any free port
    out = io.StringIO()
    figures = scan_demo_site(out)
    summary = json.loads(out.getvalue().split(":\n", 1)[1])
    assert summary["status"] == "finished" and figures["demo scan"].endswith("finished")
    assert summary["errors"] == {"robots_disallowed": 1, "trap": 1}
    found = {(m.work.reference, m.url.rsplit("/", 1)[1]) for m in Match.objects.select_related("work")}
    assert found == {("XYJ", "xiyouji-01.html"), ("XYJ", "xiyouji-02-big5.html"),
                     ("HLM", "hongloumeng-01.html"), ("pd199801-00026", "news-concert.html"),
                     ("pd199801-00090", "news-huaihe.html")}
    assert summary["matches_found"] == 5 == figures["matches found"]
    # the Big5 reprint of chapter 2 names chapter 2 only, whatever its passages' edges
    sections = {m.url.rsplit("/", 1)[1]: m.section for m in Match.objects.filter(work__reference="XYJ")}
    assert sections == {"xiyouji-01.html": "第一回", "xiyouji-02-big5.html": "第二回"}
