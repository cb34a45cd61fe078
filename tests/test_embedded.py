"""The embedded servers started by tests/conftest.py answer real commands."""

import subprocess
import sys
import time
from pathlib import Path

import pymongo
import redis

from tracker.runtime import embedded


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
