"""Drill (b): MongoDB (page store, crawl log, fingerprints) killed by SIGKILL in the middle of a
scan and started again. The crawl and match tasks that meet the dead server retry with backoff
(settings.CRAWL_RETRY_BASE_SECONDS, STORAGE_RETRY_MAX_SECONDS, CRAWL_STORAGE_RETRIES, short
here). MongoDB back within the retries: the scan finishes with every page stored and its URL
logged, the reprints matched once. MongoDB down for longer: each URL given up is counted as a
connection error, the scan still finishes (with those errors, never stuck "running"), and a
rescan once MongoDB is back stores every page. Either way the index equals a rebuild from
MongoDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import ingestion, registration
from core.text_extraction import extract_pasted
from crawler import scans
from crawler.models import Match, ScanRun, ScanStatus, TargetSite
from crawler.scan_actions import do_start_scan

pytestmark = pytest.mark.django_db(transaction=True)
PAGES = 40
#: The worker's storage settings: MongoDB calls give up after 1 s, retries after 0.5 s, 1 s,
#: then 2 s at most, 8 retries (about 20 s of outage survived).
STORAGE_ENV = {"TRACKER_MONGO_TIMEOUT_MS": "1000", "TRACKER_CRAWL_RETRY_BASE": "0.5",
               "TRACKER_STORAGE_RETRY_MAX": "2", "TRACKER_CRAWL_STORAGE_RETRIES": "8"}
#: A worker that gives a URL up after one retry (an outage longer than the retries).
IMPATIENT_ENV = {"TRACKER_MONGO_TIMEOUT_MS": "500", "TRACKER_CRAWL_RETRY_BASE": "0.2",
                 "TRACKER_STORAGE_RETRY_MAX": "0.5", "TRACKER_CRAWL_STORAGE_RETRIES": "1"}
NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8


def _drill_target(people, novel_text, drill_site):
    """Index the novel, serve PAGES pages (every third a reprint) and return the site and its
    TargetSite."""
    work = registration.register_work(people["press"], "xyj", extract_pasted(novel_text),
                                  ingest=False).work
    assert ingestion.ingest(work.pk) == "indexed"
    site = drill_site([novel_text[2000:4000], NEWS, NEWS.replace("交通", "环境")],
                      pages=PAGES, delay=0.3)
    return site, TargetSite.objects.create(name="drill", start_urls=[site.url],
                                           allowed_domains=["127.0.0.1"], max_pages=100,
                                           delay_seconds=0)


def _assert_every_page_stored(scan, site) -> None:
    """Every URL of ``site`` is in ``scan``'s crawl log, each page stored (the start page has
    no text: extract_failed), and each reprint matched once."""
    scan.refresh_from_db()
    assert scan.status == ScanStatus.FINISHED, scan.note
    log = scans.get_crawler().log.entries(scan.pk)
    assert {entry["url"] for entry in log} == ({site.url}
                                               | {f"{site.url}p/{i}.html" for i in range(PAGES)})
    pages = scans.get_crawler().pages
    for entry in log:
        if entry["outcome"] in ("ok", "unchanged"):
            assert pages.get(entry["url"]) is not None, entry
        else:
            assert entry["outcome"] == "extract_failed" and entry["url"] == site.url, entry
    assert "connection_error" not in scan.errors and "match_failed" not in scan.errors
    reprints = {f"{site.url}p/{i}.html" for i in range(0, PAGES, 3)}
    assert set(Match.objects.values_list("url", flat=True)) == reprints
    assert Match.objects.count() == len(reprints)


def test_scan_survives_mongodb_killed_and_started_again(private_stack, drill_site, people,
                                                        novel_text, check_platform, until):
    site, target = _drill_target(people, novel_text, drill_site)
    worker = private_stack.start_worker(**STORAGE_ENV)
    scan = do_start_scan(target)
    until(lambda: scans.progress(scan.pk)[0] >= 5, "5 URLs crawled before the kill")
    private_stack.kill_mongo()
    log = Path(worker.args[-1])  # the worker's -f log
    until(lambda: " retry: Retry in " in log.read_text(errors="replace"),
          "a task retried while MongoDB was down")
    assert ScanRun.objects.get(pk=scan.pk).status == ScanStatus.RUNNING
    private_stack.restart_mongo()

    until(lambda: ScanRun.objects.get(pk=scan.pk).status != ScanStatus.RUNNING,
          "the scan finished after MongoDB came back")
    _assert_every_page_stored(scan, site)
    check_platform()


def test_scan_ends_when_mongodb_stays_down_and_a_rescan_stores_the_pages(
        private_stack, drill_site, people, novel_text, check_platform, until):
    site, target = _drill_target(people, novel_text, drill_site)
    private_stack.start_worker(**IMPATIENT_ENV)
    scan = do_start_scan(target)
    until(lambda: scans.progress(scan.pk)[0] >= 5, "5 URLs crawled before the kill")
    private_stack.kill_mongo()
    until(lambda: ScanRun.objects.get(pk=scan.pk).status != ScanStatus.RUNNING,
          "the scan finished while MongoDB was down")
    scan.refresh_from_db()
    assert scan.status == ScanStatus.FINISHED, scan.note
    assert scan.errors.get("connection_error", 0) > 0, scan.errors  # the URLs given up
    assert scan.urls_seen == PAGES + 1

    private_stack.restart_mongo()
    rescan = do_start_scan(target)
    until(lambda: ScanRun.objects.get(pk=rescan.pk).status != ScanStatus.RUNNING,
          "the rescan finished after MongoDB came back")
    _assert_every_page_stored(rescan, site)
    check_platform()
