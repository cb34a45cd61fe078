"""Benchmark of the case list, the case page with many pages per case, the work's page and the
scan list.

Everything real and local (bench.crawl_bench.bench_environment: MongoDB and Redis from
lib.runtime.embedded, a fresh SQLite Django database, migrated). Seeded: ``--cases`` cases
of one work (three chapters) on as many sites, the first with ``--pages`` matched pages (Match
rows), the others with 3 each, spread over SCANS finished scans. Timed with Django's test client
as a superuser: the case list, the first and the last page of the big case's page
(``settings.CASE_PAGES_PER_PAGE`` rows each), the case-list filters by state and by age, the
work's page (its findings: dashboard.work_figures, every page's passages attributed to
chapters), the scan list (each run's matches counted from the rows), and
``manage.py cases --format jsonl``; ``--repeat`` runs each,
the median milliseconds, the SQL queries (django.test.utils.CaptureQueriesContext) and the size
(KB) are reported as one JSON line.

Run: ``.venv/bin/python -m bench.case_page --pages 5000 --cases 500 --repeat 5``
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time

from bench.crawl_bench import bench_environment

SCANS = 20  # finished scans the pages are spread over (the scan list shows them all)


def seed(pages: int, cases: int) -> int:
    """Create the rows; returns (the big case's id, the work's id)."""
    from core.models import RightsHolder, Work
    from crawler.models import Case, Match, ScanRun, TargetSite

    holder = RightsHolder.objects.create(name="bench holder")
    chapters = [{"title": f"第{n}回", "start": (n - 1) * 3000, "end": n * 3000}
                for n in (1, 2, 3)]
    work = Work.objects.create(holder=holder, reference="B-1", title="西游记", length=9000,
                               status="indexed", sections=chapters)
    site = TargetSite.objects.create(name="bench site")
    scans = ScanRun.objects.bulk_create([ScanRun(site=site, status="finished")
                                         for _ in range(SCANS)])
    made = Case.objects.bulk_create([Case(work=work, domain=f"site{n}.example.com")
                                     for n in range(cases)])
    rows, number = [], 0
    for index, case in enumerate(made):
        for _ in range(pages if index == 0 else 3):
            number += 1
            start = (number % 9) * 1000 + 100  # passages over the three chapters
            scan = scans[number % SCANS]
            rows.append(Match(work=work, case=case, page_id=f"{number:024x}",
                              first_scan=scan, last_scan=scan,
                              version_id=f"{number:024x}", domain=f"www.{case.domain}",
                              url=f"https://www.{case.domain}/book/{number}.html",
                              title=f"第{number}页", score=0.8, containment_page=0.6,
                              containment_work=0.01, section="第一回",
                              passages=[{"page_start": 0, "page_end": 800,
                                         "work_start": start, "work_end": start + 800}]))
    Match.objects.bulk_create(rows, batch_size=2000)
    return made[0].pk, work.pk


def timed(client, url: str, repeat: int) -> dict:
    """Median milliseconds, SQL queries and KB of GET ``url`` (HTTP 200 required)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries, size = [], 0, 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            answer = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 200, (url, answer.status_code)
        queries, size = len(captured), len(answer.content) // 1024
    return {"ms": round(statistics.median(times), 1), "queries": queries, "kb": size}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with bench_environment("case-bench-"):
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client

        big, work = seed(args.pages, args.cases)
        user = get_user_model().objects.create_superuser("bench", "b@bench.test", "x")
        client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans", HTTP_HOST="127.0.0.1")
        client.force_login(user)
        last = -(-args.pages // settings.CASE_PAGES_PER_PAGE)
        report = {"pages": args.pages, "cases": args.cases, "timings": {
            "case list": timed(client, "/crawler/case/", args.repeat),
            "case list, state new": timed(client, "/crawler/case/?state__exact=new", args.repeat),
            "case list, opened today": timed(client, "/crawler/case/?age=1", args.repeat),
            "case page, first": timed(client, f"/crawler/case/{big}/change/", args.repeat),
            "case page, last": timed(client, f"/crawler/case/{big}/change/?page={last}",
                                     args.repeat),
            "work page": timed(client, f"/core/work/{work}/change/", args.repeat),
            "scan list": timed(client, "/crawler/scanrun/", args.repeat)}}
        start = time.perf_counter()
        call_command("cases", "--format", "jsonl", stdout=io.StringIO())
        report["timings"]["manage.py cases"] = {"ms": round((time.perf_counter() - start) * 1000,
                                                            1)}
        print(json.dumps(report, ensure_ascii=False))
        return report


if __name__ == "__main__":
    main()
