"""Dashboard load test: concurrent reviewers on a full database while a scan runs.

    .venv/bin/python -m bench.dashboard_load                       # 20 clients, 60 s
    .venv/bin/python -m bench.dashboard_load --clients 10 --seconds 30 --works 500 --matches 5000

Everything runs on this machine and only on loopback. The script starts its own PostgreSQL,
MongoDB and Redis (lib/runtime/embedded.py) in a temporary folder, migrates, and seeds rights
holders with one user each, a staff user, ``--works`` works and ``--matches`` matches with
their page versions (bench/load_seed.py says how). It then starts what production runs: the
dashboard under gunicorn (``--web-workers`` processes, as in the Dockerfile) on 127.0.0.1, a
Celery worker on every queue, and serves the demo site ``--mirrors`` times over on 127.0.0.1
(bench/crawl_bench.py's mirror), whose scan it starts; the demo works are registered, so the
scan records matches while the load runs.

``--clients`` threads, each a ``requests.Session`` logged in through the dashboard's login
form (a quarter as the staff user, the others as holder users), loop for ``--seconds`` over:
the match list, the match list with random filters (review status, score band, domain,
first-seen date range), a search, the evidence page of a random match the user may see, the
works list and the overview. The load is bounded by time, by ``--max-requests`` in all and by
hard caps (MAX_CLIENTS, MAX_SECONDS, MAX_REQUESTS); every URL must be on a loopback address
and redirects are never followed (a redirect counts as an error), so nothing leaves the machine.

Reported per page kind: requests, errors (any answer other than HTTP 200, an exception, or an
evidence page saying that part of the evidence could not be loaded; the first few are listed),
median and 95th percentile latency in milliseconds under the load, and what one such page
costs alone, measured afterwards in this process as the staff user while the scan goes on
(``page_costs``: median milliseconds of 5 pages, SQL queries counted with
django.test.utils.CaptureQueriesContext, size in KB); in all: requests per second, the machine's load
average during the run, the scan's progress, and how long seeding took. Printed as Markdown
and written as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MAX_CLIENTS = 64  # hard caps, whatever the flags say
MAX_SECONDS = 600
MAX_REQUESTS = 200_000
REQUEST_TIMEOUT_SECONDS = 60
SLOW_P95_MS = 2000  # a page kind slower than this at the 95th percentile is flagged
ERRORS_KEPT = 10  # errors listed in the report
# How the evidence page lists a part of the evidence it could not load (evidence.html).
EVIDENCE_PROBLEM = b'<li class="error">'
PAGE_KINDS = ("match list", "match list filtered", "search", "evidence", "works list",
              "overview")


class NotLoopback(ValueError):
    """A URL the load test refuses: not http(s), or its host is not a loopback IP address."""


def require_loopback(url: str) -> str:
    """``url`` without a trailing slash when it is http(s) on a loopback IP address literal
    (127.0.0.0/8 or ::1); host names are refused, so no resolver can send the load elsewhere.

    Raises:
        NotLoopback: any other URL.
    """
    parts = urlsplit(url)
    try:
        loopback = ipaddress.ip_address(parts.hostname or "").is_loopback
    except ValueError:
        loopback = False
    if parts.scheme not in ("http", "https") or not loopback:
        raise NotLoopback(f"refusing {url!r}: the load test sends requests only to a loopback "
                          "IP address (127.0.0.1 or ::1)")
    return url.rstrip("/")


@dataclass
class Plan:
    """What the clients ask for: ``logins`` ({username: holder id or None for staff}),
    ``password``, ``match_ids`` ({holder id or None: ids the user may see}), ``domains``,
    ``terms`` (search words), ``days`` (first-seen dates, ISO, to draw ranges from)."""

    logins: dict[str, int | None]
    password: str
    match_ids: dict[int | None, list[int]]
    domains: list[str]
    terms: list[str]
    days: list[str]

    def url(self, kind: str, holder: int | None, rng: random.Random) -> str:
        """The path (with query) of one page of ``kind`` for a user of ``holder``."""
        if kind == "match list":
            return "/crawler/match/"
        if kind == "match list filtered":
            choices = {
                "review_status__exact": lambda: rng.choice(["new", "confirmed", "false_positive"]),
                "score": lambda: rng.choice(["80", "50", "20", "0"]),
                "domain": lambda: rng.choice(self.domains),
                "first_seen_from": None,
            }
            query = {}
            for name in rng.sample(sorted(choices), rng.randint(1, 3)):
                if name == "first_seen_from":
                    start = rng.randrange(len(self.days))
                    query["first_seen_from"] = self.days[start]
                    query["first_seen_to"] = self.days[min(len(self.days) - 1, start + 30)]
                else:
                    query[name] = choices[name]()
            return "/crawler/match/?" + urlencode(query)
        if kind == "search":
            return "/crawler/match/?" + urlencode({"q": rng.choice(self.terms)})
        if kind == "evidence":
            return f"/crawler/match/{rng.choice(self.match_ids[holder])}/change/"
        if kind == "works list":
            return "/core/work/"
        return "/"


@dataclass
class Tally:
    """Shared by the client threads: latencies (ms) per page kind, errors, the request
    budget."""

    budget: int
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in PAGE_KINDS})
    errors: dict[str, int] = field(default_factory=lambda: {k: 0 for k in PAGE_KINDS})
    examples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> bool:
        """Spend one request of the budget; False when none is left."""
        with self.lock:
            if self.budget <= 0:
                return False
            self.budget -= 1
            return True

    def record(self, kind: str, ms: float, error: str | None) -> None:
        with self.lock:
            self.latencies[kind].append(ms)
            if error:
                self.errors[kind] += 1
                if len(self.examples) < ERRORS_KEPT:
                    self.examples.append(f"{kind}: {error}")


def login(base: str, username: str, password: str):
    """A requests.Session logged in to the dashboard at ``base`` through its login form.

    Raises:
        RuntimeError: the login was refused.
    """
    import requests

    session = requests.Session()
    session.get(f"{base}/login/", timeout=REQUEST_TIMEOUT_SECONDS, allow_redirects=False)
    answer = session.post(f"{base}/login/", timeout=REQUEST_TIMEOUT_SECONDS, allow_redirects=False,
                          data={"username": username, "password": password, "next": "/",
                                "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")})
    if answer.status_code != 302 or "sessionid" not in session.cookies:
        raise RuntimeError(f"login of {username} refused (HTTP {answer.status_code})")
    return session


def client(base: str, username: str, plan: Plan, tally: Tally, deadline: float,
           seed: int) -> None:
    """One reviewer: log in, then request the page kinds in turn (each page drawn at random)
    until ``deadline`` (time.monotonic()) or the budget is spent."""
    rng = random.Random(seed)
    holder = plan.logins[username]
    session = login(base, username, plan.password)
    kinds = list(PAGE_KINDS)
    rng.shuffle(kinds)
    turn = 0
    while time.monotonic() < deadline and tally.take():
        kind = kinds[turn % len(kinds)]
        turn += 1
        url = base + plan.url(kind, holder, rng)
        started = time.perf_counter()
        error = None
        try:
            answer = session.get(url, timeout=REQUEST_TIMEOUT_SECONDS, allow_redirects=False)
            if answer.status_code != 200:
                error = f"HTTP {answer.status_code} {url}"
            elif kind == "evidence" and EVIDENCE_PROBLEM in answer.content:
                error = f"evidence incomplete (a stored part is missing) {url}"
        except Exception as exc:  # any failure of the request is an error of the run
            error = f"{type(exc).__name__}: {exc} {url}"
        tally.record(kind, (time.perf_counter() - started) * 1000, error)


def run_load(base: str, plan: Plan, clients: int, seconds: float, max_requests: int) -> dict:
    """``clients`` reviewer threads on the dashboard at ``base`` for ``seconds`` seconds or
    ``max_requests`` requests in all, whichever comes first.

    Returns:
        {"seconds", "requests", "errors", "per_page": {kind: {"requests", "errors",
        "median_ms", "p95_ms"}}, "error_examples", "load_average": {"mean", "max"}}.

    Raises:
        NotLoopback: ``base`` is not on a loopback address (checked before any request).
        ValueError: a count or duration beyond the caps.
    """
    base = require_loopback(base)
    if not (1 <= clients <= MAX_CLIENTS and 0 < seconds <= MAX_SECONDS
            and 1 <= max_requests <= MAX_REQUESTS):
        raise ValueError(f"clients 1..{MAX_CLIENTS}, seconds up to {MAX_SECONDS}, requests "
                         f"1..{MAX_REQUESTS}")
    tally = Tally(budget=max_requests)
    names = [u for u, h in plan.logins.items() if h is None]
    holders = [u for u, h in plan.logins.items() if h is not None and plan.match_ids.get(h)]
    users = [names[0] if i % 4 == 0 or not holders else holders[i % len(holders)]
             for i in range(clients)]
    started = time.monotonic()
    deadline = started + seconds
    threads = [threading.Thread(target=client, args=(base, user, plan, tally, deadline, i),
                                daemon=True) for i, user in enumerate(users)]
    for thread in threads:
        thread.start()
    loads = []
    while any(t.is_alive() for t in threads):
        loads.append(os.getloadavg()[0])
        for thread in threads:
            thread.join(timeout=5 / len(threads))
    wall = time.monotonic() - started
    per_page = {}
    for kind, values in tally.latencies.items():
        ordered = sorted(values)
        per_page[kind] = {
            "requests": len(ordered), "errors": tally.errors[kind],
            "median_ms": round(statistics.median(ordered)) if ordered else None,
            "p95_ms": round(ordered[math.ceil(0.95 * len(ordered)) - 1]) if ordered else None}
    total = sum(p["requests"] for p in per_page.values())
    return {"seconds": round(wall, 1), "clients": clients, "requests": total,
            "errors": sum(tally.errors.values()), "requests_per_s": round(total / wall, 1),
            "per_page": per_page, "error_examples": tally.examples,
            "load_average": {"mean": round(statistics.mean(loads), 2) if loads else None,
                             "max": round(max(loads), 2) if loads else None}}


def build_plan(seeded) -> Plan:
    """The clients' Plan from the seeded database (bench.load_seed.Seeded)."""
    from django.db.models.functions import TruncDate

    from bench.load_seed import PASSWORD
    from core.models import Work
    from crawler.models import Match

    match_ids: dict[int | None, list[int]] = {None: []}
    for pk, holder in Match.objects.values_list("pk", "work__holder_id"):
        match_ids[None].append(pk)
        match_ids.setdefault(holder, []).append(pk)
    domains = list(Match.objects.values_list("domain", flat=True).distinct()[:100])
    novels = {title.split(" ")[0] for title in Work.objects.values_list("title", flat=True)}
    days = sorted(str(d) for d in Match.objects.annotate(day=TruncDate("first_seen"))
                  .values_list("day", flat=True).distinct())
    return Plan(seeded.users, PASSWORD, match_ids, domains,
                sorted(novels)[:200] + domains[:20], days)


