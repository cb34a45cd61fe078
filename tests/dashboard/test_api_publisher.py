"""The issue's "done when": a publisher's script, through the API alone, registers a novel, adds
a chapter the next day, waits for indexing (the real Celery worker), lists the new matches of
that work, confirms one and drafts a takedown notice. Only the crawl is simulated: a page
copying the new chapter is stored and matched with the crawler's own matching step."""

from __future__ import annotations

import time

import pytest
import requests

from core.connections import get_mongo_db
from core.engine import get_engine
from core.models import RightsHolder
from crawler.matching import match_version
from dashboard.models import ApiToken
from lib.crawl.pagestore import PageStore

from .conftest import FIXTURES, store_page

INDEX_TIMEOUT_SECONDS = 120


@pytest.mark.django_db(transaction=True)
def test_publisher_script(live_server, idle_worker, platform_stores, make_user):
    holder = RightsHolder.objects.create(name="星河出版社")
    token = ApiToken(user=make_user("publisher", holders=[holder]), name="CMS")
    raw = token.issue()
    token.save()
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {raw}"
    base = f"{live_server.url}/api/v1/"

    def wait_indexed(work_id: int, sha256: str) -> dict:
        deadline = time.monotonic() + INDEX_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            work = api.get(base + f"works/{work_id}/", timeout=30).json()
            if work["status"] == "indexed" and work["sha256"] == sha256:
                return work
            assert work["status"] != "failed", work
            time.sleep(0.5)
        raise AssertionError(f"work {work_id} not indexed in {INDEX_TIMEOUT_SECONDS} s: {work}")

    text = (FIXTURES / "xiyouji-excerpt.txt").read_text(encoding="utf-8")
    third = text.index("第三回")
    first_two, chapter_three = text[:third].rstrip(), text[third:]
    created = api.post(base + "works/", json={"reference": "XYJ-001", "title": "西游记",
                                              "text": first_two}, timeout=30)
    assert created.status_code == 201, created.text
    work_id = created.json()["id"]
    assert wait_indexed(work_id, created.json()["sha256"])["chapters"] == 2

    appended = api.post(base + f"works/{work_id}/text/",
                        json={"text": chapter_three, "mode": "append"}, timeout=30)
    assert appended.status_code == 200 and appended.json()["outcome"] == "updated"
    work = wait_indexed(work_id, appended.json()["sha256"])
    assert work["length"] > created.json()["length"]
    assert work["chapters"] == 3
    chapters = api.get(base + f"works/{work_id}/chapters/", timeout=30).json()
    assert chapters[2]["title"].startswith("第三回")

    # a site copies the new chapter; the crawler stores and matches the page
    url = "https://copy.example.com/xyj/3.html"
    page_text = "盗版小说网 · 最新章节\n\n" + chapter_three[:1500] + "\n\n下载APP看全本"
    page_id, version_id = store_page(url, page_text, "西游记 第三回")
    store = PageStore(get_mongo_db())
    match_version(get_engine(), store.page(page_id), store.version(version_id), None)

    listed = api.get(base + "matches/", params={"work": work_id, "status": "new"},
                     timeout=30).json()
    assert listed["count"] == 1
    match = listed["results"][0]
    assert match["url"] == url and match["chapters"].startswith("第三回")
    reviewed = api.post(base + f"matches/{match['id']}/review/",
                        json={"decision": "confirmed", "reason": "第三回整章照搬"}, timeout=30)
    assert reviewed.status_code == 200 and reviewed.json()["review_status"] == "confirmed"
    drafted = api.post(base + "notices/", json={"matches": [match["id"]]}, timeout=30)
    assert drafted.status_code == 201, drafted.text
    notice = drafted.json()[0]
    assert (notice["domain"], notice["status"]) == ("copy.example.com", "drafted")
    document = api.get(base + f"notices/{notice['id']}/document/txt/", timeout=30)
    assert url in document.text
