"""`make run`: the whole platform on one machine, data under TRACKER_VAR_DIR (default ./var).

Starts PostgreSQL, MongoDB and Redis (tracker.runtime.embedded; each skipped when DATABASE_URL /
MONGO_URL / REDIS_URL is set) and records their URLs in TRACKER_VAR_DIR/run.env, where the
settings of every other process (a ``manage.py`` command in a second terminal) find them;
then the demo time-stamping authority on loopback (not accredited; unless TRACKER_TSA_URLS is
set), the demo RDAP server on http://127.0.0.1:8933 (DEMO_RDAP_PORT; unless
TRACKER_RDAP_BOOTSTRAP_URL is set), a Celery worker (all queues) and beat, the bundled demo site
on http://127.0.0.1:8931 (DEMO_SITE_PORT) and the demo platform's site on
http://localhost:8932 (DEMO_PLATFORM_PORT), applies migrations, runs ``manage.py demo`` (demo accounts, demo works, the
main job: a scan of the demo site, a summary), then serves the dashboard on
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
from pathlib import Path

from crawler import demo
from tracker.runtime import embedded, supervisor
from tracker.text.untrusted import ascii_int

BASE_DIR = Path(__file__).resolve().parent.parent
#: Seconds a process left behind by a killed run has to exit after SIGTERM before SIGKILL.
LEFTOVER_STOP_SECONDS = 20.0
#: What VAR/run.env records for commands in a second terminal (tracker.settings reads it).
#: SITE_URL: the dashboard's address with the run's port, for the links commands build.
RUN_ENV_VARIABLES = ("DATABASE_URL", "MONGO_URL", "REDIS_URL", "TRACKER_TSA_URLS",
                     "TRACKER_TSA_TRUSTED_CERTS", "SITE_URL")


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
    (crawler.lib.evidence.demo_tsa: not accredited, labelled so in its certificate) and point
    this process and its children at it. Returns its stop function, or None."""
    if os.environ.get("TRACKER_TSA_URLS"):
        return None
    from crawler.lib.evidence.demo_tsa import LABEL, DemoTsaError, start_demo_tsa

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
    127.0.0.1:DEMO_RDAP_PORT (crawler.lib.rdap_server: it answers for the demo sites, 127.0.0.1
    and localhost) and point this process and its children at it, with the demo platform of
    the platforms' registry on. Returns its stop function, or None."""
    if os.environ.get("TRACKER_RDAP_BOOTSTRAP_URL"):
        return None
    from crawler.lib import rdap_server

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