def page_costs(plan: Plan, repeat: int = 5, rng_seed: int = 0) -> dict[str, dict]:
    """What one page of each kind costs alone, as the staff user, in this process (the Django
    test client, no network, no other client), over ``repeat`` pages of the kind after one
    page to warm the caches (content types, permissions).

    Returns:
        {kind: {"queries": SQL queries of the last page (CaptureQueriesContext), "alone_ms":
        median milliseconds, "kb": median size of the HTML in kilobytes}}; "queries" is minus
        the HTTP status when a page did not answer 200.
    """
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench.load_seed import STAFF_USERNAME

    web = Client(HTTP_HOST="127.0.0.1")
    web.force_login(get_user_model().objects.get(username=STAFF_USERNAME))
    rng = random.Random(rng_seed)
    costs = {}
    for kind in PAGE_KINDS:
        web.get(plan.url(kind, None, rng))
        times, sizes = [], []
        for _ in range(repeat):
            url = plan.url(kind, None, rng)
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                answer = web.get(url)
                times.append((time.perf_counter() - started) * 1000)
            sizes.append(len(answer.content) / 1000)
        costs[kind] = {"queries": len(queries) if answer.status_code == 200
                       else -answer.status_code,
                       "alone_ms": round(statistics.median(times)),
                       "kb": round(statistics.median(sizes))}
    return costs


