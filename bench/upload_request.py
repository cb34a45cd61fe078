"""The issue's hostile .docx (bench.docx_extract: a few MB whose document.xml expands to
``--mb`` MB of small paragraphs) uploaded through the work form of a real dashboard: how long the
web request takes, how much the web process grows, and how the upload job ends in the worker.
Also how long pasted texts take to prepare in a request (``extract_pasted``), the path kept
synchronous (docs/decisions/upload-jobs.md).

    .venv/bin/python -m bench.upload_request [--mb 100]

Starts its own PostgreSQL, MongoDB and Redis in a temporary folder (bench.dashboard_load's
``start_servers``), a Celery worker on every queue and gunicorn with one worker process on
127.0.0.1. RSS: VmRSS and VmHWM (peak) of that gunicorn worker from /proc, before and after.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from bench.dashboard_load import ROOT, login, start_servers, start_web
from bench.docx_extract import hostile_docx

PASSWORD = "Bench-upload-2026!"


def _memory_mb(pid: int) -> dict:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return {key: int(fields[key].split()[0]) // 1024 for key in ("VmRSS", "VmHWM")}


def _web_worker(master: int) -> int:
    import psutil

    children = psutil.Process(master).children()
    assert len(children) == 1, children
    return children[0].pid


def pasted_seconds(chars: int) -> float:
    """Seconds ``extract_pasted`` takes for a text of ``chars`` CJK characters in paragraphs."""
    from core.text_extraction import extract_pasted

    line = "清晨的雾气笼罩着山谷，溪水绕过石桥向东流去。" * 4 + "\n"
    text = (line * (chars // len(line) + 1))[:chars]
    started = time.perf_counter()
    extract_pasted(text)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="document.xml size, MB")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="upload-request-"))
    services, procs = [], []
    try:
        start_servers(tmp, services)
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from core.models import RightsHolder
        from lib.runtime import supervisor
        from tracker.celery import app

        holder = RightsHolder.objects.create(name="bench")
        get_user_model().objects.create_superuser("bench", "bench@example.com", PASSWORD)
        worker = supervisor.start_worker(supervisor.child_env(), tmp / "celery-worker.log",
                                         "upload", queues=settings.WORKER_QUEUES, cwd=ROOT)
        procs.append(worker)
        supervisor.wait_until_ready(app, worker, "upload", tmp / "celery-worker.log",
                                    settings.WORKER_READY_TIMEOUT_SECONDS)
        web, base = start_web(tmp, 1)
        procs.append(web)
        data = hostile_docx(args.mb)
        session = login(base, "bench", PASSWORD)
        session.get(f"{base}/core/work/add/")  # the form's page loaded once, as a person does
        pid = _web_worker(web.pid)
        before = _memory_mb(pid)
        started = time.perf_counter()
        answer = session.post(f"{base}/core/work/add/", allow_redirects=False, timeout=600, data={
            "holder": holder.pk, "reference": "bomb", "title": "", "author": "", "kind": "",
            "language": "", "text": "", "csrfmiddlewaretoken": session.cookies["csrftoken"]},
            files={"upload": ("bomb.docx", data)}, headers={"Referer": f"{base}/core/work/add/"})
        request_s = time.perf_counter() - started
        after = _memory_mb(pid)
        status = f"{base}{answer.headers['Location']}status/"
        while (job := session.get(status, timeout=60).json())["state"] == "running":
            time.sleep(0.5)
        job_s = time.perf_counter() - started
        print(f"file {len(data) / 2**20:.1f} MB, document.xml {args.mb} MB")
        print(f"request: HTTP {answer.status_code} in {request_s:.2f} s; web worker RSS "
              f"{before['VmRSS']} -> {after['VmRSS']} MB, peak {before['VmHWM']} -> "
              f"{after['VmHWM']} MB")
        print(f"job: {job['state']} {job['error_code']} after {job_s:.1f} s: {job['error']}")
        for chars in (1_000_000, settings.WORK_TEXT_MAX_CHARS):
            print(f"extract_pasted, {chars:,} characters: {pasted_seconds(chars):.2f} s")
    finally:
        from lib.runtime import supervisor

        for proc in reversed(procs):
            supervisor.stop(proc)
        for service in reversed(services):
            service.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
