"""Search-engine discovery on a simulated web of 50 loopback sites (bench.simweb: copies of the
demo works verbatim, edited, split over pages and excerpted, the rest unrelated) with a
SearXNG-format search service answering from an FTS5 index of them: the run records matches
and cases with their provenance, proposes the copying sites as candidates and nothing else,
and reports its figures; providers that fail, refuse the key or are down leave a failed run
with the reason; a run that stops moving is failed by the sweeper; the ``discover`` command
runs it end to end through the session's Celery worker."""

from __future__ import annotations

import dataclasses
import datetime
import io
import json
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone, translation

from bench.search_discovery import demo_corpus
from bench.simweb import SimulatedWeb, plan_web
from lib.crawl.pipeline import Crawler
from tests.search_service import WORKER_SEARCH_PORT, free_port

LOOPBACK = ("127.0.0.0/25",)  # the simulated web's hosts (127.0.0.2 ...)



def _register(works: dict[str, str]):
    """The demo works registered and indexed for one holder: {id: Work}."""
    from core.engine import get_engine
    from core.models import RightsHolder, Work

    holder = RightsHolder.objects.create(name="示例出版社")
    out = {}
    for ref, text in works.items():
        work = Work.objects.create(holder=holder, reference=ref, title=ref, kind="novel",
                                   length=len(text), status="indexed", indexed_at=timezone.now())
        get_engine().add_work(work.engine_id, text)
        out[ref] = work
    return out


@pytest.fixture
def web():
    works, fillers = demo_corpus()
    sites = plan_web(works, fillers, sites=50, verbatim=4, edited=4, paginated=3, excerpt=3)
    with SimulatedWeb(sites) as running:
        yield works, running


@pytest.fixture
def crawler(config, platform_stores):
    """A crawler of this process that may reach the simulated web's loopback hosts."""
    from core.connections import get_mongo_db, get_redis

    return Crawler(dataclasses.replace(config, allow_addresses=LOOPBACK, read_timeout=2.0,
                                       max_body_bytes=512 * 1024), get_redis(), get_mongo_db())


def _run(crawler, work=None):
    """A search run done in this process. Its row is made as ``do_start_search_run`` makes it,
    without the task that action queues: the session's worker would do the same run beside
    this one."""
    from core.engine import get_engine
    from crawler import search_discovery
    from crawler.models import SearchRun

    run = SearchRun.objects.create(work=work, trigger="command")
    return search_discovery.run(run.pk, crawler, get_engine())


