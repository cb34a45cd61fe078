"""Web-archive scans end to end through the real Celery worker (tests/conftest.py's
idle_worker): ``manage.py scan_archive FILE --wait`` records matches, cases and their
provenance (in ``manage.py matches`` and the evidence view), a file scanned twice records
nothing twice, a truncated file keeps the records before the fault, a gzip bomb record is cut,
Common Crawl's CDX + Range path and WET path lists against loopback servers, an archive URL
refused by the SSRF guard, and a worker killed mid-file resumes at the committed offset."""

import io
import json
import os
import signal
import time

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crawler.models import ArchiveFind, ArchiveScan, Case, Match
from tests import archive_files
from tests.archive_files import Page, Servers, html_page
from tests.chapter import CHAPTER
from tracker.celery import app

pytestmark = pytest.mark.django_db(transaction=True)

# The session's worker commits a scan's progress every 5 records (it reads its environment
# when it starts, after the test modules are collected), so that a kill mid-file has a
# committed offset to resume from.
os.environ["TRACKER_ARCHIVE_PROGRESS_RECORDS"] = "5"

NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。"
COPY_A = Page("http://copy-a.test/book/1", "好书网 转载\n" + CHAPTER[:2500] + "\n广告：手机游戏")
COPY_B = Page("http://copy-b.test/xyj/ch1.html", html_page("西游记 第一回", CHAPTER[500:3500]),
              html=True)


def other(i: int) -> Page:
    return Page(f"http://news{i}.test/{i}.html", f"第{i}条新闻。" + NEWS * 3)


@pytest.fixture
def work(indexed_chapter):
    return indexed_chapter()


@pytest.fixture
def servers():
    state = Servers()
    httpd = archive_files.serve(state)
    yield state
    httpd.shutdown()


