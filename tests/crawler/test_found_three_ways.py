"""One copy found three ways (a web search, a scan of its site, a web archive) is one match
whose provenance lists every way, in ``manage.py matches`` and in the evidence view: a site of
bench.simweb's simulated web on loopback with its SearXNG-format search service, and the
session's Celery worker running the search, the scan and the scan of a WARC file written with
warcio, as `discover`, `scan` and `scan_archive` run them."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from bench.search_discovery import demo_corpus
from bench.simweb import SimulatedWeb, plan_web, render
from tests import archive_files
from tests.chapter import CHAPTER
from tests.scanning import scan
from tests.search_service import WORKER_SEARCH_PORT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("target_first", [False, True],
                         ids=["searched-before-its-site-is-a-target", "searched-on-a-target-site"])
def test_a_copy_found_by_search_scan_and_archive_is_one_match_listing_each_way(
        idle_worker, indexed_chapter, tmp_path, admin_client, target_first):
    from crawler.models import Case, Match, TargetSite

    work = indexed_chapter()
    _, fillers = demo_corpus()
    # one site copying the chapter, on 127.0.0.1 (which the session's worker may reach)
    sites = plan_web({work.reference: CHAPTER}, fillers, sites=1, verbatim=1, edited=0,
                     paginated=0, host="127.0.0.1")
    with SimulatedWeb(sites, search_port=WORKER_SEARCH_PORT) as web:
        site = web.sites[0]
        (url,) = web.copies()[site.base]

        def make_target():  # staff make the site a target site
            return TargetSite.objects.create(name="转载站", start_urls=[url],
                                             allowed_domains=["127.0.0.1"], max_depth=0,
                                             delay_seconds=0)

        target = make_target() if target_first else None
        # 1. a web search (run by the session's worker, like `discover --search --work ID`);
        # on a target site it leaves the page to the site's scan, which has not run yet
        out = io.StringIO()
        call_command("discover", "--search", "--work", str(work.pk), "--wait", "--timeout",
                     "300", stdout=out, stderr=io.StringIO())
        searched = json.loads(out.getvalue().splitlines()[-1])
        assert searched["status"] == "finished", searched
        assert searched["pages_matched"] == (0 if target_first else 1)
        # 2. the site's scan reads the page (again)
        scanned = scan((target or make_target()).pk)
        assert scanned["status"] == "finished", scanned
        # 3. a web archive holding the same page
        copy = next(p for p in site.pages if p.path == site.copy_paths[0])
        warc = tmp_path / "crawl.warc.gz"
        archive_files.write(warc, [archive_files.Page(
            url, render(site, copy).decode(), html=True)])
        out = io.StringIO()
        call_command("scan_archive", str(warc), "--wait", "--timeout", "120", stdout=out)
        assert json.loads(out.getvalue().splitlines()[-1])["status"] == "finished"

    (match,) = Match.objects.all()  # one match, one case
    assert (match.url, match.work_id) == (url, work.pk) and Case.objects.count() == 1
    listing = io.StringIO()
    call_command("matches", "--format", "jsonl", stdout=listing)
    (row,) = [json.loads(line) for line in listing.getvalue().splitlines()]
    ways = {w["way"]: w for w in row["found_by"]}
    assert set(ways) == {"scan", "search", "archive"}
    assert ways["scan"]["scan"] == scanned["scan"] and ways["scan"]["site"] == "转载站"
    assert ways["search"]["provider"] == "searxng" and ways["search"]["rank"] == 1
    assert ways["search"]["query"] in CHAPTER and ways["search"]["run"] == searched["run"]
    assert ways["archive"]["file"] == str(warc) and ways["archive"]["target_uri"] == url

    page = reverse("admin:crawler_match_change", args=[match.pk])
    en = admin_client.get(page, headers={"accept-language": "en"}).content.decode()
    assert '<dd id="dash-found-by">scan, web search, web archive</dd>' in en
    assert f"scan #{scanned['scan']} of 转载站" in en and ways["search"]["query"] in en
    assert "dash-archive-finds" in en
    zh = admin_client.get(page, headers={"accept-language": "zh-hans"}).content.decode()
    assert '<dd id="dash-found-by">扫描, 全网搜索, 网页存档</dd>' in zh
