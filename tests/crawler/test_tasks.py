"""End to end through a real Celery worker (tests/conftest.py's idle_worker): add_site, scan
--wait, matches; one scan per site at a time; unchanged pages; whitelists; daily schedule."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import opencc
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from core import notes
from core.connections import get_redis
from core.engine import get_engine
from core.models import RightsHolder, Work
from crawler import progress, scans
from crawler.models import Match, ScanRun, TargetSite, WhitelistedDomain
from lib.crawl import pagekeys
from tests.chapter import CHAPTER
from tests.scanning import scan

pytestmark = pytest.mark.django_db(transaction=True)
FIXTURES = Path(__file__).parent / "fixtures"
NEWS = "<html><head><title>本地新闻</title></head><body><article><p>{}</p></article></body></html>".format(
    "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 6)


def reprint(text: str) -> str:
    """The chapter the way a portal reprints it: header, traditional characters, an ad, a
    changed character, another editor's name."""
    body = opencc.OpenCC("s2t").convert(text[:2500]).replace("猴", "候", 1)
    paras = "".join(f"<p>{p}</p>" for p in body.split("\n") if p.strip())
    return ("<html><head><title>西遊記 第一回 - 好書網</title></head><body><div class='nav'>首頁 | 小說 | 排行</div>"
            f"<article><h1>西遊記 第一回</h1>{paras[:3000]}<div class='ad'>廣告：手機遊戲大禮包</div>"
            f"{paras[3000:]}<p>責任編輯：李四</p></article></body></html>")


@pytest.fixture
def work(indexed_chapter):
    return indexed_chapter()


