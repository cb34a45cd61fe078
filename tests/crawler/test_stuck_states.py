"""No stuck states, through a real Celery worker: a scan whose workers died or
that never reached a worker is failed by the sweeper (crawler.sweep_stuck) with the reason; the
cancel action closes a scan at once and its queued URLs are never fetched; a work left pending
because its ingestion task was never queued is queued again by the sweeper and by a re-import."""

import io
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from core import ingestion, notes, registration, work_actions
from core.models import RightsHolder, Work, WorkStatus
from crawler import scan_actions, scans, tasks
from crawler.models import ScanRun, TargetSite
from lib.text import Extracted

pytestmark = pytest.mark.django_db(transaction=True)
TEXT = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 20


def _text(text: str) -> Extracted:
    return Extracted(text=text, format="txt", method="plain")


def _wait(fn, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while not (value := fn()):
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.2)
    return value


def test_stuck_scans_are_failed_with_the_reason_and_free_their_site(idle_worker, platform_stores):
    site = TargetSite.objects.create(name="停滞站", start_urls=["http://127.0.0.1:9/"])
    other = TargetSite.objects.create(name="未达站", start_urls=["http://127.0.0.1:9/"])
    # a scan whose worker died: the frontier is open (lock taken) but its tasks are lost
    died, _, _ = scans.start(site)
    old = int(time.time()) - settings.SCAN_STUCK_SECONDS - 60
    frontier = scans.get_crawler().frontier(died.pk)
    frontier.redis.hset(frontier.meta_key, "touched", old)
    # a scan recorded but never started by a worker (its start task never reached the queue)
    never = ScanRun.objects.create(site=other, started_at=timezone.now() - timedelta(
        seconds=settings.SCAN_STUCK_SECONDS + 60))
    # a healthy running scan, just opened, is left alone
    fresh_site = TargetSite.objects.create(name="正常站", start_urls=["http://127.0.0.1:9/"])
    fresh, _, _ = scans.start(fresh_site)
    assert scans.start(site)[0].status == "skipped"  # the dead scan still holds its site

    result = tasks.sweep_stuck.delay().get(timeout=60)

    assert sorted(result["scans_failed"]) == sorted([died.pk, never.pk])
    died.refresh_from_db(), never.refresh_from_db(), fresh.refresh_from_db()
    assert died.status == "failed" and "no task of the scan finished" in notes.in_english(died.note)
    assert never.status == "failed" and "never reached a worker" in notes.in_english(never.note)
    assert fresh.status == "running"
    assert not ScanRun.objects.filter(status="running").exclude(pk=fresh.pk).exists()
    assert scans.start(site)[0].status == "running"  # the site's lock was released


def test_cancel_closes_the_scan_at_once_and_queued_urls_are_not_fetched(idle_worker, site,
                                                                       platform_stores):
    pages = [f"/p/{i}.html" for i in range(30)]
    site.route("/", site.html("".join(f'<a href="{u}">{u}</a>' for u in pages)))
    for path in pages:
        site.route(path, site.html(TEXT))
    out = io.StringIO()
    call_command("add_site", "取消站", site.url("/"), "--delay", "0.5", stdout=out)
    target = TargetSite.objects.get(pk=int(out.getvalue()))
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")

    scan = scan_actions.do_start_scan(target, acting_user=boss, trigger="admin")
    _wait(lambda: sum(site.hits(p) for p in pages) >= 2)  # the scan is under way
    assert scan_actions.do_cancel_scan(scan, boss) is True

    scan.refresh_from_db()
    assert scan.status == "cancelled" and scan.finished_at is not None  # at once, not later
    fetched = sum(site.hits(p) for p in pages)
    time.sleep(3)  # at one page per 0.5 s, a scan still going would fetch about 6 more pages
    assert sum(site.hits(p) for p in pages) <= fetched + 1  # at most one fetch already under way
    assert fetched + 1 < len(pages)
    scan.refresh_from_db()
    assert scan.status == "cancelled"


def test_a_pending_work_is_queued_again_by_the_sweeper_and_by_a_reimport(idle_worker,
                                                                          platform_stores):
    holder = RightsHolder.objects.create(name="待处理出版社")
    # registered while the task queue was unreachable: staged, pending, nothing queued
    lost = registration.register_work(holder, "lost-1", _text(TEXT), ingest=False).work
    again = registration.register_work(holder, "lost-2", _text(TEXT[::-1]), ingest=False).work
    assert Work.objects.get(pk=lost.pk).status == WorkStatus.PENDING
    Work.objects.filter(pk__in=[lost.pk, again.pk]).update(
        updated_at=timezone.now() - timedelta(seconds=settings.WORK_PENDING_REQUEUE_SECONDS + 60))
    young = registration.register_work(holder, "young", _text(TEXT + "。"), ingest=False).work

    # a re-import of the unchanged text queues it again instead of skipping it forever
    outcome = work_actions.do_register_work(holder, "lost-2", _text(TEXT[::-1]))
    assert outcome.outcome == "skipped" and outcome.queued
    _wait(lambda: Work.objects.get(pk=again.pk).status == WorkStatus.INDEXED)

    result = tasks.sweep_stuck.delay().get(timeout=60)
    assert result["works_requeued"] == [lost.pk]  # not the young one, not the indexed one
    _wait(lambda: Work.objects.get(pk=lost.pk).status == WorkStatus.INDEXED)
    assert Work.objects.get(pk=young.pk).status == WorkStatus.PENDING
    assert tasks.sweep_stuck.delay().get(timeout=60)["works_requeued"] == []


def test_a_waiting_work_whose_retry_was_lost_is_queued_again_by_the_sweeper(idle_worker,
                                                                           platform_stores):
    holder = RightsHolder.objects.create(name="等待出版社")
    lost = registration.register_work(holder, "waiting-1", _text(TEXT), ingest=False).work
    retrying = registration.register_work(holder, "waiting-2", _text(TEXT[::-1]), ingest=False).work
    # Redis went away during both ingestions; the retry of the first was lost with it
    ingestion.mark_waiting(lost.pk, "Redis unreachable")
    Work.objects.filter(pk=lost.pk).update(
        updated_at=timezone.now() - timedelta(seconds=settings.WORK_PENDING_REQUEUE_SECONDS + 60))
    ingestion.mark_waiting(retrying.pk, "Redis unreachable")  # its retry is on its way

    result = tasks.sweep_stuck.delay().get(timeout=60)
    assert result["works_requeued"] == [lost.pk]
    _wait(lambda: Work.objects.get(pk=lost.pk).status == WorkStatus.INDEXED)
    assert Work.objects.get(pk=retrying.pk).status == WorkStatus.WAITING