def scan_archive(*args: str) -> dict:
    """Run ``manage.py scan_archive ARGS --wait``; returns the JSON of its last line."""
    out = io.StringIO()
    call_command("scan_archive", *args, "--wait", "--timeout", "120", stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_an_archive_file_scanned_whole_then_again(idle_worker, work, tmp_path, admin_client):
    path = tmp_path / "crawl.warc.gz"
    offsets = archive_files.write(path, [other(1), COPY_A, other(2), COPY_B, other(3)])
    summary = scan_archive(str(path))
    assert summary == {"records": 6, "pages_matched": 2, "matches": 2, "files": 1,
                       "status": "finished", "failed": []}
    matches = {m.url: m for m in Match.objects.all()}
    assert set(matches) == {COPY_A.uri, COPY_B.uri}
    assert {(c.work_id, c.domain) for c in Case.objects.all()} == {
        (work.pk, "copy-a.test"), (work.pk, "copy-b.test")}
    finds = {f.target_uri: f for f in ArchiveFind.objects.all()}
    assert (finds[COPY_A.uri].offset, finds[COPY_B.uri].offset) == (offsets[1], offsets[3])
    assert finds[COPY_A.uri].source == str(path) and finds[COPY_A.uri].warc_date.startswith("20")
    scan = ArchiveScan.objects.get()
    assert (scan.bytes_done, scan.bytes_total) == (path.stat().st_size, path.stat().st_size)

    listing = io.StringIO()
    call_command("matches", "--format", "jsonl", stdout=listing)
    rows = [json.loads(line) for line in listing.getvalue().splitlines()]
    assert {r["url"] for r in rows} == {COPY_A.uri, COPY_B.uri}
    cases = io.StringIO()
    call_command("cases", "--format", "csv", stdout=cases)
    assert "copy-a.test" in cases.getvalue() and "copy-b.test" in cases.getvalue()
    # the evidence view names the archive record
    page = admin_client.get(reverse("admin:crawler_match_change", args=[matches[COPY_A.uri].pk]))
    assert page.status_code == 200
    assert "dash-archive-finds" in page.content.decode() and str(offsets[1]) in page.content.decode()

    # the archive scans' page shows the progress, in English and in Chinese
    size = f"{path.stat().st_size:,}"
    zh = admin_client.get(reverse("admin:crawler_archivescan_changelist")).content.decode()
    assert "网页存档扫描" in zh and f"{size} / {size}（100%）" in zh
    en = admin_client.get(reverse("admin:crawler_archivescan_changelist"),
                          headers={"accept-language": "en"}).content.decode()
    assert "archive scan" in en and f"{size} of {size} (100%)" in en

    first_seen = {m.pk: m.first_seen for m in Match.objects.all()}
    again = scan_archive(str(path))
    assert again["status"] == "finished" and again["matches"] == 2
    assert {m.pk: m.first_seen for m in Match.objects.all()} == first_seen  # nothing twice
    assert ArchiveFind.objects.count() == 2 and Case.objects.count() == 2


def test_a_truncated_file_fails_at_the_broken_record_and_a_gzip_bomb_is_cut(idle_worker, work,
                                                                           tmp_path):
    whole = tmp_path / "whole.warc.gz"
    offsets = archive_files.write(whole, [COPY_A, other(1), COPY_B])
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole.read_bytes()[:offsets[2] + 100])
    summary = scan_archive(str(cut))
    assert summary["status"] == "failed" and summary["pages_matched"] == 1
    assert summary["failed"][0]["offset"] == offsets[2]
    assert "truncated" in summary["failed"][0]["reason"]
    assert [m.url for m in Match.objects.all()] == [COPY_A.uri]
    scan = ArchiveScan.objects.get()
    assert (scan.error_offset, scan.records) == (offsets[2], 3)

    with pytest.raises(CommandError, match="no such file"):
        call_command("scan_archive", str(tmp_path / "none.warc.gz"), stdout=io.StringIO())
    assert ArchiveScan.objects.count() == 1

    bomb = b"<html><body><p>" + b"a" * 200_000_000 + b"</p></body></html>"
    path = tmp_path / "bomb.warc.gz"
    archive_files.write(path, [Page("http://bomb.test/", raw=bomb, html=True), COPY_B])
    del bomb
    summary = scan_archive(str(path))
    assert summary["status"] == "finished" and summary["records"] == 3
    assert ArchiveScan.objects.get(source=str(path)).records_cut == 1
    assert Match.objects.filter(url=COPY_B.uri).exists()


def test_common_crawl_captures_fetched_by_range_and_wet_paths(idle_worker, work, servers,
                                                             settings, tmp_path):
    warc = tmp_path / "seg.warc.gz"
    offsets = archive_files.write(warc, [other(1), COPY_B, other(2), COPY_A, other(3)])
    data = warc.read_bytes()
    name = "crawl-data/CC-MAIN-TEST/segments/1/warc/seg.warc.gz"
    servers.files[name] = data

    def capture(i, page):
        end = offsets[i + 1] if i + 1 < len(offsets) else len(data)
        return {"url": page.uri, "timestamp": "20240301000000", "filename": name,
                "offset": str(offsets[i]), "length": str(end - offsets[i]), "status": "200"}

    servers.captures = [capture(0, other(1)), capture(1, COPY_B), capture(3, COPY_A)]
    settings.ARCHIVE_CDX_URL = servers.base + "/{crawl}-index"
    settings.ARCHIVE_DATA_URL = servers.base + "/data/"
    summary = scan_archive("--crawl", "CC-MAIN-TEST", "--domain", "copy-b.test",
                           "--domain", "http://copy-a.test/book/")
    assert summary == {"records": 2, "pages_matched": 2, "matches": 2, "files": 2,
                       "status": "finished", "failed": []}
    assert sorted(r for p, r in servers.requests if p.endswith(name) and r != "bytes=0-0") == sorted(
        [f"bytes={offsets[1]}-{offsets[2] - 1}", f"bytes={offsets[3]}-{offsets[4] - 1}"])
    assert {q["matchType"][0] for q in servers.cdx_queries} == {"domain", "prefix"}
    found = ArchiveFind.objects.get(target_uri=COPY_B.uri)
    assert (found.source, found.offset) == (servers.base + "/data/" + name, offsets[1])
    # nothing under the pattern: an empty scan, not an error
    assert scan_archive("--crawl", "CC-MAIN-TEST", "--domain", "nothing.test")["files"] == 0

    wet = tmp_path / "seg.wet.gz"
    archive_files.write(wet, [other(4), Page("http://copy-c.test/1", CHAPTER[:3000])])
    servers.files["crawl-data/CC-MAIN-TEST/segments/1/wet/seg.wet.gz"] = wet.read_bytes()
    paths = tmp_path / "wet.paths"
    paths.write_text("crawl-data/CC-MAIN-TEST/segments/1/wet/seg.wet.gz\n")
    summary = scan_archive("--wet-paths", str(paths))
    assert (summary["status"], summary["records"], summary["matches"]) == ("finished", 3, 1)

    # an archive URL on an address the SSRF guard refuses (only 127.0.0.1 is allowed here)
    refused = scan_archive(servers.base.replace("127.0.0.1", "127.0.0.2") + "/data/" + name)
    assert refused["status"] == "failed" and "loopback" in refused["failed"][0]["reason"]


