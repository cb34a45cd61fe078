"""Stored pages searched for new works (issue 12, item 3) through a real Celery worker: a copy
crawled before its work was registered is found once the work is indexed, without crawling
again, in one pass for works registered together, with the job's progress recorded."""

import io
import json
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from crawler import scans
from crawler.models import Match, RematchJob
from tracker.core import actions as core_actions
from tracker.core.engine import get_engine
from tracker.core.models import RightsHolder, Work
from tracker.text import Extracted

pytestmark = pytest.mark.django_db(transaction=True)
CHAPTER = (Path(__file__).parent / "fixtures" / "xiyouji-ch1.txt").read_text(encoding="utf-8")
COPY = "<html><head><title>西游记 第一回</title></head><body><article>{}</article></body></html>".format(
    "".join(f"<p>{p}</p>" for p in CHAPTER[:3000].split("\n") if p.strip()))
NEWS = "<html><body><article><p>{}</p></article></body></html>".format(
    "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8)
OTHER_WORK = "山川湖海之间，一位少年背着行囊走过了无数村庄，记下了每一个地方的风俗与故事。" * 40


def _wait(fn, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while not (value := fn()):
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.3)
    return value


def test_a_copy_crawled_earlier_is_found_when_its_work_is_registered(idle_worker, site,
                                                                     platform_stores):
    site.route("/", site.html('<a href="/copy.html">a</a><a href="/news.html">b</a>'))
    site.route("/copy.html", site.html(COPY))
    site.route("/news.html", site.html(NEWS))
    out = io.StringIO()
    call_command("add_site", "早期站", site.url("/"), "--delay", "0", stdout=out)
    out_scan = io.StringIO()
    call_command("scan", out.getvalue().strip(), "--wait", "--timeout", "120", stdout=out_scan,
                 stderr=io.StringIO())
    assert json.loads(out_scan.getvalue())["matches_found"] == 0  # no work registered yet
    requests = len(site.requests)

    holder = RightsHolder.objects.create(name="后来出版社")
    for reference, text in (("XYJ-1", CHAPTER), ("OTHER", OTHER_WORK)):  # registered together
        core_actions.do_register_work(holder, reference, Extracted(text=text, format="txt",
                                                                   method="plain"))
    work = Work.objects.get(reference="XYJ-1")

    match = _wait(lambda: Match.objects.filter(work=work).first())
    job = _wait(lambda: RematchJob.objects.filter(state="finished").first())
    assert RematchJob.objects.count() == 1  # one pass for both works
    assert set(job.works.values_list("reference", flat=True)) == {"XYJ-1", "OTHER"}
    assert job.pages_total == job.pages_searched == 2  # the copy, the news page (the link page has no text)
    assert (job.candidates, job.matches_found, job.matches_new) == (1, 1, 1)
    assert match.url == site.url("/copy.html") and match.still_matching
    assert Match.objects.count() == 1 and len(site.requests) == requests  # nothing re-crawled
    # what a fresh crawl of the page would record: the platform engine's own verdict
    page = scans.get_crawler().pages.get(site.url("/copy.html"))
    fresh = {m.work_id: m for m in get_engine().match(scans.get_crawler().pages.version(
        page.version_id).text)}
    assert set(fresh) == {work.engine_id}
    assert match.score == pytest.approx(fresh[work.engine_id].score)
