"""CPU of the crawl task's writes per page, each timed alone in this process: the raw exchange
stash (39 kB), the crawl log record, a new page and version (as a page first seen, and
without that hint), the frontier's counters.

    .venv/bin/python bench/crawl_writes.py [--n 300]

Starts its own MongoDB and Redis (as bench/crawl_bench.py does) and prints, for each write,
CPU ms (``time.process_time``: this process, the client's share), the servers' CPU ms (MongoDB
and Redis, psutil) and wall ms (the round trip included), two rounds.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.crawl_bench import bench_environment, cpu_seconds  # noqa: E402

PAGE = ROOT / "demo" / "site" / "news" / "qq-qq.html"
BODY_BYTES = 39_000  # the mean stashed exchange of crawl_bench's pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="writes of each kind per round")
    args = parser.parse_args(argv)
    with bench_environment("crawl-writes-") as services:
        from crawler import scans
        from lib.crawl.exchange import Exchange, Hop
        from lib.text import decode_bytes, extract_document

        crawler = scans.get_crawler()
        crawler.ensure_indexes()
        body = (PAGE.read_bytes() * 3)[:BODY_BYTES]
        text = extract_document(decode_bytes(body, None).text, "html", with_author=False,
                                with_date=False)
        exchange = Exchange([Hop(started=datetime.now(UTC), method="GET", url="http://x/a",
                                 target="/a", request_headers=[["Host", "x"]], status=200,
                                 reason="OK", response_headers=[["Content-Type", "text/html"]],
                                 body=body, body_complete=True)])
        frontier = crawler.frontier(1)

        def save(key: str, expect_new: bool = False) -> None:
            crawler.pages.save(canonical_url=key, url=key, final_url=key, domain="x", site_id=1,
                               scan_id=1, status=200, outcome="ok", reason="",
                               headers={"content-type": "text/html"}, validators={}, body=body,
                               text=text.text + key, title=text.title, published=None,
                               encoding="utf-8", extraction={"method": "resiliparse", "error": None},
                               links=[f"http://x/{k}" for k in range(30)], expect_new=expect_new)

        writes = {
            "exchange stash (39 kB)": lambda key: crawler.exchanges.put(key, exchange),
            "crawl log record": lambda key: crawler.log.record(1, key, "ok", status=200, depth=1),
            "new page and version": save,
            "new page and version, expected new": lambda key: save(key, expect_new=True),
            "frontier counters": lambda key: frontier.count(pages_new=1, pages_fetched=1,
                                                            ms_extract=2, cpu_us_extract=3),
        }
        servers = [service.pid for service in services]
        print("| round | write | CPU ms | servers' CPU ms | wall ms |\n|---|---|---|---|---|")
        for r in range(2):
            for k, (name, write) in enumerate(writes.items()):
                cpu, wall, server = time.process_time(), time.perf_counter(), cpu_seconds(servers)
                for i in range(args.n):
                    write(f"http://x/{r}/{k}/{i}")
                print(f"| {r + 1} | {name} | {(time.process_time() - cpu) / args.n * 1000:.2f} "
                      f"| {(cpu_seconds(servers) - server) / args.n * 1000:.2f} "
                      f"| {(time.perf_counter() - wall) / args.n * 1000:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
