"""A .zip import of many small files while cases of the same holder are decided and their
notices sent, on the real PostgreSQL: nothing deadlocks, every file becomes one work; and an
import whose process is killed mid-way, started again, goes on after the last file committed
without registering any file twice.

``IMPORT_LOAD_FILES`` (default 300) sets the archive's size; the 10,000-file run and its figures
are in bench/README.md ("Imports under case actions").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.utils import timezone

from core import bulk_import, import_jobs
from core.models import (
    AuditEvent,
    ImportItem,
    ImportJob,
    ImportKind,
    ImportState,
    Work,
    verify_chain,
)
from fingerprint.engine import Match as EngineMatch
from fingerprint.engine import Passage
from lib.crawl.pagestore import Page, PageVersion

pytestmark = pytest.mark.django_db(transaction=True)

FILES = int(os.environ.get("IMPORT_LOAD_FILES", "300"))
#: Cases decided and sent during the import, spread over it.
CASES = max(12, FILES // 100)
ROOT = Path(__file__).resolve().parents[2]


def _archive_job(holder, user, files: int) -> ImportJob:
    """A running archive job of ``files`` small distinct texts, staged as the upload would."""
    job = ImportJob.objects.create(holder=holder, user=user, name="many.zip",
                                   kind=ImportKind.ARCHIVE, language="en")
    path = import_jobs.staged_file(job)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(files):
            archive.writestr(f"news/{n:05d}.txt", f"第{n}号稿件 新华社北京电 记者{n}报道。"
                             f"今天发布了编号为{n * 7919}的消息，全文共{n % 97 + 3}段。\n" * 3)
    return job


def _cases(holder, count: int):
    """``count`` new cases of ``holder``'s works, each with two pages found on its own site."""
    from crawler.matching import record_matches
    from crawler.models import Case

    for n in range(count):
        work = Work.objects.create(holder=holder, reference=f"case-work-{n}", title=f"作品{n}",
                                   length=1000, status="indexed")
        for page_number in (1, 2):
            url = f"https://copy{n}.example.com/{page_number}"
            key = 2 * n + page_number
            page = Page(id=f"{key:024x}", canonical_url=url, domain=urlsplit(url).hostname)
            version = PageVersion(id=f"{key + 100000:024x}", page_id=page.id,
                                  canonical_url=url, text="x" * 100)
            record_matches(page, version, None, [
                EngineMatch(str(work.uid), 0.9, 0.8, 0.3, [Passage(0, 50, 10, 60)])])
    return list(Case.objects.filter(work__holder=holder).order_by("pk"))


def _decide_and_send(cases, job: ImportJob, user, failures: list[str]) -> None:
    """Confirm each of ``cases`` (pairs (k, case)), draft its notice and mark it sent, as staff
    would, case k once the import ``job`` has committed its share k / (CASES + 1) of the files,
    so that case actions meet the whole import; every exception is kept in ``failures``."""
    from crawler import case_actions
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    try:
        for k, case in cases:
            while not ImportJob.objects.filter(
                    pk=job.pk, done__gte=(k + 1) * FILES // (CASES + 1)).exists():
                if ImportJob.objects.filter(pk=job.pk).exclude(
                        state=ImportState.RUNNING).exists():
                    break
                time.sleep(0.02)
            try:
                case_actions.do_confirm_case(case, user, "copied page by page")
                notice, = do_draft_notices(case.pages.all(), user, "en")
                do_advance_notice(notice, "sent", user)
            except Exception as exc:  # noqa: BLE001 - reported by the test
                failures.append(f"case {case.pk}: {type(exc).__name__}: {exc}")
    finally:
        connection.close()


def test_a_zip_import_and_case_actions_of_the_same_holder_lose_nothing(people, platform_stores):
    from crawler.models import Case

    holder, staff = people["press"], people["staff"]
    cases = list(enumerate(_cases(holder, CASES)))
    job = _archive_job(holder, people["alice"], FILES)
    failures: list[str] = []
    deciders = [threading.Thread(target=_decide_and_send, args=(cases[i::3], job, staff,
                                                                failures)) for i in range(3)]
    for thread in deciders:
        thread.start()
    began = time.monotonic()
    state = bulk_import.run_job(job.pk)
    seconds = time.monotonic() - began
    for thread in deciders:
        thread.join(timeout=600)

    job.refresh_from_db()
    assert (state, job.error) == (ImportState.FINISHED, "")
    assert failures == []
    references = list(Work.objects.filter(holder=holder, reference__startswith="news/")
                      .values_list("reference", flat=True))
    assert len(references) == len(set(references)) == FILES
    assert len(job.summary["registered"]) == FILES and job.summary["failed"] == []
    assert (job.done, job.total) == (FILES, FILES)
    assert AuditEvent.objects.filter(kind="work", new_state="registered",
                                     holder=holder).count() == FILES
    assert set(Case.objects.filter(work__holder=holder).values_list("state", flat=True)) == {
        "notice_sent"}
    assert verify_chain() is None
    print(f"\n{FILES} files imported in {seconds:.1f} s ({FILES / seconds:.0f} a second) "
          f"while {CASES} cases of the same holder were confirmed and their notices sent")


def test_an_import_killed_mid_way_is_resumed_by_the_sweeper_after_its_last_committed_file(
        people, platform_stores, worker_env, idle_worker, settings, wait_for):
    from crawler.tasks import sweep_stuck

    files = 150
    job = _archive_job(people["press"], people["alice"], files)
    code = f"from core.bulk_import import run_job; run_job({job.pk})"
    process = subprocess.Popen([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                               env=worker_env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not ImportItem.objects.filter(job=job).count() >= 40:
        assert process.poll() is None and time.monotonic() < deadline, "the import never got going"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)  # the worker lost in the middle of a file
    process.wait()
    committed = ImportItem.objects.filter(job=job).count()
    assert 40 <= committed < files
    assert Work.objects.filter(holder=people["press"]).count() == committed

    ImportJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(
        seconds=settings.IMPORT_STUCK_SECONDS + 1))  # its row stopped moving long ago
    assert sweep_stuck()["imports_failed"] == []  # queued again, not failed
    job = wait_for(lambda: ImportJob.objects.filter(pk=job.pk).exclude(
        state=ImportState.RUNNING).first(), timeout=300)
    assert (job.state, job.error, job.options) == (ImportState.FINISHED, "", {"resumed": 1})
    references = list(Work.objects.filter(holder=people["press"])
                      .values_list("reference", flat=True))
    assert len(references) == len(set(references)) == files
    assert len(job.summary["registered"]) == files
    assert job.summary["skipped"] == [] and job.summary["failed"] == []
    assert AuditEvent.objects.filter(kind="work", new_state="registered").count() == files
    assert list(ImportItem.objects.filter(job=job).values_list("position", flat=True)) == \
        list(range(files))
