"""Crawler benchmark: pages per second crawled, extracted and matched against the loopback demo
site, with 1, 2 and 4 Celery worker processes, and the time spent per stage.

    .venv/bin/python bench/crawl_bench.py                       # --mirrors 20 --workers 1,2,4
    .venv/bin/python bench/crawl_bench.py --mirrors 40 --workers 2 --repeat 3
    .venv/bin/python bench/crawl_bench.py --mirrors 5 --workers 1 --browser --repeat 3
    .venv/bin/python bench/crawl_bench.py --mirrors 10 --workers 2 --capture --repeat 3

Everything is real and local: the script starts its own MongoDB and Redis (lib/runtime/embedded.py)
and a Django database in a temporary folder, registers the demo works (demo/works/) with the
fingerprint engine, serves demo/site/ on 127.0.0.1 ``--mirrors`` times over (``/m<k>/...`` is
a copy of the site: the same real pages under distinct URLs, so a scan has mirrors x 13 pages),
and for each worker count starts ``celery worker -Q crawl,match -c N`` and runs one scan of the
whole mirror through it with the politeness delay off. Between runs the page store, crawl log
and crawl keys are emptied, so every run fetches, extracts and matches every page.

Reported per run: wall time from the scan's start to its end; pages/s fetched (HTTP 200 HTML,
feeds excluded), extracted (pages with body text) and matched (match tasks done); the
scan's stage times (fetch, decode = bytes to text, extract = page text, title and date, links = outlinks,
store = MongoDB, match = engine + recording), summed over the worker processes, in milliseconds per page (wall time in
each process, so waiting for a CPU counts); the CPU time (user + system, psutil) the worker
processes and, apart, MongoDB and Redis spent during the scan, in ms per page (what another
load on the machine disturbs least); the 1-minute load average at the scan's end; the bytes per
page stored in MongoDB and Redis (``stored_bytes``) and the peak bytes per page of the scan's
Redis keys and task queues during the scan (``RedisPeak``) and the Redis commands and MongoDB
operations per page (``server_requests``), in the JSON line of each run. The machine is shared: with --repeat the runs of the worker counts are interleaved and the median run of
each is reported.

``--browser`` adds, interleaved with each plain run, a run of the same site marked "needs a
browser": every page is then rendered in headless Chromium (lib.crawl.render) by workers on the
``render`` and ``match`` queues, one Chromium per worker process; ``render`` ms/page is the
time in the browser. The pages are then served as script-rendered shells (``js_shell``: the
text is inserted by a script after load), which the plain crawler would see empty.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SITE = ROOT / "demo" / "site"
PAGES = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
               if not str(p.relative_to(SITE)).startswith(("private", "index")))


OFFSITE = re.compile(r"(?:https?:)?//(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?", re.IGNORECASE)
SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.IGNORECASE | re.DOTALL)
BODY = re.compile(r"<body[^>]*>(.*)</body", re.IGNORECASE | re.DOTALL)


def js_shell(raw: bytes) -> bytes:
    """A demo page the way a site that needs a browser serves it: an empty body and a script
    that inserts the page's body after load (as innerHTML, so the saved pages' own scripts do
    not run). Every absolute URL loses its host, so that whatever the rendering browser asks
    for goes to this server: it sends nothing beyond loopback. Returns UTF-8 bytes."""
    from lib.text import decode_bytes

    text = OFFSITE.sub("", decode_bytes(raw, "text/html").text)
    found = BODY.search(text)
    inner = found.group(1) if found else text
    head = SCRIPT.sub("", text[:found.start()] if found else "")
    script = json.dumps(SCRIPT.sub("", inner), ensure_ascii=False).replace("</", "<\\/")
    return (f"{head}<body><div id='app'></div><script>document.getElementById('app').innerHTML"
            f" = {script};</script></body></html>").encode()


class MirrorHandler(SimpleHTTPRequestHandler):
    """Serves demo/site under /m<k>/ for k < mirrors, and an index at / linking every copy."""

    mirrors = 1
    js_shells = False  # serve the pages as js_shell: the runs with --browser

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path in ("/", "/index.html"):
            links = "".join(f'<li><a href="/m{k}/{p}">{k}/{p}</a></li>'
                            for k in range(self.mirrors) for p in PAGES)
            body = f"<html><body><h1>mirror index</h1><ul>{links}</ul></body></html>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path.startswith("/m") and "/" in self.path[1:]:
            self.path = "/" + self.path[1:].split("/", 1)[1]
        page = SITE / self.path.lstrip("/").split("?")[0]
        if not self.js_shells or page.suffix != ".html" or not page.is_file():
            return super().do_GET()
        body = js_shell(page.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_mirror(mirrors: int):
    handler = type("Mirror", (MirrorHandler,), {"mirrors": mirrors})
    server = ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(SITE)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.2,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@contextlib.contextmanager
def bench_environment(prefix: str):
    """``setup_environment`` in a fresh temporary folder whose name starts with ``prefix``;
    yields the started services (embedded.Service list), stopped and the folder removed on
    leaving."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    services = setup_environment(tmp)
    try:
        yield services
    finally:
        for service in services:
            service.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def setup_environment(tmp: Path):
    """Start MongoDB and Redis, point Django at them and at a fresh SQLite file, migrate."""
    from lib.runtime import embedded

    mongo = embedded.start_mongo(tmp / "mongo", journal=False)
    redis = embedded.start_redis(tmp / "redis", persist=False)
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "tracker.settings", "TRACKER_VAR_DIR": str(tmp / "var"),
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}", "MONGO_URL": mongo.url,
        "REDIS_URL": redis.url, "MONGO_DB": "crawlbench", "TRACKER_MONGO_JOURNAL": "0",
        "CRAWLER_ALLOW_ADDRESSES": "127.0.0.1",
        "CRAWLER_DEFAULT_DELAY_SECONDS": "0", "LOG_LEVEL": "WARNING"})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return [mongo, redis]