def start_servers(tmp: Path, services: list) -> None:
    """PostgreSQL, MongoDB and Redis under ``tmp`` (each appended to ``services`` once
    started, for the caller to stop), exported in the environment with the settings this run
    needs; then Django is set up and migrated."""
    from lib.runtime import embedded

    services.append(embedded.start_postgres(tmp / "postgres", durable=False))
    services.append(embedded.start_mongo(tmp / "mongo", journal=False))
    services.append(embedded.start_redis(tmp / "redis", persist=False))
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "tracker.settings", "TRACKER_VAR_DIR": str(tmp / "var"),
        "DATABASE_URL": services[0].url, "MONGO_URL": services[1].url,
        "REDIS_URL": services[2].url, "TRACKER_MONGO_JOURNAL": "0",
        "CRAWLER_ALLOW_ADDRESSES": "127.0.0.1",
        "LOG_LEVEL": "WARNING"})
    (tmp / "var" / "static").mkdir(parents=True)  # STATIC_ROOT, served by WhiteNoise
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def start_web(tmp: Path, workers: int):
    """gunicorn serving tracker.wsgi on a free loopback port with ``workers`` processes (the
    Dockerfile's server). Returns (Popen, base URL) once /healthz answers.

    Raises:
        RuntimeError: it did not answer within 60 seconds.
    """
    import requests

    from lib.runtime import embedded
    from lib.runtime import supervisor as procs

    port = embedded.free_port()
    log = tmp / "gunicorn.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "tracker.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--timeout", "120", "--error-logfile", str(log)],
        env=procs.child_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        preexec_fn=procs.die_with_parent)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:  # a worker's first answer waits for it to import the project
            if requests.get(f"{base}/healthz", timeout=30).status_code == 200:
                return proc, base
        except requests.RequestException:
            pass
        time.sleep(0.5)
    procs.stop(proc)
    raise RuntimeError(f"gunicorn did not answer: {log.read_text()[-2000:] if log.exists() else ''}")


