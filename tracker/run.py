"""`make run`: the whole platform on one machine, data under TRACKER_VAR_DIR (default ./var).

Starts MongoDB and Redis (tracker.embedded; skipped when MONGO_URL / REDIS_URL are set), a
Celery worker (all queues) and beat, the bundled demo site on http://127.0.0.1:8931
(DEMO_SITE_PORT), applies migrations, runs ``manage.py demo`` (demo accounts, demo works, the
main job: a scan of the demo site, a summary), then serves the dashboard on
http://127.0.0.1:8000 (TRACKER_PORT) until Ctrl-C, and stops everything it started. A second
run continues with the same data.
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
from tracker import embedded, workers

BASE_DIR = Path(__file__).resolve().parent.parent


class RunError(RuntimeError):
    """`make run` cannot start: another run uses the data folder, or the port is taken."""


def _take_run_lock(var: Path) -> Path:
    """Write VAR/run.pid, refusing when a live `make run` already holds it."""
    var.mkdir(parents=True, exist_ok=True)
    lock = var / "run.pid"
    try:
        pid = int(lock.read_text())
        os.kill(pid, 0)
        if pid != os.getpid():
            raise RunError(f"another `make run` (pid {pid}) is using {var}; stop it first "
                           "(Ctrl-C in its terminal) or set TRACKER_VAR_DIR to another folder")
    except (OSError, ValueError):
        pass  # no lock, or its process is gone
    lock.write_text(str(os.getpid()))
    return lock


def _check_port(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise RunError(f"port {port} on 127.0.0.1 is in use ({exc.strerror}); set "
                           "TRACKER_PORT to a free port") from exc


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
    port = int(os.environ.get("TRACKER_PORT", "8000"))
    try:
        lock = _take_run_lock(var)
        _check_port(port)
    except RunError as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    services: list[embedded.Service] = []
    procs: list[subprocess.Popen] = []
    try:
        if not os.environ.get("MONGO_URL"):
            services.append(embedded.start_mongo(var / "mongo"))
            os.environ["MONGO_URL"] = services[-1].url
        if not os.environ.get("REDIS_URL"):
            services.append(embedded.start_redis(var / "redis"))
            os.environ["REDIS_URL"] = services[-1].url
        print(f"MongoDB {os.environ['MONGO_URL']}   Redis {os.environ['REDIS_URL']}   "
              f"data in {var}", flush=True)

        # The demo site is served on loopback, which the crawler's SSRF guard refuses unless told
        # (settings.CRAWLER reads it when Django starts, the workers inherit it).
        os.environ.setdefault("CRAWLER_ALLOW_ADDRESSES", "127.0.0.1")
        import django
        from django.core.management import call_command

        django.setup()
        from django.conf import settings

        from tracker.celery import app

        Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)

        call_command("migrate", interactive=False, verbosity=0)
        env = workers.child_env()
        logs = var / "log"
        site_port = os.environ.setdefault("DEMO_SITE_PORT", str(demo.DEFAULT_PORT))
        site = subprocess.Popen(
            [sys.executable, str(BASE_DIR / "manage.py"), "demo_site", "--port", site_port],
            env=env, cwd=BASE_DIR, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        procs.append(site)
        worker = workers.start_worker(env, logs / "celery-worker.log", "run-worker",
                                      cwd=BASE_DIR)
        procs.append(worker)
        beat = workers.start_beat(env, logs / "celery-beat.log", var / "celery-beat.pid",
                                  cwd=BASE_DIR)
        procs.append(beat)
        workers.wait_until_ready(app, worker, "run-worker", logs / "celery-worker.log")
        print(f"Celery worker and beat running (logs in {logs})", flush=True)
        call_command("demo")
        server = subprocess.Popen([sys.executable, str(BASE_DIR / "manage.py"), "runserver",
                                   f"127.0.0.1:{port}", "--noreload", "--insecure"], env=env,
                                  cwd=BASE_DIR)
        procs.append(server)
        print(f"\nDashboard: http://127.0.0.1:{port}/  (Ctrl-C stops everything)", flush=True)
        return _supervise({"web server": server, "Celery worker": worker, "Celery beat": beat})
    except KeyboardInterrupt:
        print("\nStopping...", flush=True)
        return 0
    except (embedded.EmbeddedServerError, RuntimeError) as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 1
    finally:
        for proc in reversed(procs):
            workers.stop(proc)
        for service in reversed(services):
            service.stop()
        lock.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
