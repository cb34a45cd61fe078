"""Drill (c): a Celery worker killed by SIGKILL in the middle of a scan. Its unacknowledged
crawl tasks come back after the broker's visibility timeout (settings
BROKER_VISIBILITY_TIMEOUT_SECONDS, short here) to the worker started after it, and the scan
finishes with every page stored once (one version) or recorded, the reprint matched once; with
pages matched in their crawl task (settings.CRAWL_MATCH_INLINE) and with a match task per page.
A crawl task carries several URLs (settings.CRAWL_BATCH_URLS): those of the killed worker's
batch crawled before the kill are crawled again, and found unchanged."""

from __future__ import annotations

import pytest

from core import ingestion, registration
from core.text_extraction import extract_pasted
from crawler import scans
from crawler.models import Match, ScanRun, ScanStatus, TargetSite
from crawler.scan_actions import do_start_scan

pytestmark = pytest.mark.django_db(transaction=True)
PAGES = 40


@pytest.mark.parametrize("inline", ["true", "false"], ids=["matched-in-crawl-task", "match-task"])
def test_scan_survives_a_worker_killed_by_sigkill(inline, private_stack, drill_site, people,
                                                  novel_text, check_platform, until):
    work = registration.register_work(people["press"], "xyj", extract_pasted(novel_text),
                                  ingest=False).work
    assert ingestion.ingest(work.pk) == "indexed"
    news = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8
    site = drill_site([novel_text[2000:4000], news, news.replace("交通", "环境")],
                      pages=PAGES, delay=0.3)
    target = TargetSite.objects.create(name="drill", start_urls=[site.url],
                                       allowed_domains=["127.0.0.1"], max_pages=100,
                                       delay_seconds=0)
    first = private_stack.start_worker(TRACKER_CRAWL_MATCH_INLINE=inline)
    scan = do_start_scan(target)
    until(lambda: scans.progress(scan.pk)[0] >= 5, "5 URLs crawled before the kill")
    private_stack.kill_worker(first)
    done_at_kill = scans.progress(scan.pk)[0]
    assert done_at_kill < PAGES + 1, "the scan ended before the kill: nothing was tested"

    private_stack.start_worker(TRACKER_VISIBILITY_TIMEOUT="5", TRACKER_UNACKED_RESTORE_INTERVAL="1",
                               TRACKER_CRAWL_MATCH_INLINE=inline)
    until(lambda: ScanRun.objects.get(pk=scan.pk).status != ScanStatus.RUNNING,
               "the scan finished after the kill")
    scan.refresh_from_db()
    assert scan.status == ScanStatus.FINISHED, scan.note
    log = scans.get_crawler().log.entries(scan.pk)
    urls = {entry["url"] for entry in log}
    assert urls == {site.url} | {f"{site.url}p/{i}.html" for i in range(PAGES)}
    pages = scans.get_crawler().pages
    for entry in log:  # every page stored once, or its failure recorded with the reason
        if entry["url"] == site.url:  # the link list: no body text
            assert entry["outcome"] in ("ok", "extract_failed", "unchanged"), entry
            continue
        # a URL of the killed worker's batch crawled before the kill comes back "unchanged"
        assert entry["outcome"] in ("ok", "unchanged"), entry
        page = pages.get(entry["url"])
        assert page is not None and page.versions == 1, (entry, page)
        assert pages.versions.count_documents({"canonical_url": entry["url"]}) == 1
    reprints = {f"{site.url}p/{i}.html" for i in range(0, PAGES, 3)}
    assert set(Match.objects.values_list("url", flat=True)) == reprints
    assert Match.objects.count() == len(reprints)  # a page crawled twice is matched once
    check_platform()