def register_works() -> int:
    """Register the demo works straight into the engine and the Work table; returns how many."""
    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work

    works = ROOT / "demo" / "works"
    texts = {"XYJ": (works / "xiyouji-01-03.txt").read_text(encoding="utf-8"),
             "HLM": (works / "hongloumeng-01-02.txt").read_bytes().decode("gb18030")}
    for line in (works / "renmin-ribao-199801.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts[record["id"]] = record["text"]
    holder, _ = RightsHolder.objects.get_or_create(name="bench holder")
    engine = get_engine()
    for ref, text in texts.items():
        work, _ = Work.objects.get_or_create(holder=holder, reference=ref, defaults={
            "title": ref, "length": len(text), "status": "indexed", "indexed_at": timezone.now()})
        engine.add_work(work.engine_id, text)
    return len(texts)


def reset_crawl_state() -> None:
    """Drop the crawled pages, the crawl log, the stashed exchanges, the crawl keys and task
    results in Redis and the matches, then recreate the page store's and crawl log's indexes
    (dropped with their collections)."""
    from core.connections import get_mongo_db, get_redis
    from crawler import scans
    from crawler.models import Match

    db = get_mongo_db()
    for name in ("pages", "page_versions", "crawl_log", "exchanges"):
        db.drop_collection(name)
    redis = get_redis()
    for pattern in ("crawl:*", "celery-task-meta-*"):
        for key in redis.scan_iter(match=pattern, count=1000):
            redis.delete(key)
    Match.objects.all().delete()
    scans.get_crawler().ensure_indexes()


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds so far of the processes ``pids`` and of their children (a
    Celery worker's prefork pool), read with psutil; processes gone are skipped."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for proc in [root, *root.children(recursive=True)]:
                times = proc.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def stored_bytes(pages: int) -> dict:
    """Bytes per page after a scan: MongoDB's ``pages``, ``page_versions``, ``crawl_log`` and
    ``exchanges`` (collStats ``size`` + ``totalIndexSize``: BSON and indexes, before
    compression), Redis's crawl keys (``MEMORY USAGE`` of ``crawl:*``) and Celery task results
    (``celery-task-meta-*``), each divided by ``pages``."""
    from core.connections import get_mongo_db, get_redis

    db, redis, out = get_mongo_db(), get_redis(), {}
    for name in ("pages", "page_versions", "crawl_log", "exchanges"):
        stats = db.command("collStats", name)
        out[f"mongo_{name}"] = round((stats.get("size", 0) + stats.get("totalIndexSize", 0))
                                     / max(1, pages))
    for label, pattern in (("redis_crawl", "crawl:*"), ("redis_results", "celery-task-meta-*")):
        out[label] = round(sum(redis.memory_usage(k) or 0 for k in redis.scan_iter(
            match=pattern, count=1000)) / max(1, pages))
    return out


def server_requests() -> dict:
    """Requests served so far: Redis commands (``INFO commandstats`` calls, a Lua script counting
    as one ``evalsha``) and MongoDB operations (``serverStatus`` opcounters), each a total."""
    from core.connections import get_mongo_db, get_redis

    stats = get_redis().info("commandstats")
    counters = get_mongo_db().command("serverStatus")["opcounters"]
    return {"redis": sum(v["calls"] for v in stats.values()),
            "mongo": sum(int(v) for v in counters.values())}


class RedisPeak(threading.Thread):
    """Polls, every ``interval`` seconds until ``stop``, the bytes (``MEMORY USAGE``) of the
    scan's keys (``crawl:*``: seen-set, counters, finished task ids) and of the task queues
    (``queues``); ``peak`` holds the largest sum of each seen."""

    def __init__(self, queues: list[str], interval: float = 0.5):
        super().__init__(daemon=True)
        self.queues, self.interval = queues, interval
        self.peak = {"crawl_keys": 0, "queues": 0}
        self.done = threading.Event()

    def run(self):
        from core.connections import get_redis

        redis = get_redis()
        while not self.done.wait(self.interval):
            keys = sum(redis.memory_usage(k) or 0 for k in redis.scan_iter(match="crawl:*"))
            queues = sum(redis.memory_usage(q) or 0 for q in self.queues)
            self.peak = {"crawl_keys": max(self.peak["crawl_keys"], keys),
                         "queues": max(self.peak["queues"], queues)}

    def stop(self) -> dict:
        self.done.set()
        self.join()
        return self.peak


def run_once(site, workers: int, tmp: Path, timeout: float, browser: bool = False,
             capture: bool | None = None, servers: tuple[int, ...] = ()) -> dict:
    """One scan of the mirror through a fresh worker with ``workers`` processes; with
    ``browser`` the site needs a browser (its pages are rendered, on the render queue).
    ``capture`` True: evidence captures on (exchanges stashed, captures made by a second
    worker of one process on the capture queue, as production's own worker group); False:
    off (no stash, no capture requested); None: as configured (stashed and requested) with no
    capture worker here, as when the capture group runs on other machines. ``servers``: pids
    of MongoDB and Redis, whose CPU during the scan is reported beside the workers'."""
    from django.conf import settings

    from crawler import scans
    from crawler.tasks import launch
    from lib.runtime import supervisor as procs
    from tracker.celery import app

    reset_crawl_state()
    if site.needs_browser != browser:
        site.needs_browser = browser
        site.save(update_fields=["needs_browser"])
    MirrorHandler.js_shells = browser
    name = f"bench-{uuid.uuid4().hex[:6]}"
    log = tmp / f"worker-{workers}.log"
    fetch_queue = settings.QUEUE_RENDER if browser else settings.QUEUE_CRAWL
    env = procs.child_env(**({"TRACKER_CAPTURE_MIN_SCORE": "2", "CRAWLER_EXCHANGE_MAX_BYTES": "0"}
                             if capture is False else {}))
    proc = procs.start_worker(env, log, name, concurrency=workers,
                              queues=[fetch_queue, settings.QUEUE_MATCH], cwd=ROOT)
    capturer = None
    if capture:
        capturer = procs.start_worker(env, tmp / "capture.log", f"{name}-capture", concurrency=1,
                                      queues=[settings.QUEUE_CAPTURE], cwd=ROOT)
    try:
        procs.wait_until_ready(app, proc, name, log, settings.WORKER_READY_TIMEOUT_SECONDS)
        cpu_before = cpu_seconds([proc.pid]), cpu_seconds(list(servers))
        requests_before = server_requests()
        peak = RedisPeak([fetch_queue, settings.QUEUE_MATCH, settings.QUEUE_CAPTURE])
        peak.start()
        started = time.monotonic()
        scan = launch(site, trigger="bench")
        with open(os.devnull, "w") as quiet:
            scan = scans.wait_for(scan.pk, timeout, quiet)
        wall = time.monotonic() - started
        cpu_workers = cpu_seconds([proc.pid]) - cpu_before[0]
        cpu_servers = cpu_seconds(list(servers)) - cpu_before[1]
        requests = {k: v - requests_before[k] for k, v in server_requests().items()}
        redis_peak = peak.stop()
    finally:
        procs.stop(proc)
        if capturer is not None:
            procs.stop(capturer)
    stats = scans.get_crawler().frontier(scan.pk).state().stats
    html_pages = stats.get("pages_new", 0) + stats.get("pages_changed", 0) + stats.get("pages_no_text", 0)
    extracted = stats.get("pages_new", 0) + stats.get("pages_changed", 0)
    matched = stats.get("pages_matched", 0)
    per_page = {stage: round(stats.get(f"ms_{stage}", 0) / max(1, n), 1) for stage, n in (
        ("fetch", stats.get("requests", 0)), ("decode", html_pages), ("render", html_pages),
        ("extract", html_pages),
        ("links", html_pages), ("store", html_pages), ("match", matched))}
    return {"workers": workers, "browser": browser, "capture": capture, "status": scan.status, "wall_s": round(wall, 2),
            "pages": html_pages, "extracted": extracted, "matched": matched,
            "matches": stats.get("matches", 0), "errors": scan.errors,
            "pages_per_s": round(html_pages / wall, 2), "extracted_per_s": round(extracted / wall, 2),
            "matched_per_s": round(matched / wall, 2), "ms_per_page": per_page,
            "cpu_ms_per_page": round(cpu_workers * 1000 / max(1, html_pages), 2),
            # CPU per page inside the task bodies (frontier counters, microseconds); the rest of
            # the workers' CPU is Celery's: receiving, acknowledging and sending task messages
            "cpu_ms_per_page_in": {name: round(stats.get(f"cpu_us_{name}", 0) / 1000 / max(1, html_pages), 2)
                                   for name in ("crawl", "extract", "match", "engine")},
            "server_cpu_ms_per_page": round(cpu_servers * 1000 / max(1, html_pages), 2),
            # round trips per page (the bench's own polling included: RedisPeak, wait_for)
            "requests_per_page": {k: round(v / max(1, html_pages), 1) for k, v in requests.items()},
            "load_average": round(os.getloadavg()[0], 2),
            "bytes_per_page": {**stored_bytes(html_pages), **{
                f"redis_peak_{k}": round(v / max(1, html_pages)) for k, v in redis_peak.items()}}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=int, default=20, help="copies of the demo site (13 pages each)")
    parser.add_argument("--workers", default="1,2,4", help="worker process counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="runs per worker count (median reported)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one scan may take")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (worker logs)")
    parser.add_argument("--browser", action="store_true",
                        help="also scan with every page rendered in Chromium (interleaved)")
    parser.add_argument("--capture", action="store_true",
                        help="runs with evidence capture off, requested (no capture worker here) "
                             "and on, interleaved (pages/s of each)")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.workers.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="crawl-bench-"))
    services = setup_environment(tmp)
    server, base = serve_mirror(args.mirrors)
    try:
        from crawler.sites import register_site

        n_works = register_works()
        site, _ = register_site("bench mirror", [base + "/"], delay_seconds=0, update=True,
                                max_pages=args.mirrors * len(PAGES) + 10, max_depth=1,
                                path_patterns=[r"^/$", r"^/m\d+/(news|reprint)/[\w-]+\.html$"])
        print(f"demo site x{args.mirrors}: {args.mirrors * len(PAGES)} pages; {n_works} works indexed; "
              f"machine: {os.cpu_count()} cores", flush=True)
        modes = [False, True] if args.browser else [False]
        captures = [False, None, True] if args.capture else [None]
        runs: dict[tuple, list[dict]] = {(w, b, c): [] for w in counts for b in modes
                                         for c in captures}
        for _ in range(args.repeat):  # interleaved, so that a change of load hits every count alike
            for key in runs:
                runs[key].append(run_once(site, key[0], tmp, args.timeout, key[1], key[2],
                                          tuple(s.pid for s in services)))
                print(json.dumps(runs[key][-1], ensure_ascii=False), flush=True)
        rows = []
        for done in runs.values():
            row = sorted(done, key=lambda r: r["wall_s"])[len(done) // 2]
            row["wall_s_all"] = [r["wall_s"] for r in done]
            rows.append(row)
        stages = ("fetch", "decode", "render", "extract", "links", "store", "match")
        print("\n| workers | browser | capture | pages | wall s | pages/s crawled | extracted/s | matched/s | "
              + " | ".join(f"{s} ms/page" for s in stages)
              + " | worker CPU ms/page | of which crawl task (extract) | match task (engine) "
              "| Celery | MongoDB+Redis CPU ms/page | load | matches |")
        print("|---|---|---|---|---|---|---|---|" + "---|" * len(stages) + "---|---|---|---|---|---|---|")
        for r in rows:
            ms, cpu = r["ms_per_page"], r["cpu_ms_per_page_in"]
            capture = {None: "requested", True: "on", False: "off"}[r["capture"]]
            print(f"| {r['workers']} | {'yes' if r['browser'] else 'no'} | {capture} | {r['pages']} | {r['wall_s']} | {r['pages_per_s']} | "
                  f"{r['extracted_per_s']} | {r['matched_per_s']} | "
                  + " | ".join(str(ms.get(s, "")) for s in stages)
                  + f" | {r['cpu_ms_per_page']} | {cpu['crawl']} ({cpu['extract']}) | "
                  f"{cpu['match']} ({cpu['engine']}) | "
                  f"{round(r['cpu_ms_per_page'] - cpu['crawl'] - cpu['match'], 2)} | "
                  f"{r['server_cpu_ms_per_page']} | {r['load_average']} | {r['matches']} |")
        out = ROOT / "bench" / "results"
        out.mkdir(exist_ok=True)
        (out / "crawl_bench.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
        print(f"\nsaved to {out / 'crawl_bench.json'}")
    finally:
        server.shutdown()
        for service in services:
            service.stop()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
