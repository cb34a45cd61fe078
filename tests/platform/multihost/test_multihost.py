"""The platform over six hosts (network namespaces on one bridge, conftest.py): a web and beat
host, two worker hosts, three data hosts carrying a MongoDB replica set (w=majority) and a
Redis Cluster of three masters (the fingerprint index). Scans are started through the web
host's API, crawled and matched on the worker hosts, and must store every page once:

- with both worker hosts;
- when every process of one worker host is killed mid-scan (its unacknowledged tasks come
  back to the other after the broker's visibility timeout);
- when the MongoDB primary steps down, or is killed, mid-scan (every page version the set had
  acknowledged before is still there, and the scan finishes on the new primary).
"""

from __future__ import annotations

import contextlib
import os
import signal

import pymongo
import pytest
from django.conf import settings

from crawler import scans
from crawler.models import Match
from tests.platform.multihost.deployment import wait_until

PAGES = 36


def _reprints(site) -> set[str]:
    return {f"{site.url}p/{i}.html" for i in range(0, site.pages, 3)}


def _check_every_page_once(site, scan: dict, redelivered: bool = False) -> None:
    """The scan finished with every URL of ``site`` crawled once, each page stored with one
    version, and each reprint matched once. ``redelivered``: a fault may have stopped a crawl
    task after its page was stored; the task's second delivery then finds it "unchanged"."""
    assert scan["status"] == "finished", scan
    crawler = scans.get_crawler()
    log = crawler.log.entries(scan["id"])
    urls = [entry["url"] for entry in log]
    assert sorted(urls) == sorted({site.url} | {f"{site.url}p/{i}.html"
                                                for i in range(site.pages)})
    for entry in log:
        if entry["url"] == site.url:  # the link list: no body text
            assert entry["outcome"] in ("ok", "extract_failed"), entry
            continue
        assert entry["outcome"] in (("ok", "unchanged") if redelivered else ("ok",)), entry
        page = crawler.pages.get(entry["url"])
        assert page is not None and page.versions == 1, (entry, page)
        assert crawler.pages.versions.count_documents({"canonical_url": entry["url"]}) == 1
    matched = list(Match.objects.filter(url__startswith=site.url).values_list("url", flat=True))
    assert sorted(matched) == sorted(_reprints(site))  # each reprint matched, once


def _worked(worker) -> int:
    """How many crawl tasks (of one URL or a batch) ``worker`` finished, from its log."""
    text = worker.log.read_text(errors="replace") if worker.log.exists() else ""
    return text.count("Task crawler.crawl_url[") + text.count("Task crawler.crawl_urls[")


def test_a_scan_over_two_worker_hosts_stores_every_page_once(hosted):
    site = hosted.site(PAGES, delay=0.1)
    before = [_worked(worker) for worker in hosted.workers]
    scan = hosted.wait_done(hosted.start_scan(site))
    _check_every_page_once(site, scan)
    assert scan["matches_found"] == len(_reprints(site)), scan
    done = [_worked(worker) - was for worker, was in zip(hosted.workers, before, strict=True)]
    assert all(done), f"crawl tasks per worker host: {done}"  # both hosts took part


def test_a_worker_host_lost_mid_scan_loses_no_page(hosted):
    site = hosted.site(PAGES, delay=0.3)
    scan_id = hosted.start_scan(site)
    wait_until(lambda: scans.progress(scan_id)[0] >= 5, "5 URLs crawled before the loss")
    lost = hosted.workers[0]
    killed = lost.host.kill_all()  # the worker's main and pool processes: the whole host
    assert killed and lost.proc.wait(timeout=30) is not None
    assert scans.progress(scan_id)[0] < PAGES + 1, "the scan ended before the loss"
    scan = hosted.wait_done(scan_id)
    _check_every_page_once(site, scan, redelivered=True)
    hosted.workers.remove(lost)


@pytest.mark.parametrize("fault", ["step down", "kill"])
def test_the_mongodb_primary_lost_mid_scan_loses_no_acknowledged_page(hosted, fault):
    made = hosted.deployment
    site = hosted.site(PAGES, delay=0.2)
    scan_id = hosted.start_scan(site)
    wait_until(lambda: scans.progress(scan_id)[0] >= 5, "5 URLs crawled before the fault")
    old = made.primary()
    with made.mongo_client() as client:  # what the set has acknowledged (w=majority) so far
        pages = client[settings.MONGO_DB]["pages"]
        acknowledged = {doc["canonical_url"]: doc["version_id"]
                        for doc in pages.find({"scan_id": scan_id, "version_id": {"$ne": None}})}
        if fault == "step down":
            # the old primary drops its connections
            with contextlib.suppress(pymongo.errors.AutoReconnect):
                client.admin.command("replSetStepDown", 30)
        else:
            os.kill(made.mongo_pids[old.name], signal.SIGKILL)
    assert acknowledged, "no page stored before the fault: nothing was tested"
    assert scans.progress(scan_id)[0] < PAGES + 1, "the scan ended before the fault"
    assert wait_until(lambda: made.primary() != old, "another member elected primary")
    scan = hosted.wait_done(scan_id)
    _check_every_page_once(site, scan, redelivered=True)
    crawler = scans.get_crawler()
    for url, version_id in acknowledged.items():
        assert crawler.pages.get(url).version_id == str(version_id), url
    if fault == "kill":  # the member comes back as a secondary and catches up
        made.start_mongo_member(old)