def start_scan(mirrors: int):
    """Serve the demo site ``mirrors`` times over on loopback and start a scan of it.
    Returns (HTTP server, ScanRun)."""
    from bench.crawl_bench import PAGES, serve_mirror
    from crawler.sites import register_site
    from crawler.tasks import launch

    server, site_base = serve_mirror(mirrors)
    site, _ = register_site("load mirror", [require_loopback(site_base) + "/"], delay_seconds=0,
                            max_pages=mirrors * len(PAGES) + 10, max_depth=1,
                            path_patterns=[r"^/$", r"^/m\d+/(news|reprint)/[\w-]+\.html$"])
    return server, launch(site, trigger="bench")


def scan_figures(scan_id: int) -> dict:
    """Where scan ``scan_id`` stands: {"id", "status", "seconds" (since it started),
    "pages_fetched", "matches_found"}; a running scan's figures are read live (Redis)."""
    from crawler.models import ScanRun, ScanStatus
    from crawler.scans import live_figures

    run = ScanRun.objects.get(pk=scan_id)
    figures = (live_figures(run.pk) if run.status == ScanStatus.RUNNING else
               {"pages_fetched": run.pages_fetched, "matches_found": run.matches_found})
    end = run.finished_at.timestamp() if run.finished_at else time.time()
    return {"id": run.pk, "status": run.status, "seconds": round(end - run.started_at.timestamp()),
            "pages_fetched": figures["pages_fetched"], "matches_found": figures["matches_found"]}


