"""Multi-host throughput: pages/s of a scan crawled and matched by two worker hosts against
one, on the deployment of tests/platform/multihost (network namespaces: a web host with
PostgreSQL and the broker, two worker hosts with one Celery process each, three data hosts
with a MongoDB replica set written with w=majority and a Redis Cluster holding the index).

    .venv/bin/python bench/multihost_bench.py                    # --pages 60 --repeat 3
    .venv/bin/python bench/multihost_bench.py --delays 0,0.1 --pages 90 --repeat 3

Needs root and `ip` (as the test). The loopback site (tests/platform/faults DrillSite: every
third page a reprint of the indexed work) is served on the bridge, answering each page after
``--delay`` seconds: 0 makes the scan CPU-bound, a delay stands in for the sites' network
latency. For each delay, runs with two worker hosts and with one (the other host's worker
stops consuming) are interleaved ``--repeat`` times; reported: median pages/s from the scan's
start to its end (every page fetched, stored and matched). All hosts share this machine's
CPUs: on 2 cores two worker hosts cannot compute twice as fast; what they can overlap is
waiting (for the site, MongoDB's majority acknowledgement, the network).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8


def scan_once(made, novel: str, pages: int, delay: float) -> float:
    """One scan of a new site of ``pages`` pages; returns pages/s (start to finish)."""
    from crawler.models import ScanRun, ScanStatus, TargetSite
    from crawler.scan_actions import do_start_scan
    from tests.platform.faults.conftest import DrillSite
    from tests.platform.multihost.deployment import wait_until

    site = DrillSite([novel[2000:4000], NEWS, NEWS.replace("交通", "环境")], pages, delay,
                     address=made.site_address)
    try:
        target = TargetSite.objects.create(name=f"bench {time.monotonic()}",
                                           start_urls=[site.url],
                                           allowed_domains=[made.site_address], max_pages=pages + 10,
                                           delay_seconds=0)
        started = time.monotonic()
        scan = do_start_scan(target)
        wait_until(lambda: ScanRun.objects.get(pk=scan.pk).status != ScanStatus.RUNNING,
                   "the scan finished", timeout=600, poll=0.1)
        seconds = time.monotonic() - started
        scan.refresh_from_db()
        if scan.status != ScanStatus.FINISHED:
            raise RuntimeError(f"scan {scan.pk} ended {scan.status}: {scan.note}")
        return (pages + 1) / seconds
    finally:
        site.close()


def consume(app, worker, on: bool) -> None:
    """Let ``worker`` take crawl and match tasks again (on) or not (off)."""
    from tests.platform.multihost.deployment import QUEUES

    for queue in QUEUES:
        if on:
            app.control.add_consumer(queue, destination=[worker.node], reply=True)
        else:
            app.control.cancel_consumer(queue, destination=[worker.node], reply=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=60, help="pages per scan (default 60)")
    parser.add_argument("--delays", default="0,0.1",
                        help="seconds the site waits before each page, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.test")
    import django

    django.setup()
    from tests.platform.multihost import deployment as deploy
    from tests.platform.multihost.network import unavailable_reason
    from tracker.celery import app

    if reason := unavailable_reason():
        print(reason, file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="multihost-bench-"))
    folder.chmod(0o711)
    made, saved = deploy.build(folder)
    results: dict = {}
    try:
        workers = made.start_workers(made.workers)
        novel = deploy.index_work()
        for delay in [float(d) for d in args.delays.split(",")]:
            runs: dict[int, list[float]] = {2: [], 1: []}
            for _ in range(args.repeat):
                for hosts in (2, 1):
                    consume(app, workers[1], on=hosts == 2)
                    runs[hosts].append(scan_once(made, novel, args.pages, delay))
                    print(f"delay {delay} s, {hosts} worker host(s): "
                          f"{runs[hosts][-1]:.1f} pages/s", flush=True)
            consume(app, workers[1], on=True)
            results[str(delay)] = {hosts: statistics.median(v) for hosts, v in runs.items()}
            results[str(delay)]["runs"] = runs
    finally:
        made.point_back(saved)
        made.close()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{args.pages + 1} pages per scan, medians of {args.repeat} interleaved runs, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| site delay per page | 1 worker host | 2 worker hosts | ratio |")
    print("|---|---|---|---|")
    for delay, got in results.items():
        print(f"| {delay} s | {got[1]:.1f} pages/s | {got[2]:.1f} pages/s | "
              f"{got[2] / got[1]:.2f} |")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "multihost.json").write_text(json.dumps({"args": vars(args), "results": results},
                                                   indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
