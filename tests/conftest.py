"""Test-suite servers: a real MongoDB and a real Redis on free loopback ports.

Both are started once per session under a temporary folder (tracker.embedded) before any test
runs, exported as MONGO_URL / REDIS_URL (so Celery workers started by tests see them too), and
stopped at the end. Set TEST_MONGO_URL / TEST_REDIS_URL to use servers of your own instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from tracker import embedded

_started: list[embedded.Service] = []
_tmp: Path | None = None


def pytest_configure(config):
    global _tmp
    if hasattr(config, "workerinput"):
        return
    _tmp = Path(tempfile.mkdtemp(prefix="tracker-test-"))
    mongo = os.environ.get("TEST_MONGO_URL")
    if not mongo:
        service = embedded.start_mongo(_tmp / "mongo", journal=False)
        _started.append(service)
        mongo = service.url
    redis = os.environ.get("TEST_REDIS_URL")
    if not redis:
        service = embedded.start_redis(_tmp / "redis", persist=False)
        _started.append(service)
        redis = service.url
    os.environ["MONGO_URL"] = mongo
    os.environ["REDIS_URL"] = redis
    os.environ.setdefault("TRACKER_VAR_DIR", str(_tmp / "var"))


def pytest_unconfigure(config):
    for service in _started:
        service.stop()
    if _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def mongo_url() -> str:
    """URL of the session's MongoDB server."""
    return os.environ["MONGO_URL"]


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of the session's Redis server (database 0, shared with Celery's broker)."""
    return os.environ["REDIS_URL"]


@pytest.fixture
def mongo_db(mongo_url):
    """A pymongo Database with a unique name for this test, dropped afterwards."""
    import pymongo

    client = pymongo.MongoClient(mongo_url, serverSelectionTimeoutMS=5000)
    name = f"test_{uuid.uuid4().hex[:12]}"
    yield client[name]
    client.drop_database(name)
    client.close()


@pytest.fixture
def redis_client(redis_url):
    """A redis.Redis on database 15 of the session's server, emptied before and after the test."""
    import redis

    url = redis_url.rsplit("/", 1)[0] + "/15"
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()