def test_a_worker_killed_mid_file_resumes_where_its_progress_was_committed(idle_worker, work,
                                                                          servers, tmp_path):
    pages = [other(i) for i in range(60)]
    pages[3], pages[55] = COPY_A, COPY_B
    path = tmp_path / "slow.warc.gz"
    archive_files.write(path, pages)
    servers.files["slow.warc.gz"] = path.read_bytes()
    servers.chunk, servers.chunk_delay = 512, 0.15  # about 6 s for the whole file
    out = io.StringIO()
    call_command("scan_archive", servers.url("slow.warc.gz"), stdout=out)
    scan_id = ArchiveScan.objects.get().pk
    deadline = time.monotonic() + 60
    while ArchiveScan.objects.get(pk=scan_id).records < 10:
        assert time.monotonic() < deadline, "no progress committed"
        time.sleep(0.1)
    committed = ArchiveScan.objects.get(pk=scan_id).offset
    active = app.control.inspect(destination=[idle_worker], timeout=5).active()
    pids = [t["worker_pid"] for tasks in active.values() for t in tasks
            if t["name"] == "crawler.scan_archive_file"]
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    while ArchiveScan.objects.get(pk=scan_id).status in ("queued", "running"):
        assert time.monotonic() < deadline + 60, "the scan did not resume"
        time.sleep(0.2)
    scan = ArchiveScan.objects.get(pk=scan_id)
    assert (scan.status, scan.records, scan.attempts) == ("finished", 61, 2)
    ranges = [r for p, r in servers.requests if p.endswith("slow.warc.gz") and r != "bytes=0-0"]
    assert ranges[0] == "bytes=0-" and len(ranges) == 2
    resumed_at = int(ranges[1].removeprefix("bytes=").rstrip("-"))
    assert resumed_at >= committed > 0
    assert sorted(m.url for m in Match.objects.all()) == [COPY_A.uri, COPY_B.uri]
    assert ArchiveFind.objects.count() == 2


