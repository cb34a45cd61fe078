"""Starting Celery worker and beat processes for `make run` and the test suite.

No Django import at module level: the runner imports this before Django is configured. The
functions that read settings (queues, ready timeout) are called after it is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent dies


def die_with_parent() -> None:
    """``preexec_fn`` for subprocesses: Linux sends the child SIGTERM when the process that
    started it dies, even by SIGKILL, so a killed `make run` or test session leaves no worker,
    beat or web server behind (prctl(2), PR_SET_PDEATHSIG). No effect elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_worker(env: dict[str, str], log: Path, name: str, queues: list[str],
                 concurrency: int = 2, cwd: Path | None = None,
                 prefix: tuple[str, ...] = ()) -> subprocess.Popen:
    """Start ``celery -A tracker worker`` (prefork pool) as a subprocess.

    Args:
        env: the process environment (DJANGO_SETTINGS_MODULE, DATABASE_URL, MONGO_URL, ...).
        log: file receiving the worker's log; its stdout and stderr go to ``output_path(log)``.
        name: node name prefix; the node is ``<name>@<host name>``.
        concurrency: worker processes.
        queues: queues to consume (settings.WORKER_QUEUES: all of them).
        cwd: working directory.
        prefix: a command that runs celery, e.g. ``("ip", "netns", "exec", NAMESPACE)`` to
            start it in a network namespace (it must exec celery: the Popen is celery's).

    Returns:
        The Popen; its node name is ``node_name(name)``.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [*prefix, sys.executable, "-m", "celery", "-A", "tracker", "worker",
           "-Q", ",".join(queues), "--pool", "prefork", "-c", str(concurrency),
           "-n", f"{name}@%h", "--without-gossip", "--without-mingle", "-l", "INFO",
           "-f", str(log)]
    return _start(cmd, env, log, cwd)


def start_beat(env: dict[str, str], log: Path, pidfile: Path,
               cwd: Path | None = None, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
    """Start ``celery -A tracker beat`` with django-celery-beat's database scheduler (run by
    ``prefix``, as in ``start_worker``).

    Returns:
        The Popen. ``pidfile`` guards against a second beat from the same data folder.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [*prefix, sys.executable, "-m", "celery", "-A", "tracker", "beat", "-l", "INFO",
           "-f", str(log), "--pidfile", str(pidfile),
           "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler"]
    return _start(cmd, env, log, cwd)


def output_path(log: Path) -> Path:
    """The file receiving what a process started with log file ``log`` writes to its stdout and
    stderr: ``<log>.out`` (errors before Celery's logging is set up, e.g. in Django's settings
    or an import, appear only there)."""
    return log.with_name(log.name + ".out")


def _start(cmd: list[str], env: dict[str, str], log: Path, cwd: Path | None) -> subprocess.Popen:
    """Popen ``cmd`` with its stdout and stderr in ``output_path(log)`` (truncated)."""
    with output_path(log).open("wb") as out:
        return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)


def _tail(path: Path, chars: int = 3000) -> str:
    """The last ``chars`` characters of ``path``, or "(none)" when it is missing or empty."""
    text = path.read_text(errors="replace")[-chars:] if path.exists() else ""
    return text or "(none)"


def node_name(name: str) -> str:
    """The full node name Celery gives ``<name>@%h`` on this machine."""
    return f"{name}@{socket.gethostname()}"


def wait_until_ready(app, proc: subprocess.Popen, name: str, log: Path, timeout: float) -> None:
    """Wait until worker ``name`` answers a ping through the broker of Celery ``app``, at most
    ``timeout`` seconds (settings.WORKER_READY_TIMEOUT_SECONDS).

    Raises:
        RuntimeError: the process exited or did not answer within ``timeout`` seconds; the
            message holds the tails of its log and of its stdout/stderr (``output_path(log)``).
    """
    deadline = time.monotonic() + timeout
    while not app.control.ping(destination=[node_name(name)], timeout=1.0):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"Celery worker {name} did not start (exit {proc.wait()}).\n"
                               f"Log {log}:\n{_tail(log)}\n"
                               f"stdout/stderr {output_path(log)}:\n{_tail(output_path(log))}")


def stop(proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """SIGTERM ``proc`` (a warm shutdown for Celery), then SIGKILL after ``timeout`` seconds."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def child_env(**overrides: str) -> dict[str, str]:
    """The current environment with DJANGO_SETTINGS_MODULE set and ``overrides`` applied."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "tracker.settings", **overrides}