def markdown(report: dict) -> str:
    """The report as a Markdown table and a summary line."""
    load = report["load"]
    lines = ["| page | requests | errors | median ms | p95 ms | alone ms | SQL queries | KB |",
             "|---|---|---|---|---|---|---|---|"]
    for kind, row in load["per_page"].items():
        slow = " (slow)" if row["p95_ms"] and row["p95_ms"] > SLOW_P95_MS else ""
        alone = report["alone"][kind]
        lines.append(f"| {kind} | {row['requests']} | {row['errors']} | {row['median_ms']} | "
                     f"{row['p95_ms']}{slow} | {alone['alone_ms']} | {alone['queries']} | "
                     f"{alone['kb']} |")
    scan = report["scan"]
    lines.append(f"\n{load['clients']} clients, {load['seconds']} s: {load['requests']} requests "
                 f"({load['requests_per_s']}/s), {load['errors']} errors; load average "
                 f"{load['load_average']['mean']} (max {load['load_average']['max']}) on "
                 f"{os.cpu_count()} cores. Scan #{scan['id']}, started with the load: "
                 f"{scan['status']} after {scan['seconds']} s, {scan['pages_fetched']} pages "
                 f"fetched, {scan['matches_found']} matches. Seeding: "
                 f"{report['seed']['seconds']} s.")
    lines += [f"- {example}" for example in load["error_examples"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help=f"concurrent clients (at most {MAX_CLIENTS})")
    parser.add_argument("--seconds", type=float, default=60, help=f"duration (at most {MAX_SECONDS})")
    parser.add_argument("--max-requests", type=int, default=50_000,
                        help=f"requests in all (at most {MAX_REQUESTS})")
    parser.add_argument("--works", type=int, default=2000, help="works seeded (plus the 3 demo works)")
    parser.add_argument("--matches", type=int, default=20_000, help="matches seeded")
    parser.add_argument("--holders", type=int, default=20, help="rights holders (one user each)")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--mirrors", type=int, default=60, help="copies of the demo site scanned")
    parser.add_argument("--data", type=Path, default=None, help="folder of the shared data")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "dashboard_load.json")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    args = parser.parse_args(argv)
    if not (1 <= args.clients <= MAX_CLIENTS and 0 < args.seconds <= MAX_SECONDS
            and 1 <= args.max_requests <= MAX_REQUESTS):
        parser.error(f"--clients 1..{MAX_CLIENTS}, --seconds up to {MAX_SECONDS}, "
                     f"--max-requests 1..{MAX_REQUESTS}")
    from bench.corpus import DATA_DIR

    tmp = Path(tempfile.mkdtemp(prefix="dashboard-load-"))
    services, procs_started, site_server = [], [], None
    try:
        start_servers(tmp, services)
        from django.conf import settings

        from bench import load_seed
        from lib.runtime import supervisor
        from tracker.celery import app

        seeded = load_seed.seed(args.data or DATA_DIR, args.works, args.matches, args.holders)
        print(f"seeded {seeded.works} works, {seeded.matches} matches in "
              f"{sum(seeded.seconds.values()):.0f} s {seeded.seconds}", flush=True)
        plan = build_plan(seeded)
        worker = supervisor.start_worker(supervisor.child_env(), tmp / "celery-worker.log", "load",
                                         queues=settings.WORKER_QUEUES, cwd=ROOT)
        procs_started.append(worker)
        supervisor.wait_until_ready(app, worker, "load", tmp / "celery-worker.log",
                                    settings.WORKER_READY_TIMEOUT_SECONDS)
        web, base = start_web(tmp, args.web_workers)
        procs_started.append(web)
        site_server, scan = start_scan(args.mirrors)
        print(f"dashboard {base}, scan #{scan.pk} running; {args.clients} clients for "
              f"{args.seconds:.0f} s ...", flush=True)
        load = run_load(base, plan, args.clients, args.seconds, args.max_requests)
        report = {
            "load": load, "scan": scan_figures(scan.pk), "alone": page_costs(plan),
            "seed": {"works": seeded.works, "matches": seeded.matches,
                     "holders": len(seeded.holders), "seconds": round(sum(seeded.seconds.values())),
                     "steps_s": seeded.seconds},
            "web_workers": args.web_workers, "cores": os.cpu_count()}
        print("\n" + markdown(report))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1))
        print(f"\nsaved to {args.out}")
        return 1 if load["errors"] else 0
    finally:
        if site_server is not None:
            site_server.shutdown()
        from lib.runtime import supervisor

        for proc in reversed(procs_started):
            supervisor.stop(proc)
        for service in reversed(services):
            service.stop()
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