@pytest.mark.django_db(transaction=True)
def test_search_finds_the_planted_copies_with_their_provenance(web, crawler, settings, client):
    from crawler.models import CandidateSite, Case, Match, SearchHit, TargetSite

    works, running = web
    registered = _register(works)
    settings.SEARCH_PROVIDERS = f"searxng={running.search_url}"
    # a copying site that is a target site already: its scans read it, search does not
    scanned = next(s for s in running.sites if s.kind == "verbatim")
    TargetSite.objects.create(name="已登记站", start_urls=[scanned.base + "/"],
                              allowed_domains=[scanned.host])
    run = _run(crawler)
    assert run.status == "finished", run.note
    assert set(SearchHit.objects.filter(url__startswith=scanned.base).values_list(
        "outcome", flat=True)) == {"target_site"}
    assert not CandidateSite.objects.filter(domain=scanned.host).exists()
    copies = {b: p for b, p in running.copies().items() if b != scanned.base}
    matched_sites = {m.url.rsplit("/book/", 1)[0] for m in Match.objects.all()}
    found = matched_sites & set(copies)
    # every copy is found but the edited ones whose phrases were all edited; nothing else
    assert matched_sites <= set(copies)
    assert len(found) >= 0.8 * len(copies), (len(found), len(copies))
    assert run.queries == running.queries <= len(works) * settings.SEARCH_QUERIES_PER_SECTION
    assert run.pages_matched == Match.objects.values("page_id").distinct().count()
    assert run.new_cases == Case.objects.count() == len(
        {(m.work_id, m.domain) for m in Match.objects.all()})
    # the copying sites are proposed candidates, with the works they copy; no other site is
    proposed = set(CandidateSite.objects.filter(status="proposed").values_list("domain", flat=True))
    assert proposed == {m.domain for m in Match.objects.all()}
    # a paginated copy: its later parts are read through "下一页" and matched too
    paginated = [s for s in running.sites if s.kind == "paginated" and s.base in found]
    assert paginated and Match.objects.filter(url=paginated[0].base + "/book/1_3.html").exists()
    # provenance: the query, provider and rank of each match, shown in the evidence view
    hit = SearchHit.objects.filter(match__isnull=False).select_related("query").first()
    assert hit.query.provider == "searxng" and hit.rank >= 1 and hit.query.phrase in \
        works[hit.query.work.reference]
    from crawler.evidence.models import Capture

    assert Capture.objects.filter(match_id=hit.match_id).exists()  # evidence, as a scan's
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(staff)
    text = client.get(f"/crawler/match/{hit.match_id}/change/",
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Found by web search" in text and hit.query.phrase in text
    # the run's page lists its queries; the providers' state is above the list
    listing = client.get("/crawler/searchrun/").content.decode()
    assert "searxng" in listing and f"{running.queries} / 5000" in listing
    detail = client.get(f"/crawler/searchrun/{run.pk}/change/",
                        HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert hit.query.phrase in detail
    # its result pages say what became of each: the target site's left to its scans
    assert f'<a href="{scanned.base}/book/1.html"' in detail
    assert "on a target site: read by its scans" in detail
    # the daily run does not ask the same phrases again within SEARCH_REPEAT_DAYS
    again = _run(crawler)
    assert again.status == "finished" and again.queries == 0
    # one work asked on demand: its phrases are asked again, its copies seen again, no new case
    one = _run(crawler, registered["xiyouji-1"])
    assert one.queries >= 1 and one.new_cases == 0


@pytest.mark.django_db(transaction=True)
def test_a_provider_answering_429_then_200_is_retried(site, crawler, settings):
    from crawler.models import SearchQuery

    _register({"xyj": demo_corpus()[0]["xiyouji-1"]})
    answers = []

    def reply(handler):
        answers.append(handler.path)
        if len(answers) == 1:
            return site.Reply(429, {"Retry-After": "1"}, b"slow down")
        return site.Reply(200, {"Content-Type": "application/json"},
                          json.dumps({"results": []}).encode())

    site.route("/search", reply)
    settings.SEARCH_PROVIDERS = f"searxng={site.base}"
    settings.SEARCH_RETRY_BASE_SECONDS = 0.1
    run = _run(crawler)
    assert run.status == "finished" and run.queries >= 1
    first = SearchQuery.objects.order_by("pk").first()
    assert (first.status, first.attempts) == ("ok", 2)


@pytest.mark.django_db(transaction=True)
def test_a_provider_down_fails_the_run_with_the_reason(crawler, settings):
    from core import notes
    from crawler.models import SearchQuery

    _register({"xyj": demo_corpus()[0]["xiyouji-1"]})
    settings.SEARCH_PROVIDERS = f"searxng=http://127.0.0.1:{free_port()}"  # nobody listens
    settings.SEARCH_RETRIES, settings.SEARCH_RETRY_BASE_SECONDS = 1, 0.05
    run = _run(crawler)
    assert run.status == "failed" and run.queries == 0
    assert "every query failed" in notes.in_english(run.note)
    assert "unavailable" in notes.in_english(run.note)
    with translation.override("zh-hans"):
        assert "全部查询失败" in notes.in_words(run.note)
    assert SearchQuery.objects.filter(status="failed").count() >= 1
    assert all(q.attempts == 2 for q in SearchQuery.objects.all())  # one retry each


@pytest.mark.django_db(transaction=True)
def test_a_refused_key_disables_the_provider_with_the_reason(site, crawler, settings, client):
    from core import notes
    from crawler import search_discovery

    _register({"xyj": demo_corpus()[0]["xiyouji-1"]})
    site.route("/res/v1/web/search", site.Reply(401, {"Content-Type": "application/json"},
                                                b'{"error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}'))
    settings.SEARCH_PROVIDERS = (f"brave={site.base}/res/v1/web/search,"
                                 "google_cse=https://www.googleapis.com/customsearch/v1")
    settings.SEARCH_KEYS = {**settings.SEARCH_KEYS, "TRACKER_SEARCH_BRAVE_KEY": "wrong"}
    run = _run(crawler)
    assert run.status == "failed"
    assert site.hits("/res/v1/web/search?q=" + "x") == 0 and len(site.requests) == 1  # not retried
    states = {s.provider.name: notes.in_english(s.disabled)
              for s in search_discovery.provider_states()}
    assert "refused the key" in states["brave"]
    assert states["google_cse"] == "disabled: no key: set TRACKER_SEARCH_GOOGLE_CSE_KEY"
    assert "no usable search provider" in notes.in_english(_run(crawler).note)
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(staff)
    listing = client.get("/crawler/searchrun/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "refused the key" in listing and "TRACKER_SEARCH_GOOGLE_CSE_KEY" in listing


@pytest.mark.django_db(transaction=True)
def test_result_urls_refused_by_the_crawl_library_are_recorded(site, crawler, settings):
    from crawler.models import SearchHit

    _register({"xyj": demo_corpus()[0]["xiyouji-1"]})
    results = [{"url": "http://10.1.2.3/copy.html", "title": "", "content": ""},
               {"url": "ftp://127.0.0.2/copy.txt", "title": "", "content": ""},
               {"url": site.url("/huge.html"), "title": "", "content": ""}]
    site.route("/search", site.Reply(200, {"Content-Type": "application/json"},
                                     json.dumps({"results": results}).encode()))
    site.route("/huge.html", site.html("<p>" + "大" * 400_000 + "</p>"))
    settings.SEARCH_PROVIDERS = f"searxng={site.base}"
    settings.SEARCH_QUERIES_PER_SECTION = settings.SEARCH_MAX_QUERIES_PER_WORK = 1
    run = _run(crawler)
    assert run.status == "finished" and run.pages_fetched == 0
    outcomes = dict(SearchHit.objects.values_list("url", "outcome"))
    assert outcomes["http://10.1.2.3/copy.html"] == "ssrf_refused"
    assert outcomes["ftp://127.0.0.2/copy.txt"] == "invalid_url"
    assert outcomes[site.url("/huge.html")] == "too_large"


@pytest.mark.django_db(transaction=True)
def test_a_run_that_stops_moving_is_failed_by_the_sweeper(settings):
    from core import notes
    from crawler import search_discovery
    from crawler.models import SearchRun

    stuck = SearchRun.objects.create(trigger="schedule")
    SearchRun.objects.filter(pk=stuck.pk).update(
        updated_at=timezone.now() - datetime.timedelta(seconds=settings.SEARCH_RUN_STUCK_SECONDS + 5))
    moving = SearchRun.objects.create(trigger="schedule")
    assert search_discovery.sweep_runs() == [stuck.pk]
    stuck.refresh_from_db()
    assert stuck.status == "failed" and "no progress" in notes.in_english(stuck.note)
    assert SearchRun.objects.get(pk=moving.pk).status == "running"


@pytest.mark.django_db(transaction=True)
def test_discover_command_runs_end_to_end_through_the_worker(settled_worker, platform_stores,
                                                            settings, client):
    from crawler.models import Match, SearchHit, SearchRun

    works, fillers = demo_corpus()
    # the worker may reach 127.0.0.1 only: every site there, on a port of its own
    sites = plan_web(works, fillers, sites=50, verbatim=4, edited=4, paginated=3, excerpt=3,
                     host="127.0.0.1")
    with SimulatedWeb(sites, search_port=WORKER_SEARCH_PORT) as running:
        settings.SEARCH_PROVIDERS = f"searxng={running.search_url}"
        registered = _register(works)
        out = io.StringIO()
        call_command("discover", "--search", "--wait", "--timeout", "300", stdout=out,
                     stderr=io.StringIO())
        asked = running.queries
        # staff start a run for one work from the work's page
        staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
        client.force_login(staff)
        work = registered["xiyouji-2"]
        assert "Search the web" in client.get(f"/core/work/{work.pk}/change/",
                                              HTTP_ACCEPT_LANGUAGE="en").content.decode()
        answer = client.post(f"/crawler/searchrun/start/{work.pk}/")
        one = SearchRun.objects.get(work=work)
        assert answer.status_code == 302 and answer["Location"].endswith(f"/{one.pk}/change/")
        deadline = time.monotonic() + 120
        while one.status == "running" and time.monotonic() < deadline:
            time.sleep(0.5)
            one.refresh_from_db()
        assert (one.status, one.trigger, one.new_cases) == ("finished", "admin", 0)
        assert one.queries >= 1 and one.pages_matched >= 1
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["status"] == "finished", summary
    assert summary["run"] == SearchRun.objects.get(trigger="command").pk
    assert set(summary) >= {"queries", "results", "pages_fetched", "pages_matched", "new_cases"}
    assert summary["queries"] == asked and summary["pages_matched"] >= 10
    assert summary["new_cases"] == len(works)  # one domain: one case per work copied
    assert SearchHit.objects.filter(match__isnull=False).count() >= summary["pages_matched"]
    listed = io.StringIO()
    call_command("matches", "--format", "jsonl", stdout=listed)
    urls = {json.loads(line)["url"] for line in listed.getvalue().splitlines()}
    assert urls and urls == set(Match.objects.values_list("url", flat=True))
    assert urls <= {u for pages in running.copies().values() for u in pages}
