"""Where the crawler's match task spends its time: the body of ``crawler.tasks.match_page`` run
in this process under cProfile, on the demo site's pages stored ``--copies`` times over.

    .venv/bin/python bench/match_profile.py [--copies 20] [--top 25]

Starts its own MongoDB and Redis and a SQLite Django database (as bench/crawl_bench.py does),
registers the demo works, stores every page of demo/site through the crawler's PageStore, then
matches each stored version as the task does (the task's reads, ``Engine.match_with_keys``,
``matching.record_matches``, ``PageStore.mark_matched``), timing each step with
``time.process_time`` (CPU of this process) and ``time.perf_counter`` (wall, waiting for
MongoDB, Redis and SQLite included). Prints ms per page per step, the SQL queries per page,
and cProfile's top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.crawl_bench import bench_environment, register_works  # noqa: E402

SITE = ROOT / "demo" / "site"


def store_pages(copies: int) -> list[tuple[str, str]]:
    """Store every demo page ``copies`` times under distinct URLs; returns (page id, version id)."""
    from crawler import scans
    from lib.text import decode_bytes, extract_document

    pages = scans.get_crawler().pages
    out = []
    for k in range(copies):
        for path in sorted(SITE.rglob("*.html")):
            url = f"http://127.0.0.1/m{k}/{path.relative_to(SITE)}"
            raw = path.read_bytes()
            text = extract_document(decode_bytes(raw, None).text, "html", url, with_author=False)
            saved = pages.save(canonical_url=url, url=url, final_url=url, domain="127.0.0.1",
                               site_id=1, scan_id=1, status=200, outcome="ok", reason="",
                               headers={}, validators={}, body=raw, text=text.text,
                               title=text.title, published=None, encoding="utf-8",
                               extraction={}, links=[])
            out.append((saved.page_id, saved.version_id))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    with bench_environment("match-profile-"):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from core.engine import get_engine
        from crawler import matching, scans
        from crawler.models import ScanRun, TargetSite
        from crawler.tasks import scan_for_recording
        from lib.crawl import pagekeys

        register_works()
        site = TargetSite.objects.create(name="profile", start_urls=["http://127.0.0.1/"],
                                         allowed_domains=["127.0.0.1"])
        scan = ScanRun.objects.create(site=site, status="running")
        todo = store_pages(args.copies)
        crawler, engine = scans.get_crawler(), get_engine()
        cpu, wall = defaultdict(float), defaultdict(float)
        found_total = 0

        def step(name, fn, *a):
            c, w = time.process_time(), time.perf_counter()
            out = fn(*a)
            cpu[name] += time.process_time() - c
            wall[name] += time.perf_counter() - w
            return out

        def match_one(page_id, version_id):
            page = step("read page + version (MongoDB)", lambda: (
                crawler.pages.page(page_id), crawler.pages.version(version_id)))
            scan_row = lambda: scan_for_recording(scan.pk)  # noqa: E731 - as the task
            found = step("engine.match_with_keys", engine.match_with_keys, page[1].text)
            report = step("record_matches (SQL)", matching.record_matches, page[0], page[1],
                          scan_row, found.matches)
            step("mark_matched + keys (MongoDB)", crawler.pages.mark_matched, page_id,
                 version_id, pagekeys.pack(found.keys, engine.config))
            return report.found

        for page_id, version_id in todo[:13]:  # warm: the engine's prepared-work cache
            match_one(page_id, version_id)
        cpu.clear()
        wall.clear()
        profile = cProfile.Profile()
        with CaptureQueriesContext(connection) as queries:
            profile.enable()
            for page_id, version_id in todo:
                found_total += match_one(page_id, version_id)
            profile.disable()
        n = len(todo)
        print(f"{n} page versions matched, {found_total} matches recorded, "
              f"{len(queries) / n:.1f} SQL queries per page\n")
        print("| step | CPU ms/page | wall ms/page |\n|---|---|---|")
        for name in cpu:
            print(f"| {name} | {cpu[name] / n * 1000:.2f} | {wall[name] / n * 1000:.2f} |")
        print(f"| all | {sum(cpu.values()) / n * 1000:.2f} | {sum(wall.values()) / n * 1000:.2f} |\n")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(r"crawler|core|lib/|fingerprint|sql/compiler|sqlite3|pymongo/synchronous/collection", args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
