"""Recording a page's matches names its scan and site without reading the scan row (a
per-process cache of each scan's site); a scan deleted meanwhile still loses no match."""

from pathlib import Path

import pytest

from core.connections import get_mongo_db
from core.engine import get_engine
from core.models import AuditEvent, RightsHolder, Work
from crawler import scans
from crawler.evidence.models import Capture
from crawler.models import Match, ScanRun, TargetSite
from crawler.tasks import _match, scan_for_recording
from lib.crawl.pagestore import PageStore

pytestmark = pytest.mark.django_db(transaction=True)
WORK = (Path(__file__).parent / "fixtures" / "xiyouji-ch1.txt").read_text(encoding="utf-8")
COPY = WORK[:3000]


def _stored_copy(site_id: int, scan_id: int) -> tuple[str, str]:
    holder = RightsHolder.objects.create(name="记录出版社")
    work = Work.objects.create(holder=holder, reference="W", title="行囊", length=len(WORK),
                               status="indexed")
    get_engine().add_work(work.engine_id, WORK)
    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    url = "https://copy.example.com/a.html"
    saved = store.save(canonical_url=url, url=url, final_url=url, domain="copy.example.com",
                       site_id=site_id, scan_id=scan_id, status=200, outcome="fetched",
                       reason="", headers={}, validators={}, body=COPY.encode(), text=COPY,
                       title="", published=None, encoding="utf-8", extraction={}, links=[])
    return saved.page_id, saved.version_id


@pytest.mark.parametrize("deleted", [False, True])
def test_a_match_names_its_scan_and_site_and_survives_the_scan_deleted(platform_stores, deleted):
    site = TargetSite.objects.create(name="站", start_urls=["https://copy.example.com/"])
    scan = ScanRun.objects.create(site=site, status="running")
    page_id, version_id = _stored_copy(site.pk, scan.pk)
    assert scan_for_recording(scan.pk).site_id == site.pk  # the site is cached now
    if deleted:
        ScanRun.objects.filter(pk=scan.pk).delete()

    crawler = scans.get_crawler()
    report = _match(crawler, crawler.frontier(scan.pk), scan.pk, page_id, version_id)

    match = Match.objects.get(page_id=page_id)
    assert (report.found, report.new) == (1, 1)
    expected = None if deleted else scan.pk
    # the scan gone, the page's site (still registered) is the match's site all the same
    assert (match.site_id, match.first_scan_id, match.last_scan_id, match.case.first_scan_id) == (
        site.pk, expected, expected, expected)
    capture = Capture.objects.get(match=match, version_id=version_id)
    assert AuditEvent.objects.about(capture).get().new_state == "pending"
