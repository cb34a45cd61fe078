"""`make run`: the whole platform on one machine, data under TRACKER_VAR_DIR (default ./var).

Starts PostgreSQL, MongoDB and Redis (lib.runtime.embedded; each skipped when DATABASE_URL /
MONGO_URL / REDIS_URL is set) and records their URLs in TRACKER_VAR_DIR/run.env, where the
settings of every other process (a ``manage.py`` command in a second terminal) find them;
then the demo time-stamping authority on loopback (not accredited; unless TRACKER_TSA_URLS is
set), the demo RDAP server on http://127.0.0.1:8933 (DEMO_RDAP_PORT; unless
TRACKER_RDAP_BOOTSTRAP_URL is set), the demo search engine on http://127.0.0.1:8935
(DEMO_SEARCH_PORT; unless TRACKER_SEARCH_PROVIDERS is set), a Celery worker (all queues) and
beat, the bundled demo site on http://127.0.0.1:8931 (DEMO_SITE_PORT), the demo platform's site
on http://localhost:8932 (DEMO_PLATFORM_PORT) and the unlisted demo site on
http://127.0.0.2:8934 (DEMO_UNLISTED_PORT, found by web search only), applies migrations,
runs ``manage.py demo`` (demo accounts, demo works, the main job: a scan of the demo site, a
summary), then serves the dashboard on
http://127.0.0.1:8000 (TRACKER_PORT) until Ctrl-C, and stops everything it started. A second
run continues with the same data. After a run was killed (SIGKILL, a crash), the next one
reuses the servers it left running, stops the worker, beat and web server it left behind
(recorded in TRACKER_VAR_DIR/run.pids), and ignores lock and pid files whose process is gone
or is another program.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import django
from django.conf import settings
from django.core.management import call_command

from crawler import demo, demo_search
from crawler.platform_registry import check_registry
from lib.crawl import rdap_server
from lib.evidence.demo_tsa import LABEL, DemoTsaError, start_demo_tsa
from lib.runtime import embedded, supervisor
from lib.text.untrusted import ascii_int
from tracker.celery import app as celery_app

BASE_DIR = Path(__file__).resolve().parent.parent
#: Seconds a process left behind by a killed run has to exit after SIGTERM before SIGKILL.
LEFTOVER_STOP_SECONDS = 20.0
#: What VAR/run.env records for commands in a second terminal (tracker.settings reads it).
#: SITE_URL: the dashboard's address with the run's port, for the links commands build.
RUN_ENV_VARIABLES = ("DATABASE_URL", "MONGO_URL", "REDIS_URL", "TRACKER_TSA_URLS",
                     "TRACKER_TSA_TRUSTED_CERTS", "TRACKER_SEARCH_PROVIDERS", "SITE_URL")


class RunError(RuntimeError):
    """`make run` cannot start: another run uses the data folder, or the port is taken."""


def _take_run_lock(var: Path) -> Path:
    """Write VAR/run.pid, refusing when a live `make run` already holds it."""
    var.mkdir(parents=True, exist_ok=True)
    lock = var / "run.pid"
    try:
        pid = int(lock.read_text())
        # A pid reused by another program after a killed run is not a live `make run`.
        if b"tracker.run" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            raise ProcessLookupError(pid)
        if pid != os.getpid():
            raise RunError(f"another `make run` (pid {pid}) is using {var}; stop it first "
                           "(Ctrl-C in its terminal) or set TRACKER_VAR_DIR to another folder")
    except (OSError, ValueError):
        pass  # no lock, or its process is gone
    lock.write_text(str(os.getpid()))
    return lock


def _start_time(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat field 22), None
    when it is gone or a zombie: with the pid it names one process, even after the pid is
    reused."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def _record_children(var: Path, procs: dict[str, subprocess.Popen]) -> None:
    """Write VAR/run.pids: "PID START_TIME NAME" of each process this run started (``procs``:
    name without spaces -> process), for the next run to stop them if this one is killed."""
    lines = [f"{proc.pid} {_start_time(proc.pid)} {name}\n" for name, proc in procs.items()
             if _start_time(proc.pid)]
    (var / "run.pids").write_text("".join(lines))


def _descendants(pid: int) -> list[int]:
    """Process ids of the children of ``pid``, their children, and so on (from /proc)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def stop_leftovers(var: Path) -> list[str]:
    """Stop the processes a killed run left behind (VAR/run.pids: Celery worker and its pool,
    beat, web server, demo site, still running under no supervision): SIGTERM, then SIGKILL
    after LEFTOVER_STOP_SECONDS. A recorded pid now used by another process is left alone.

    Returns:
        "NAME (pid N)" of each process stopped (list of str), NAME as in run.pids
        ("celery-worker", "web-server", ...); empty when none was left.
    """
    try:
        lines = (var / "run.pids").read_text().splitlines()
    except OSError:
        return []
    left: dict[int, str] = {}
    for line in lines:
        pid, started, name = (line.split() + ["", "", ""])[:3]
        if ascii_int(pid) is not None and started and _start_time(ascii_int(pid)) == started:
            left[int(pid)] = name
    pids = list(left) + [child for pid in left for child in _descendants(pid)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
                os.kill(pid, signal.SIGCONT)  # a stopped process acts on SIGTERM only then
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + LEFTOVER_STOP_SECONDS
        while time.monotonic() < deadline and any(_start_time(pid) for pid in pids):
            time.sleep(0.1)
    (var / "run.pids").unlink(missing_ok=True)
    return [f"{name} (pid {pid})" for pid, name in left.items()]


def sqlite_notice(var: Path) -> str | None:
    """How to move VAR/db.sqlite3 (the SQLite database of releases before PostgreSQL became
    the default) into PostgreSQL, or None when there is no such file (str)."""
    old = var / "db.sqlite3"
    if not old.exists():
        return None
    return (f"{old} holds the SQLite database of an earlier release; it is not used any more. "
            "To move its data into PostgreSQL, with this `make run` running, in a second "
            "terminal:\n"
            f"  DATABASE_URL=sqlite:///{old} .venv/bin/python manage.py migrate\n"
            f"  DATABASE_URL=sqlite:///{old} .venv/bin/python manage.py dumpdata --natural-foreign"
            f" --natural-primary -e contenttypes -e auth.permission -e sessions -o {var}/sqlite.json\n"
            "  .venv/bin/python manage.py flush --no-input   # the demo data made by this run\n"
            f"  .venv/bin/python manage.py loaddata {var}/sqlite.json\n"
            f"  mv {old} {old}.moved")


def record_run(var: Path, port: int) -> Path:
    """Write VAR/run.env (mode 0600: it holds the database password): NAME=value lines of the
    servers, the time-stamping authority and the dashboard's address (SITE_URL, on ``port``
    unless set) this run uses (RUN_ENV_VARIABLES, from os.environ), read by tracker.settings
    in every process that has no such variable set. Sets SITE_URL in os.environ when unset.
    Returns the file's path."""
    os.environ.setdefault("SITE_URL", f"http://127.0.0.1:{port}")
    urls = {name: os.environ[name] for name in RUN_ENV_VARIABLES if os.environ.get(name)}
    path = var / "run.env"
    tmp = path.with_suffix(".tmp")
    tmp.write_text("# Written by `make run` (tracker.run); removed when it stops.\n"
                   + "".join(f"{name}={url}\n" for name, url in urls.items()))
    tmp.chmod(0o600)
    os.replace(tmp, path)
    return path


def _check_port(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the web server binds: connections of an earlier run in TIME_WAIT do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise RunError(f"port {port} on 127.0.0.1 is in use ({exc.strerror}); set "
                           "TRACKER_PORT to a free port") from exc


def _start_demo_tsa(var: Path):
    """Unless TRACKER_TSA_URLS names time-stamping authorities, start the demo one on loopback
    (lib.evidence.demo_tsa: not accredited, labelled so in its certificate) and point
    this process and its children at it. Returns its stop function, or None."""
    if os.environ.get("TRACKER_TSA_URLS"):
        return None

    try:
        tsa = start_demo_tsa(var / "demo-tsa")
    except DemoTsaError as exc:
        print(f"make run: no demo time-stamping authority ({exc}): evidence bundles will say "
              "\"no trusted timestamp\"", file=sys.stderr, flush=True)
        return None
    os.environ["TRACKER_TSA_URLS"] = tsa.url
    os.environ["TRACKER_TSA_TRUSTED_CERTS"] = str(tsa.ca_cert_path)
    print(f"{LABEL}: {tsa.url} (root certificate {tsa.ca_cert_path}; "
          f"verify_evidence FILE.wacz --tsa-cert {tsa.ca_cert_path})", flush=True)
    return tsa.stop


def _start_demo_rdap():
    """Unless TRACKER_RDAP_BOOTSTRAP_URL is set, serve the demo RDAP and bootstrap server on
    127.0.0.1:DEMO_RDAP_PORT (lib.crawl.rdap_server: it answers for the demo sites, 127.0.0.1
    and localhost) and point this process and its children at it, with the demo platform of
    the platforms' registry on. Returns its stop function, or None."""
    if os.environ.get("TRACKER_RDAP_BOOTSTRAP_URL"):
        return None

    port = int(os.environ.setdefault("DEMO_RDAP_PORT", str(demo.RDAP_PORT)))
    try:
        server = rdap_server.serve(port, demo=True)
    except OSError as exc:
        print(f"make run: no demo RDAP server on port {port} ({exc.strerror}): the RDAP "
              "lookups of the demo sites will fail", file=sys.stderr, flush=True)
        return None
    os.environ["TRACKER_RDAP_BOOTSTRAP_URL"] = server.url + "/"
    os.environ.setdefault("TRACKER_PLATFORM_REGISTRY_DEMO", "1")
    print(f"Demo RDAP server (registrar and hosting provider of the demo sites): {server.url}/",
          flush=True)
    return server.stop


def _start_demo_search():
    """Unless TRACKER_SEARCH_PROVIDERS is set, serve the demo search engine on
    127.0.0.1:DEMO_SEARCH_PORT (crawler.demo_search: the pages of the demo site, the demo
    platform's site and the unlisted demo site, on their DEMO_*_PORT) and point this process
    and its children at it. Returns its stop function, or None."""
    if os.environ.get("TRACKER_SEARCH_PROVIDERS"):
        return None
    port = int(os.environ.setdefault("DEMO_SEARCH_PORT", str(demo_search.SEARCH_PORT)))
    sites = [(f"http://127.0.0.1:{_demo_port('DEMO_SITE_PORT', demo.DEFAULT_PORT)}", demo.SITE_DIR),
             (f"http://localhost:{_demo_port('DEMO_PLATFORM_PORT', demo.PLATFORM_PORT)}",
              demo.PLATFORM_DIR),
             (f"http://{demo_search.UNLISTED_HOST}:"
              f"{_demo_port('DEMO_UNLISTED_PORT', demo_search.UNLISTED_PORT)}",
              demo_search.UNLISTED_DIR)]
    try:
        service, url = demo_search.serve_search(port, sites)
    except OSError as exc:
        print(f"make run: no demo search engine on port {port} ({exc.strerror}): "
              "`manage.py discover --search` will have no provider", file=sys.stderr, flush=True)
        return None
    os.environ["TRACKER_SEARCH_PROVIDERS"] = f"searxng={url}"
    print(f"Demo search engine (the demo sites' pages, for `manage.py discover --search`): {url}/",
          flush=True)
    return service.stop


def _demo_port(variable: str, default: int) -> str:
    """The port in ``variable`` (set to ``default`` when unset), as the demo sites use it."""
    return os.environ.setdefault(variable, str(default))


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _supervise(procs: dict[str, subprocess.Popen]) -> int:
    """Wait until one of ``procs`` (name -> process) exits; say which and return its status."""
    while True:
        for name, proc in procs.items():
            if proc.poll() is not None:
                print(f"make run: the {name} exited with status {proc.returncode}; stopping "
                      "everything (its log is under TRACKER_VAR_DIR/log)", file=sys.stderr)
                return proc.returncode or 1
        time.sleep(1)


@dataclass
class _Started:
    """What this run started, for ``stop_all``: the embedded servers, the child processes
    (name without spaces -> process, as VAR/run.pids records them) and the stop functions of
    the demo servers it serves itself."""
    services: list[embedded.Service] = field(default_factory=list)
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)
    stops: list[Callable[[], None] | None] = field(default_factory=list)

    def add_proc(self, var: Path, name: str, proc: subprocess.Popen) -> subprocess.Popen:
        """Keep ``proc`` as ``name``, record it in VAR/run.pids, and return it."""
        self.procs[name] = proc
        _record_children(var, self.procs)
        return proc

    def stop_all(self, var: Path) -> None:
        """Stop everything started, last first: the processes, the demo servers, then the
        embedded servers; remove VAR/run.pids and VAR/run.env."""
        for proc in reversed(self.procs.values()):
            supervisor.stop(proc)
        for stop_server in self.stops:
            if stop_server is not None:
                stop_server()
        (var / "run.pids").unlink(missing_ok=True)
        for service in reversed(self.services):
            service.stop()
        (var / "run.env").unlink(missing_ok=True)


def _prepare_environment() -> tuple[Path, int]:
    """Set this run's defaults in os.environ (TRACKER_VAR_DIR, the settings module, filmed
    captures) and return (the data folder, absolute; the dashboard's port, TRACKER_PORT)."""
    var = Path(os.environ.get("TRACKER_VAR_DIR", BASE_DIR / "var")).resolve()
    os.environ["TRACKER_VAR_DIR"] = str(var)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")
    os.environ.setdefault("TRACKER_CAPTURE_SCREEN_RECORDING", "1")  # the demo films its captures
    return var, int(os.environ.get("TRACKER_PORT", "8000"))


def _claim(var: Path, port: int) -> Path:
    """Take the run lock (VAR/run.pid), stop what a killed run left running and check that
    ``port`` is free. Returns the lock's path; raises RunError when the run cannot start."""
    lock = _take_run_lock(var)
    stopped = stop_leftovers(var)
    if stopped:
        print(f"make run: stopped what a killed run left running: {', '.join(stopped)}",
              file=sys.stderr, flush=True)
    _check_port(port)
    return lock


def _start_servers(var: Path, started: _Started) -> None:
    """Start the embedded PostgreSQL, MongoDB and Redis whose URL is not set (each appended
    to ``started.services`` as soon as it runs, its URL put in os.environ), then the demo
    time-stamping authority and RDAP server. Raises EmbeddedServerError."""
    for variable, start, folder in (("DATABASE_URL", embedded.start_postgres, "postgres"),
                                    ("MONGO_URL", embedded.start_mongo, "mongo"),
                                    ("REDIS_URL", embedded.start_redis, "redis")):
        if not os.environ.get(variable):
            started.services.append(start(var / folder))
            os.environ[variable] = started.services[-1].url
    started.stops.append(_start_demo_tsa(var))
    started.stops.append(_start_demo_rdap())
    started.stops.append(_start_demo_search())


def _announce_servers(var: Path) -> None:
    """Print the servers' addresses (the database's without its password) and, when there is
    one, how to move an old SQLite database."""
    database = os.environ["DATABASE_URL"].rsplit("@", 1)[-1]
    print(f"PostgreSQL {database}   MongoDB {os.environ['MONGO_URL']}   Redis "
          f"{os.environ['REDIS_URL']}   data in {var} (servers recorded in {var / 'run.env'})",
          flush=True)
    notice = sqlite_notice(var)
    if notice:
        print(f"make run: {notice}", file=sys.stderr, flush=True)


def _setup_django() -> bool:
    """Set the demo's crawler and mail defaults, start Django, make STATIC_ROOT and check the
    platforms' registry. Returns False (after printing each problem) when the registry is
    wrong, else applies the migrations and returns True."""
    # The demo site is served on loopback, which the crawler's SSRF guard refuses unless told
    # (settings.CRAWLER reads it when Django starts, the workers inherit it).
    os.environ.setdefault("CRAWLER_ALLOW_ADDRESSES", f"127.0.0.1,{demo_search.UNLISTED_HOST}")
    # Alert mails go to files under VAR_DIR/mail (settings.EMAIL_FILE_PATH), links to here.
    os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
    django.setup()
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
    problems = check_registry()  # the file and line, before anything starts
    for problem in problems:
        print(f"make run: {problem.msg}", file=sys.stderr)
    if problems:
        return False
    call_command("migrate", interactive=False, verbosity=0)
    return True


def _manage(*args: str, env: dict[str, str], **popen) -> subprocess.Popen:
    """Start ``manage.py ARGS`` as a child that dies with this process."""
    return subprocess.Popen([sys.executable, str(BASE_DIR / "manage.py"), *args], env=env,
                            cwd=BASE_DIR, preexec_fn=supervisor.die_with_parent, **popen)


def _start_demo_sites(var: Path, env: dict[str, str], started: _Started) -> None:
    """Serve the demo site (DEMO_SITE_PORT), the demo platform's site (DEMO_PLATFORM_PORT) and
    the unlisted demo site (on its own address, DEMO_UNLISTED_PORT)."""
    quiet = {"stdout": subprocess.DEVNULL, "stdin": subprocess.DEVNULL}
    site_port = _demo_port("DEMO_SITE_PORT", demo.DEFAULT_PORT)
    started.add_proc(var, "demo-site", _manage("demo_site", "--port", site_port, env=env,
                                               **quiet))
    platform_port = _demo_port("DEMO_PLATFORM_PORT", demo.PLATFORM_PORT)
    started.add_proc(var, "demo-platform", _manage(
        "demo_site", "--port", platform_port, "--directory", str(demo.PLATFORM_DIR), env=env,
        **quiet))
    unlisted_port = _demo_port("DEMO_UNLISTED_PORT", demo_search.UNLISTED_PORT)
    started.add_proc(var, "demo-unlisted", _manage(
        "demo_site", "--host", demo_search.UNLISTED_HOST, "--port", unlisted_port,
        "--directory", str(demo_search.UNLISTED_DIR), env=env, **quiet))


def _start_celery(var: Path, env: dict[str, str], started: _Started
                  ) -> tuple[subprocess.Popen, subprocess.Popen]:
    """Start the Celery worker (all queues) and beat, logs under VAR/log, and wait until the
    worker answers (WORKER_READY_TIMEOUT_SECONDS). Returns (worker, beat); raises
    RuntimeError when the worker does not get ready."""
    logs = var / "log"
    worker = started.add_proc(var, "celery-worker", supervisor.start_worker(
        env, logs / "celery-worker.log", "run-worker", settings.WORKER_QUEUES, cwd=BASE_DIR))
    # Any beat of an earlier run is stopped (run lock, stop_leftovers): its pid file is
    # stale, and beat would refuse to start if that pid now names another process.
    (var / "celery-beat.pid").unlink(missing_ok=True)
    beat = started.add_proc(var, "celery-beat", supervisor.start_beat(
        env, logs / "celery-beat.log", var / "celery-beat.pid", cwd=BASE_DIR))
    supervisor.wait_until_ready(celery_app, worker, "run-worker", logs / "celery-worker.log",
                                settings.WORKER_READY_TIMEOUT_SECONDS)
    print(f"Celery worker and beat running (logs in {logs})", flush=True)
    if settings.EMAIL_BACKEND.endswith("filebased.EmailBackend"):
        print(f"Alert mails are written to {settings.EMAIL_FILE_PATH}", flush=True)
    return worker, beat


def main() -> int:
    """Run the platform until Ctrl-C (SIGINT) or SIGTERM. Returns the process exit status
    (0: stopped by the user, 1: a part failed or exited, 2: could not start)."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    var, port = _prepare_environment()
    try:
        lock = _claim(var, port)
    except RunError as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    started = _Started()
    try:
        (var / "run.env").unlink(missing_ok=True)  # a killed run's: the settings must not read it
        _start_servers(var, started)
        record_run(var, port)
        _announce_servers(var)
        if not _setup_django():
            return 2
        env = supervisor.child_env()
        _start_demo_sites(var, env, started)
        worker, beat = _start_celery(var, env, started)
        call_command("demo")
        server = started.add_proc(var, "web-server", _manage(
            "runserver", f"127.0.0.1:{port}", "--noreload", "--insecure", env=env))
        print(f"\nDashboard: http://127.0.0.1:{port}/  (Ctrl-C stops everything)", flush=True)
        return _supervise({"web server": server, "Celery worker": worker, "Celery beat": beat})
    except KeyboardInterrupt:
        print("\nStopping...", flush=True)
        return 0
    except (embedded.EmbeddedServerError, RuntimeError) as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 1
    finally:
        started.stop_all(var)
        lock.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
