"""Stored pages searched for new works through a real Celery worker: a copy
crawled before its work was registered is found once the work is indexed, without crawling
again, in one pass for works registered together, with the job's progress recorded; the pass
records exactly what a fresh crawl would, from the query keys kept when the pages were matched
or, for versions without current keys, from their text."""

import io
import time

import pytest
from bson import Binary, ObjectId
from django.core.management import call_command

from core import work_actions
from core.engine import get_engine
from core.models import RightsHolder, Work
from crawler import scans
from crawler.models import Match, RematchJob
from lib.crawl import pagekeys
from lib.text import Extracted
from tests.chapter import CHAPTER
from tests.scanning import scan

pytestmark = pytest.mark.django_db(transaction=True)
COPY = "<html><head><title>西游记 第一回</title></head><body><article>{}</article></body></html>".format(
    "".join(f"<p>{p}</p>" for p in CHAPTER[:3000].split("\n") if p.strip()))
NEWS = "<html><body><article><p>{}</p></article></body></html>".format(
    "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8)
OTHER_WORK = "山川湖海之间，一位少年背着行囊走过了无数村庄，记下了每一个地方的风俗与故事。" * 40
PART = "<html><body><article><p>{}</p><p>{}</p></article></body></html>".format(
    "编者按：以下文字转载自网络，版权归原作者所有。", CHAPTER[3000:3700].replace("\n", ""))


def _wait(fn, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while not (value := fn()):
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.3)
    return value


def _crawl_library(site) -> int:
    """Serve the copy, a page quoting a later passage of the chapter and a news page, scan them before any work
    is registered; returns the number of requests the site answered."""
    site.route("/", site.html('<a href="/copy.html">a</a><a href="/news.html">b</a>'
                              '<a href="/part.html">c</a>'))
    site.route("/copy.html", site.html(COPY))
    site.route("/news.html", site.html(NEWS))
    site.route("/part.html", site.html(PART))
    out = io.StringIO()
    call_command("add_site", "早期站", site.url("/"), "--delay", "0", stdout=out)
    assert scan(out.getvalue().strip())["matches_found"] == 0  # no work registered yet
    return len(site.requests)


def _register_and_wait() -> RematchJob:
    """Register XYJ-1 and OTHER together and wait for the stored-page search to finish."""
    holder = RightsHolder.objects.create(name="后来出版社")
    for reference, text in (("XYJ-1", CHAPTER), ("OTHER", OTHER_WORK)):  # registered together
        work_actions.do_register_work(holder, reference, Extracted(text=text, format="txt",
                                                                   method="plain"))
    return _wait(lambda: RematchJob.objects.filter(state="finished").first())


def _fresh_crawl_verdict() -> dict[tuple[str, str], float]:
    """{(url, engine work id): score} that matching every stored page now, as a crawl does,
    would record (the platform engine's own verdict; no whitelist in these tests)."""
    store, out = scans.get_crawler().pages, {}
    for chunk in store.iter_current_keys():
        for item in chunk:
            page, version = store.page(item.page_id), store.version(item.version_id)
            for m in get_engine().match(version.text):
                out[(page.canonical_url, m.work_id)] = m.score
    return out


def _recorded() -> dict[tuple[str, str], float]:
    return {(m.url, m.work.engine_id): m.score for m in Match.objects.select_related("work")}


def test_a_copy_crawled_earlier_is_found_when_its_work_is_registered(idle_worker, site,
                                                                     platform_stores):
    requests = _crawl_library(site)
    db, _ = platform_stores
    tag = pagekeys.tag(get_engine().config)
    # matching a crawled page kept its query keys with the version
    assert db["page_versions"].count_documents({"query_keys_tag": tag}) == 3

    job = _register_and_wait()
    work = Work.objects.get(reference="XYJ-1")
    assert RematchJob.objects.count() == 1  # one pass for both works
    assert set(job.works.values_list("reference", flat=True)) == {"XYJ-1", "OTHER"}
    assert job.pages_total == job.pages_searched == 3  # the link page has no text
    assert (job.candidates, job.matches_found, job.matches_new) == (2, 2, 2)
    assert all(m.still_matching for m in Match.objects.all())
    assert len(site.requests) == requests  # nothing re-crawled
    # exactly what a fresh crawl of the pages would record, scores included
    fresh = _fresh_crawl_verdict()
    assert set(fresh) == {(site.url("/copy.html"), work.engine_id),
                          (site.url("/part.html"), work.engine_id)}
    assert _recorded() == pytest.approx(fresh)


def test_versions_without_current_keys_are_fingerprinted_again(idle_worker, site,
                                                              platform_stores):
    """Pages stored before keys were kept, or with keys of another fingerprint version, are
    searched from their text: nothing is missed, and their keys are stored for the next pass."""
    _crawl_library(site)
    db, _ = platform_stores
    versions = db["page_versions"]
    copy = scans.get_crawler().pages.get(site.url("/copy.html"))
    part = scans.get_crawler().pages.get(site.url("/part.html"))
    versions.update_one({"_id": ObjectId(copy.version_id)},
                        {"$unset": {"query_keys": "", "query_keys_tag": ""}})
    versions.update_one({"_id": ObjectId(part.version_id)},  # keys of an older fingerprint
                        {"$set": {"query_keys": Binary(b"\0" * 8), "query_keys_tag": "lt0-fp1"}})

    job = _register_and_wait()
    assert (job.pages_searched, job.candidates, job.matches_found) == (3, 2, 2)
    assert _recorded() == pytest.approx(_fresh_crawl_verdict())
    tag = pagekeys.tag(get_engine().config)
    for page in (copy, part):
        doc = versions.find_one({"_id": ObjectId(page.version_id)})
        assert doc["query_keys_tag"] == tag
        assert bytes(doc["query_keys"]) == pagekeys.compute(
            get_engine(), doc["text"]).data


def test_a_search_for_new_works_leaves_the_other_works_rows_alone(platform_stores):
    """``match_version(only_works=...)``: a new work's row that no longer matches is marked so;
    another work's row on the same page is not the search's business and stays as it was."""
    from core.connections import get_mongo_db
    from crawler.matching import match_version
    from lib.crawl.pagestore import PageStore

    holder = RightsHolder.objects.create(name="旁观出版社")
    old = Work.objects.create(holder=holder, reference="OLD", title="old", length=1,
                              status="indexed")
    new = Work.objects.create(holder=holder, reference="NEW", title="new",
                              length=len(OTHER_WORK), status="indexed")
    get_engine().add_work(new.engine_id, OTHER_WORK)
    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    url = "https://news.example.com/a.html"
    text = NEWS.split("<p>")[1].split("</p>")[0]
    saved = store.save(canonical_url=url, url=url, final_url=url, domain="news.example.com",
                       site_id=None, scan_id=None, status=200, outcome="fetched", reason="",
                       headers={}, validators={}, body=text.encode(), text=text, title="",
                       published=None, encoding="utf-8", extraction={}, links=[])
    for work in (old, new):
        Match.objects.create(work=work, page_id=saved.page_id, version_id=saved.version_id,
                             url=url, domain="news.example.com", score=0.5,
                             containment_page=0.5, containment_work=0.1)

    report = match_version(get_engine(), store.page(saved.page_id),
                           store.version(saved.version_id), None, only_works={new.engine_id})
    assert (report.found, report.dropped) == (0, 1)
    assert not Match.objects.get(work=new).still_matching
    assert Match.objects.get(work=old).still_matching


def test_matches_found_by_the_search_keep_their_site_and_the_site_check_takes_them(
        idle_worker, site, platform_stores, django_user_model):
    """A page matched by the stored-page search (no scan) is recorded for the site that stored
    it, and the site-wide takedown check of that site takes every confirmed match on its
    domains, one whose site was left empty included."""
    from core.models import AuditEvent
    from crawler import site_actions
    from crawler.models import TargetSite

    _crawl_library(site)
    _register_and_wait()
    target = TargetSite.objects.get(name="早期站")
    assert Match.objects.count() == 2
    assert list(Match.objects.values_list("site_id", flat=True)) == [target.pk, target.pk]

    staff = django_user_model.objects.create_superuser("boss", "boss@tracker.test", "x")
    Match.objects.update(review_status="confirmed")
    left_empty = Match.objects.order_by("pk").first()
    Match.objects.filter(pk=left_empty.pk).update(site=None)  # as rows recorded before the fix
    assert site_actions.do_check_site(target, staff) == 2
    event = AuditEvent.objects.filter(new_state="check requested").latest("sequence")
    assert "2" in event.reason


def test_a_rewritten_copy_stored_earlier_is_found_rewritten_when_its_work_is_registered(
        platform_stores):
    """A page that rewrites a work (洗稿: synonyms swapped, sentences moved and split, so that
    it shares too few window keys with the work to be chosen by them) was stored before the
    work was registered: the stored-page search runs the rewrite stage too, and records the
    match as rewritten; another chapter of the same novel, stored too, is no candidate."""
    import json
    import random
    from pathlib import Path

    from core.connections import get_mongo_db
    from crawler import rematch
    from lib.crawl.pagestore import PageStore
    from tests.fingerprint.test_rewrite import rewrite

    fixtures = Path(__file__).resolve().parents[1] / "fingerprint" / "fixtures" / "engine"
    chapters = json.loads((fixtures / "hongloumeng_chapters.json").read_text(encoding="utf-8"))
    chapter, unrelated = chapters[1], chapters[2]["text"]  # another chapter of the same novel
    page_text = rewrite(chapter["text"], random.Random(2), 0.8, 0.5, True)
    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    saved = None
    for url, text in (("https://xigao.example.com/hlm/9.html", page_text),
                      ("https://xigao.example.com/hlm/11.html", unrelated)):
        stored = store.save(canonical_url=url, url=url, final_url=url, domain="xigao.example.com",
                            site_id=None, scan_id=None, status=200, outcome="fetched", reason="",
                            headers={}, validators={}, body=text.encode(), text=text, title="",
                            published=None, encoding="utf-8", extraction={}, links=[])
        saved = saved or stored
    holder = RightsHolder.objects.create(name="后来出版社")
    work = Work.objects.create(holder=holder, reference="HLM-9", title="红楼梦 第九回",
                               length=len(chapter["text"]), status="indexed")
    engine = get_engine()
    engine.add_work(work.engine_id, chapter["text"])
    assert [m.kind for m in engine.match(page_text)] == ["rewritten"]  # what a crawl finds

    job = rematch.run([work.pk], engine, store)

    assert (job.state, job.pages_searched, job.candidates, job.matches_found) == \
        (RematchJob.State.FINISHED, 2, 1, 1)
    row = Match.objects.get(work=work)
    assert (row.page_id, row.kind) == (saved.page_id, "rewritten")