def main() -> int:
    """Run the platform until Ctrl-C (SIGINT) or SIGTERM. Returns the process exit status
    (0: stopped by the user, 1: a part failed or exited, 2: could not start)."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    var = Path(os.environ.get("TRACKER_VAR_DIR", BASE_DIR / "var")).resolve()
    os.environ["TRACKER_VAR_DIR"] = str(var)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")
    os.environ.setdefault("TRACKER_CAPTURE_SCREEN_RECORDING", "1")  # the demo films its captures
    port = int(os.environ.get("TRACKER_PORT", "8000"))
    try:
        lock = _take_run_lock(var)
        stopped = stop_leftovers(var)
        if stopped:
            print(f"make run: stopped what a killed run left running: {', '.join(stopped)}",
                  file=sys.stderr, flush=True)
        _check_port(port)
    except RunError as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    services: list[embedded.Service] = []
    procs: dict[str, subprocess.Popen] = {}
    stop_tsa = stop_rdap = None
    run_env = var / "run.env"
    try:
        run_env.unlink(missing_ok=True)  # a killed run's: the settings must not read it
        if not os.environ.get("DATABASE_URL"):
            services.append(embedded.start_postgres(var / "postgres"))
            os.environ["DATABASE_URL"] = services[-1].url
        if not os.environ.get("MONGO_URL"):
            services.append(embedded.start_mongo(var / "mongo"))
            os.environ["MONGO_URL"] = services[-1].url
        if not os.environ.get("REDIS_URL"):
            services.append(embedded.start_redis(var / "redis"))
            os.environ["REDIS_URL"] = services[-1].url
        stop_tsa = _start_demo_tsa(var)
        stop_rdap = _start_demo_rdap()
        record_run(var, port)
        database = os.environ["DATABASE_URL"].rsplit("@", 1)[-1]  # without the password
        print(f"PostgreSQL {database}   MongoDB {os.environ['MONGO_URL']}   Redis "
              f"{os.environ['REDIS_URL']}   data in {var} (servers recorded in {run_env})",
              flush=True)
        notice = sqlite_notice(var)
        if notice:
            print(f"make run: {notice}", file=sys.stderr, flush=True)

        # The demo site is served on loopback, which the crawler's SSRF guard refuses unless told
        # (settings.CRAWLER reads it when Django starts, the workers inherit it).
        os.environ.setdefault("CRAWLER_ALLOW_ADDRESSES", "127.0.0.1")
        # Alert mails go to files under VAR_DIR/mail (settings.EMAIL_FILE_PATH), links to here.
        os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
        import django
        from django.core.management import call_command

        django.setup()
        from django.conf import settings

        from tracker.celery import app

        Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
        from crawler.platform_registry import check_registry

        for problem in check_registry():  # the file and line, before anything starts
            print(f"make run: {problem.msg}", file=sys.stderr)
            return 2

        call_command("migrate", interactive=False, verbosity=0)
        env = supervisor.child_env()
        logs = var / "log"
        site_port = os.environ.setdefault("DEMO_SITE_PORT", str(demo.DEFAULT_PORT))
        site = subprocess.Popen(
            [sys.executable, str(BASE_DIR / "manage.py"), "demo_site", "--port", site_port],
            env=env, cwd=BASE_DIR, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            preexec_fn=supervisor.die_with_parent)
        procs["demo-site"] = site
        platform_port = os.environ.setdefault("DEMO_PLATFORM_PORT", str(demo.PLATFORM_PORT))
        procs["demo-platform"] = subprocess.Popen(
            [sys.executable, str(BASE_DIR / "manage.py"), "demo_site", "--port", platform_port,
             "--directory", str(demo.PLATFORM_DIR)],
            env=env, cwd=BASE_DIR, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            preexec_fn=supervisor.die_with_parent)
        _record_children(var, procs)
        worker = supervisor.start_worker(env, logs / "celery-worker.log", "run-worker", settings.WORKER_QUEUES,
                                      cwd=BASE_DIR)
        procs["celery-worker"] = worker
        _record_children(var, procs)
        # Any beat of an earlier run is stopped (run lock, stop_leftovers): its pid file is
        # stale, and beat would refuse to start if that pid now names another process.
        (var / "celery-beat.pid").unlink(missing_ok=True)
        beat = supervisor.start_beat(env, logs / "celery-beat.log", var / "celery-beat.pid",
                                  cwd=BASE_DIR)
        procs["celery-beat"] = beat
        _record_children(var, procs)
        supervisor.wait_until_ready(app, worker, "run-worker", logs / "celery-worker.log",
                                    settings.WORKER_READY_TIMEOUT_SECONDS)
        print(f"Celery worker and beat running (logs in {logs})", flush=True)
        if settings.EMAIL_BACKEND.endswith("filebased.EmailBackend"):
            print(f"Alert mails are written to {settings.EMAIL_FILE_PATH}", flush=True)
        call_command("demo")
        server = subprocess.Popen([sys.executable, str(BASE_DIR / "manage.py"), "runserver",
                                   f"127.0.0.1:{port}", "--noreload", "--insecure"], env=env,
                                  cwd=BASE_DIR, preexec_fn=supervisor.die_with_parent)
        procs["web-server"] = server
        _record_children(var, procs)
        print(f"\nDashboard: http://127.0.0.1:{port}/  (Ctrl-C stops everything)", flush=True)
        return _supervise({"web server": server, "Celery worker": worker, "Celery beat": beat})
    except KeyboardInterrupt:
        print("\nStopping...", flush=True)
        return 0
    except (embedded.EmbeddedServerError, RuntimeError) as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 1
    finally:
        for proc in reversed(procs.values()):
            supervisor.stop(proc)
        for stop_server in (stop_tsa, stop_rdap):
            if stop_server is not None:
                stop_server()
        (var / "run.pids").unlink(missing_ok=True)
        for service in reversed(services):
            service.stop()
        run_env.unlink(missing_ok=True)
        lock.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