def serve_site(site, copy_html):
    links = ["/book/1.html?utm_source=feed", "/book/1.html#top", "/news/1.html", "/private/a.html",
             "/gone.html", "/calendar/2025/01/", "/flaky.html", "/busy.html", "/gbk.html", "/big5.html",
             "/doc.pdf", "/slow.html", "/big.html", "/loop.html", "/evil.html"]
    site.route("/", site.html("".join(f'<a href="{u}">{i}</a>' for i, u in enumerate(links))))
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"},
                                          b"User-agent: *\nDisallow: /private/\n"))
    site.route("/book/1.html", lambda h: site.html(copy_html[0]))
    site.route("/news/1.html", site.html(NEWS))
    site.route("/private/a.html", site.html(NEWS))
    flaky = iter([site.Reply(503, {}, b"")])
    site.route("/flaky.html", lambda h: next(flaky, None) or site.html(NEWS.replace("会议", "活动")))
    busy = iter([site.Reply(429, {"Retry-After": "1"}, b"")])
    site.route("/busy.html", lambda h: next(busy, None) or site.html(NEWS.replace("会议", "论坛")))
    site.route("/gbk.html", site.Reply(200, {"Content-Type": "text/html"},
                                       NEWS.replace("本市", "本县").encode("gbk")))
    site.route("/big5.html", site.Reply(200, {"Content-Type": "text/html"},
                                        (FIXTURES / "big5_no_charset.html").read_bytes()))
    site.route("/doc.pdf", site.Reply(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4"))
    site.route("/slow.html", site.Reply(200, {"Content-Type": "text/html"}, b"<p>x</p>", delay=2.0))
    site.route("/big.html", site.Reply(200, {"Content-Type": "text/html"}, b"<p>" + b"x" * 300_000))
    site.route("/loop.html", site.Reply(302, {"Location": "/loop.html?again=1"}))
    site.route("/loop.html?again=1", site.Reply(302, {"Location": "/loop.html"}))
    site.route("/evil.html", site.Reply(302, {"Location": "http://192.168.1.1/router"}))


def test_scan_through_workers_records_pages_outcomes_and_matches(idle_worker, site, work):
    copy_html = [reprint(CHAPTER)]
    serve_site(site, copy_html)
    out = io.StringIO()
    call_command("add_site", "测试站", site.url("/"), "--delay", "0", stdout=out)
    site_id = int(out.getvalue())
    assert TargetSite.objects.get(pk=site_id).allowed_domains == ["127.0.0.1"]

    summary = scan(site_id)
    assert summary["status"] == "finished"
    assert summary["errors"] == {"client_error": 1, "content_type": 1, "redirect_loop": 1,
                                 "robots_disallowed": 1, "ssrf_refused": 1, "timeout": 1,
                                 "too_large": 1, "trap": 1}
    # the index page's text is its link labels: a page read, like the 6 others
    assert summary["pages_new"] == 7 and summary["pages_fetched"] == 7
    assert summary["matches_found"] == 1 and summary["matches_new"] == 1
    # the crawler read each page once (the evidence capture's browser visits the match again)
    bot = "CopyrightTrackerBot"
    assert site.hits("/book/1.html", bot) == 1 and site.hits("/flaky.html", bot) == 2
    log = {e["url"].removeprefix(site.base): e for e in scans.get_crawler().log.entries(summary["scan"])}
    assert (log["/busy.html"]["outcome"], log["/busy.html"]["attempts"]) == ("ok", 2)  # after Retry-After
    assert (log["/slow.html"]["outcome"], log["/slow.html"]["attempts"]) == ("timeout", 3)
    assert (log["/gone.html"]["outcome"], log["/gone.html"]["attempts"]) == ("client_error", 1)
    gbk = scans.get_crawler().pages.get(site.url("/gbk.html"))
    assert gbk.encoding == "gb18030 (detected)" and gbk.title == "本地新闻"

    match = Match.objects.get()
    assert (match.work, match.section, match.review_status) == (work, "第一回", "new")
    assert match.url == site.url("/book/1.html") and match.domain == "127.0.0.1"
    assert match.containment_page > 0.5
    version = scans.get_crawler().pages.version(match.version_id)
    p = match.passages[0]
    assert "靈根育孕源流出" in version.text[p["page_start"]:p["page_end"]]
    work_start = opencc.OpenCC("s2t").convert(CHAPTER[p["work_start"] + 4:p["work_start"] + 10])
    assert work_start in version.text[p["page_start"]:p["page_end"]]
    # the query keys kept for the stored-page search are those of the version's text
    kept = {k.version_id: k.keys for chunk in scans.get_crawler().pages.iter_current_keys()
            for k in chunk}
    assert kept[match.version_id] == pagekeys.compute(get_engine(), version.text)

    listing = io.StringIO()
    call_command("matches", "--scan", str(summary["scan"]), "--format", "jsonl", stdout=listing)
    record = json.loads(listing.getvalue().strip())
    assert (record["work_reference"], record["holder"], record["review_status"]) == ("XYJ-1", "测试出版社", "new")
    csv_out = io.StringIO()
    call_command("matches", "--since", "2000-01-01", "--format", "csv", stdout=csv_out)
    assert csv_out.getvalue().splitlines()[0].startswith("match_id,holder,work_reference,work_title,url")
    assert len(csv_out.getvalue().splitlines()) == 2

    # second scan: nothing changed -> no new row, last_seen moves
    first_seen, last_seen = match.first_seen, match.last_seen
    again = scan("测试站")
    assert again["pages_unchanged"] >= 3 and again["pages_new"] == 0
    assert again["matches_found"] == 1 and again["matches_new"] == 0  # seen again, not matched again
    match.refresh_from_db()
    assert Match.objects.count() == 1 and match.first_seen == first_seen and match.last_seen > last_seen

    # the page drops the copied text: the match stays, with its evidence, no longer matching
    copy_html[0] = NEWS.replace("交通", "环境")
    third = scan(site.url("/"))
    assert third["pages_changed"] == 1
    match.refresh_from_db()
    assert not match.still_matching and match.version_id == record["version_id"]


def test_whitelisted_domain_gives_no_match(idle_worker, site, work):
    serve_site(site, [reprint(CHAPTER)])
    WhitelistedDomain.objects.create(holder=work.holder, domain="127.0.0.1", note="licensed partner")
    out = io.StringIO()
    call_command("add_site", "白名单站", site.url("/"), "--delay", "0", stdout=out)
    summary = scan(int(out.getvalue()))
    assert summary["status"] == "finished" and summary["matches_found"] == 0
    assert not Match.objects.exists()


def test_one_scan_of_a_site_at_a_time(platform_stores):
    site = TargetSite.objects.create(name="锁", start_urls=["http://127.0.0.1:9/"])
    first, urls, token = scans.start(site, trigger="command")
    assert first.status == "running" and urls and token
    second, none, no_token = scans.start(site, trigger="schedule")
    assert second.status == "skipped" and none == [] == list(no_token) and f"#{first.pk}" in second.note_words
    with pytest.raises(CommandError, match="still running"):
        call_command("scan", str(site.pk), stdout=io.StringIO())
    assert scans.finish(first.pk) and not scans.finish(first.pk)
    assert ScanRun.objects.filter(site=site, status="skipped").count() == 2
    third, _, _ = scans.start(site)
    assert third.status == "running"
    get_redis().delete(scans.get_crawler().frontier(third.pk).alive_key)  # its worker died an hour ago
    fourth, _, _ = scans.start(site)
    assert fourth.status == "running"
    third.refresh_from_db()
    assert third.status == "failed" and notes.in_english(third.note).startswith("abandoned")
    scans.finish(fourth.pk)


def test_daily_schedule_follows_the_site(platform_stores):
    from django_celery_beat.models import PeriodicTask

    site = TargetSite.objects.create(name="日更", start_urls=["http://example.com/"])
    task = PeriodicTask.objects.get(pk=site.periodic_task_id)
    assert task.task == "crawler.start_scan" and json.loads(task.args) == [site.pk]
    assert task.crontab.hour == "3" and task.enabled and task.queue == "crawl"
    site.enabled = False
    site.save()
    assert not PeriodicTask.objects.get(pk=task.pk).enabled
    site.delete()
    assert not PeriodicTask.objects.filter(pk=task.pk).exists()


def test_commands_reject_bad_input(platform_stores):
    with pytest.raises(CommandError, match="not an http"):
        call_command("add_site", "坏", "ftp://x.cn/", stdout=io.StringIO())
    call_command("add_site", "好", "http://x.cn/", stdout=io.StringIO())
    with pytest.raises(CommandError, match="exists already"):
        call_command("add_site", "好", "http://y.cn/", stdout=io.StringIO())
    with pytest.raises(CommandError, match="no target site"):
        call_command("scan", "nothing-like-this", stdout=io.StringIO())
    with pytest.raises(CommandError, match="not a date"):
        call_command("matches", "--since", "yesterday", stdout=io.StringIO())
    assert TargetSite.objects.count() == 1


@pytest.mark.parametrize("since", ["9999-99-99", "2024-02-30", "2024-01-01T25:00:00"])
def test_matches_command_refuses_an_impossible_date_in_one_line(session_servers, since):
    """As a user types it: one line naming the argument, exit status 2, no traceback."""
    result = subprocess.run([sys.executable, str(settings.BASE_DIR / "manage.py"), "matches",
                             "--since", since], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings"})
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error = [line for line in result.stderr.splitlines() if not line.startswith("servers:")]
    assert error == [f"CommandError: --since {since!r} is not a date (YYYY-MM-DD) or ISO "
                     "datetime"]



def test_finish_copies_counters_and_match_failures(platform_stores):
    site = TargetSite.objects.create(name="计数", start_urls=["http://127.0.0.1:9/"])
    scan, urls, _ = scans.start(site)
    frontier = scans.get_crawler().frontier(scan.pk)
    frontier.count(pages_fetched=3, pages_new=2, pages_unchanged=1, match_errors=2, ms_fetch=1500)
    # A match task delivered twice (its worker killed after it wrote its row): counted twice,
    # one row. The scan reports the row.
    frontier.count(matches=2, matches_new=2)
    holder = RightsHolder.objects.create(name="计数社")
    work = Work.objects.create(holder=holder, reference="w", title="作品", sha256="0" * 64)
    Match.objects.create(work=work, url="http://127.0.0.1:9/a", domain="127.0.0.1", score=0.5,
                         containment_page=0.5, containment_work=0.5,
                         site=site, first_scan=scan, last_scan=scan)
    frontier.count_outcome("timeout")
    frontier.count_outcome("ok")
    assert progress.progress(scan, get_user_model().objects.create_superuser("s", "s@x.cn", "x"))[
        "matches"] == 1  # live, while it runs
    assert scans.finish(scan.pk)
    scan.refresh_from_db()
    assert (scan.status, scan.pages_fetched, scan.pages_new, scan.pages_unchanged, scan.matches_found,
            scan.matches_new) == ("finished", 3, 2, 1, 1, 1)
    assert scan.errors == {"timeout": 1, "match_failed": 2} and scan.stage_seconds["fetch"] == 1.5
    assert scan.urls_seen == len(urls) and not get_redis().exists(scans.lock_key(site.pk))
