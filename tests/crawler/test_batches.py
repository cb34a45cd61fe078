"""Crawl tasks of several URLs (crawler.tasks.crawl_urls), run in this process on the real
MongoDB, Redis and PostgreSQL against a loopback site: a URL that fails does not lose the others
of its batch, a batch delivered again after its worker died stores, matches and counts each
page once, and a page crawled again sends the links it admitted before (through the session's
worker)."""

import time

import pytest

from crawler import scans
from crawler.models import Match, ScanRun, ScanStatus, TargetSite
from crawler.tasks import _crawl_one, crawl_urls, url_done_id
from lib.crawl.pipeline import SiteRules, UrlTask
from tests.chapter import CHAPTER

pytestmark = pytest.mark.django_db(transaction=True)
NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 6


def _page(text: str) -> str:
    return f"<html><head><title>页</title></head><body><article><p>{text}</p></article></body></html>"


@pytest.fixture
def batch_scan(indexed_chapter, site):
    """A site of three pages (the second a reprint of a registered work) and an open scan of
    it whose start URLs are those pages. Returns (scan id, token, [canonical URLs], site)."""
    indexed_chapter()
    for i, text in enumerate([NEWS, CHAPTER[:2500], NEWS.replace("交通", "环境")]):
        site.route(f"/p/{i}.html", site.html(_page(text)))
    target = TargetSite.objects.create(name="批量", allowed_domains=["127.0.0.1"], delay_seconds=0,
                                       start_urls=[site.url(f"/p/{i}.html") for i in range(3)])
    scan, urls, token = scans.start(target, trigger="test")
    return scan.pk, token, urls, site


def _stats(scan_id: int):
    return scans.get_crawler().frontier(scan_id).state()


def test_a_url_that_fails_does_not_lose_the_others_of_its_batch(batch_scan):
    scan_id, token, urls, site = batch_scan
    bad = "http://[::1/broken.html"  # a URL no step can parse, in the middle of the batch
    assert scans.get_crawler().frontier(scan_id).admit([bad], 0) == {bad: "admitted"}
    batch = [[urls[0], 0, 0, False], [bad, 0, 0, False], [urls[1], 0, 0, False],
             [urls[2], 0, 0, False]]

    outcomes = crawl_urls.apply((scan_id, batch, token), task_id="batch-a").get()

    assert outcomes == ["ok", "internal_error", "ok", "ok"]
    pages = scans.get_crawler().pages
    assert all(pages.get(url) is not None for url in urls)  # the pages after the bad URL too
    assert list(Match.objects.values_list("url", flat=True)) == [urls[1]]
    state = _stats(scan_id)
    assert (state.pending, state.done) == (0, 4)
    assert state.stats["outcome:internal_error"] == 1
    assert ScanRun.objects.get(pk=scan_id).status == ScanStatus.FINISHED


def test_a_batch_delivered_again_stores_matches_and_counts_each_page_once(batch_scan):
    scan_id, token, urls, site = batch_scan
    batch = [[url, 0, 0, False] for url in urls]
    crawler = scans.get_crawler()
    # the first delivery's worker crawled the first two URLs, then died before acknowledging
    rules = SiteRules.from_dict(crawler.frontier(scan_id).context()["rules"])
    for i in range(2):
        _crawl_one(crawler, scan_id, UrlTask(*batch[i]), rules, token, url_done_id(urls[i]))
    assert _stats(scan_id).pending == 1 and ScanRun.objects.get(pk=scan_id).status == "running"

    outcomes = crawl_urls.apply((scan_id, batch, token), task_id="batch-b").get()

    assert outcomes == ["unchanged", "unchanged", "ok"]
    for url in urls:
        assert crawler.pages.versions.count_documents({"canonical_url": url}) == 1
        assert site.hits(url.removeprefix(site.base)) == (2 if url != urls[2] else 1)
    assert Match.objects.filter(url=urls[1]).count() == 1
    state = _stats(scan_id)
    assert (state.pending, state.done) == (0, 3)  # each URL counted finished once
    assert ScanRun.objects.get(pk=scan_id).status == ScanStatus.FINISHED


def test_links_admitted_before_a_worker_died_are_sent_when_their_page_is_crawled_again(
        indexed_chapter, site, celery_worker):
    indexed_chapter()
    site.route("/p/0.html", site.html(_page(NEWS)))
    site.route("/p/1.html", site.html(_page(CHAPTER[:2500])))
    site.route("/index.html", site.html(_page(NEWS.replace("交通", "教育")).replace(
        "</article>", '</article><a href="/p/0.html">零</a> <a href="/p/1.html">一</a>')))
    target = TargetSite.objects.create(name="目录", allowed_domains=["127.0.0.1"], delay_seconds=0,
                                       start_urls=[site.url("/index.html")])
    scan, (index,), token = scans.start(target, trigger="test")
    children = [site.url("/p/0.html"), site.url("/p/1.html")]
    # the index page's first task admitted its links, then its worker died before sending them
    assert scans.get_crawler().frontier(scan.pk).admit(children, 1, parent=index) == {
        url: "admitted" for url in children}

    assert crawl_urls.apply((scan.pk, [[index, 0, 0, False]], token), task_id="again").get() == [
        "ok"]

    deadline = time.monotonic() + 60  # the session's worker crawls the links sent again
    while ScanRun.objects.get(pk=scan.pk).status == ScanStatus.RUNNING:
        assert time.monotonic() < deadline, "the scan did not finish: its links were not sent"
        time.sleep(0.2)
    assert ScanRun.objects.get(pk=scan.pk).status == ScanStatus.FINISHED
    assert list(Match.objects.values_list("url", flat=True)) == [children[1]]
    assert (_stats(scan.pk).pending, _stats(scan.pk).done) == (0, 3)