def test_records_matched_in_batches_are_each_recorded_and_progress_commits_between_them(
        work, tmp_path, settings):
    from core.engine import get_engine
    from crawler import archives, scans

    settings.ARCHIVE_BATCH_RECORDS, settings.ARCHIVE_PROGRESS_RECORDS = 2, 3
    pages = [COPY_A, COPY_B, other(1), other(2), COPY_B, other(3), other(4), COPY_A]
    path = tmp_path / "batches.warc.gz"
    offsets = archive_files.write(path, pages)
    cut = tmp_path / "batches-cut.warc.gz"  # the last record broken off
    cut.write_bytes(path.read_bytes()[:offsets[-1] + 50])
    scan = ArchiveScan.objects.create(source=str(cut), identity=str(cut), batch="b")
    assert archives.run(scan.pk, get_engine(), scans.get_crawler(), "t") == "failed"
    scan.refresh_from_db()
    # two copies in the first batch, one in a later one: each recorded, at its own offset
    assert (scan.records, scan.matches, scan.error_offset) == (8, 3, offsets[-1])
    assert sorted(ArchiveFind.objects.values_list("offset", flat=True)) == sorted(
        [offsets[0], offsets[1], offsets[4]])
    assert Match.objects.count() == 2 and scan.offset == offsets[-1]  # committed to the fault


def test_a_duplicate_message_leaves_a_held_scan_alone_and_the_sweeper_resends_stale_ones(
        platform_stores, tmp_path, settings):
    from datetime import timedelta

    from django.utils import timezone

    from core.engine import get_engine
    from crawler import archives, scans

    path = tmp_path / "a.warc.gz"
    archive_files.write(path, [other(1)])
    now = timezone.now()
    held = ArchiveScan.objects.create(source=str(path), identity=str(path), batch="b",
                                      status="running", task_id="first", heartbeat_at=now)
    lost = ArchiveScan.objects.create(source=str(path), identity=str(path), batch="b",
                                      status="running", task_id="gone",
                                      heartbeat_at=now - timedelta(hours=1))
    waiting = ArchiveScan.objects.create(source=str(path), identity=str(path), batch="b")
    assert archives.run(held.pk, get_engine(), scans.get_crawler(), "duplicate") == "running"
    held.refresh_from_db()
    assert (held.task_id, held.records, held.attempts) == ("first", 0, 0)
    # a scan without progress for ARCHIVE_STALE_SECONDS is taken over by whichever task comes
    assert archives.run(lost.pk, get_engine(), scans.get_crawler(), "second") == "finished"
    lost.refresh_from_db()
    assert (lost.records, lost.task_id, lost.attempts) == (2, "second", 1)
    assert archives.sweep_stuck() == []  # a running scan with fresh progress, a queued one
    stale = ArchiveScan.objects.create(source=str(path), identity=str(path), batch="b",
                                       status="running", task_id="gone",
                                       heartbeat_at=now - timedelta(hours=1))
    settings.ARCHIVE_QUEUED_RESEND_SECONDS = 0
    assert sorted(archives.sweep_stuck()) == [waiting.pk, stale.pk]


def test_the_demo_archive_holds_chapter_3_of_the_demo_novel_and_nothing_else(idle_worker,
                                                                            platform_stores):
    """`manage.py scan_archive demo/archive/demo-crawl.warc.gz --wait`, as the README shows it
    beside `make run`: the demo's web archive holds a reprint of 西游记 第三回 from a site that
    is gone, which no live demo site shows, and three news pages that copy nothing."""
    from django.conf import settings
    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from lib.text import find_sections

    demo = settings.BASE_DIR / "demo"
    text = (demo / "works" / "xiyouji-01-03.txt").read_text(encoding="utf-8")
    work = Work.objects.create(holder=RightsHolder.objects.create(name="示例出版社"),
                               reference="XYJ", title="西游记", length=len(text),
                               status="indexed", indexed_at=timezone.now(),
                               sections=find_sections(text))
    get_engine().add_work(work.engine_id, text)
    summary = scan_archive(str(demo / "archive" / "demo-crawl.warc.gz"))
    assert (summary["status"], summary["records"], summary["matches"]) == ("finished", 5, 1)
    (match,) = Match.objects.all()
    assert match.url == "http://www.xiaoshuo-gone.example/xiyouji/3.html"
    assert match.work_id == work.pk and match.section.startswith("第三回")
