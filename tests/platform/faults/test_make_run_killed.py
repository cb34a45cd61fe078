"""Drill (e): `make run` (``python -m tracker.run``) killed with SIGKILL and started again in
the same data folder.

Two crashes, each followed by a start in the same folder:

1. Only the run's own process is killed (as the kernel's out-of-memory killer picks one
   process): its worker, beat, web server and demo site are orphaned. They are SIGSTOPped
   first, so that they are deterministically still alive when the next run starts, as a busy
   machine or a worker finishing a task would leave them. The next run must stop them, say so,
   and come up with one copy of each process.
2. Everything is killed at once, servers included (a machine or container crash), and the pids
   in their lock and pid files (postmaster.pid, mongod.pid, redis.pid, celery-beat.pid,
   run.pid) then name another live program, as after a restart where pids are reused. The next
   run must come up on the same data.

After each start: the dashboard answers, a user made before the crashes still logs in, and
each server and process runs once. Everything the drill started is stopped at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import requests
from django.conf import settings

from lib.runtime import embedded

USER, PASSWORD = "drill-user", "drill-pw-9182"
#: Kind of process -> a function of (command line, parent's command line) recognising it.
KINDS = {
    "make run": lambda cmd, parent: "-m tracker.run" in cmd,
    "PostgreSQL": lambda cmd, parent: "bin/postgres -D" in cmd,
    "MongoDB": lambda cmd, parent: "mongod --dbpath" in cmd,
    "Redis": lambda cmd, parent: "redis-server" in cmd,
    "Celery worker": lambda cmd, parent: " worker " in cmd and " worker " not in parent,
    "Celery beat": lambda cmd, parent: "celery -A tracker beat" in cmd,
    "web server": lambda cmd, parent: "runserver" in cmd,
    "demo site": lambda cmd, parent: "demo_site" in cmd and "--directory" not in cmd,
    "demo platform site": lambda cmd, parent: "demo_site" in cmd and "platform_site" in cmd,
    "unlisted demo site": lambda cmd, parent: "demo_site" in cmd and "unlisted_site" in cmd,
}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _folder_processes(var: Path) -> dict[int, str]:
    """pid -> command line of every live process of the data folder ``var``: those whose
    environment has TRACKER_VAR_DIR=var (`make run` passes it to all it starts), and the
    servers, which overwrite their environment with their process title: PostgreSQL and
    MongoDB by the folder in their command line, Redis by the port in var/redis/redis.port."""
    marker = f"TRACKER_VAR_DIR={var}".encode()
    try:
        redis = f"127.0.0.1:{(var / 'redis' / 'redis.port').read_text()}"
    except OSError:
        redis = None
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (proc / "stat").read_text().rsplit(") ", 1)[1].split()[0] == "Z":
                continue
            cmd = _cmdline(int(proc.name))
            if (marker in (proc / "environ").read_bytes().split(b"\0") or str(var) in cmd
                    or ("redis-server" in cmd and redis in cmd.split())):
                found[int(proc.name)] = cmd
        except (OSError, IndexError):
            continue
    return found


def _counts(var: Path) -> dict[str, int]:
    """How many processes of each of KINDS run on the data folder ``var``."""
    counts = dict.fromkeys(KINDS, 0)
    for pid, cmd in _folder_processes(var).items():
        try:
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError):
            continue
        for kind, matches in KINDS.items():
            if matches(cmd, _cmdline(ppid)):
                counts[kind] += 1
    return counts


class Run:
    """``python -m tracker.run`` started as `make run` starts it, in its own process group,
    its output in ``log``."""

    def __init__(self, env: dict, log: Path):
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "tracker.run"], env=env,
                                         cwd=settings.BASE_DIR, stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def serving(self, url: str) -> bool:
        """True once the dashboard is served (fails at once if the run exited)."""
        assert self.proc.poll() is None, f"make run exited {self.proc.returncode}:\n" \
                                         f"{self.output()[-4000:]}"
        if "Dashboard: " not in self.output():
            return False
        try:
            return requests.get(f"{url}/login/", timeout=10).status_code == 200
        except (requests.ConnectionError, requests.Timeout):
            return False


def _crash(var: Path) -> int:
    """Kill every process of the data folder ``var`` as a machine crash would: all are stopped
    (SIGSTOP) before any is killed, so that none reacts to another's death (a child of `make
    run` gets SIGTERM when it dies, ``lib.runtime.supervisor.die_with_parent``, and beat would then
    remove its pid file). Returns how many processes it found (0: none was left)."""
    pids = list(_folder_processes(var))
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
    return len(pids)


def _stop_everything(run: Run | None, var: Path, until) -> None:
    """Stop ``run`` as Ctrl-C would, then kill whatever still runs on ``var`` (``_crash``)."""
    if run and run.proc.poll() is None:
        run.proc.send_signal(signal.SIGINT)
        try:
            run.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            run.proc.kill()
    until(lambda: _crash(var) == 0, "every process of the drill's folder exited", timeout=60)


def test_make_run_comes_back_after_sigkill(tmp_path, server_tmp_path, server_env,
                                           dashboard_login, until):
    var = server_tmp_path / "var"
    port = embedded.free_port()
    url = f"http://127.0.0.1:{port}"
    env = server_env(var, TRACKER_PORT=str(port), DEMO_SITE_PORT=str(embedded.free_port()),
                     DEMO_PLATFORM_PORT=str(embedded.free_port()),
                     DEMO_RDAP_PORT=str(embedded.free_port()),
                     DEMO_UNLISTED_PORT=str(embedded.free_port()),
                     DEMO_SEARCH_PORT=str(embedded.free_port()),
                     TRACKER_DEMO_STEPS="")  # no demo scan: demo accounts only
    one_each = dict.fromkeys(KINDS, 1)
    run = reuse = None
    try:
        run = Run(env, tmp_path / "run-1.log")
        until(lambda: run.serving(url), "the first run serves the dashboard")
        assert _counts(var) == one_each
        created = subprocess.run(  # in a second terminal: finds the servers in var/run.env
            [sys.executable, "manage.py", "createsuperuser", "--no-input", "--username", USER,
             "--email", "drill@example.com"], cwd=settings.BASE_DIR, capture_output=True,
            text=True, timeout=120,
            env={**server_env(var), "DJANGO_SUPERUSER_PASSWORD": PASSWORD})
        assert created.returncode == 0, created.stderr

        # 1. Only the run's process killed; its children orphaned and still alive.
        children = [pid for pid in _folder_processes(var) if os.getpgid(pid) == run.proc.pid
                    and pid != run.proc.pid]
        for pid in children:
            with contextlib.suppress(ProcessLookupError):  # a short-lived child ended
                os.kill(pid, signal.SIGSTOP)
        # a child that was ending when it was stopped is now gone (or a zombie): not an orphan
        children = [pid for pid in children if pid in _folder_processes(var)]
        assert children
        run.proc.kill()
        run.proc.wait()
        assert all(pid in _folder_processes(var) for pid in children)
        run = Run(env, tmp_path / "run-2.log")
        until(lambda: run.serving(url), "the run after the first crash serves the dashboard")
        first_line = [line for line in run.output().splitlines()
                      if "stopped what a killed run left running" in line]
        assert len(first_line) == 1, run.output()
        for name in ("celery-worker", "celery-beat", "web-server", "demo-site", "demo-platform"):
            assert name in first_line[0]
        assert not any(pid in _folder_processes(var) for pid in children)
        assert _counts(var) == one_each

        # 2. Everything killed at once, servers included; their pids then reused.
        pidfiles = (var / "mongo" / "mongod.pid", var / "redis" / "redis.pid",
                    var / "celery-beat.pid", var / "run.pid")
        # beat writes its pid file a moment after it starts, maybe after the dashboard serves
        until(lambda: all(pidfile.exists() for pidfile in pidfiles), "every pid file written")
        until(lambda: _crash(var) == 0, "every process of the folder killed", timeout=60)
        run.proc.wait()
        reuse = subprocess.Popen(["sleep", "600"])  # "another program" holding the old pids
        for pidfile in pidfiles:
            assert pidfile.exists(), pidfile
            pidfile.write_text(f"{reuse.pid}\n")
        lock = var / "postgres" / "data" / "postmaster.pid"
        lines = lock.read_text().splitlines()
        lock.write_text("\n".join([str(reuse.pid), *lines[1:]]) + "\n")
        assert (var / "mongo" / "mongod.lock").read_text().strip()  # a crashed mongod's lock
        run = Run(env, tmp_path / "run-3.log")
        until(lambda: run.serving(url), "the run after the crash serves the dashboard")
        assert _counts(var) == one_each
        session = dashboard_login(url, USER, PASSWORD)  # the user made before both crashes
        page = session.get(f"{url}/", timeout=30)
        assert page.status_code == 200 and USER in page.text
        assert "Traceback" not in run.output()
    finally:
        _stop_everything(run, var, until)
        if reuse:
            reuse.kill()
            reuse.wait()
