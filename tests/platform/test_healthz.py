"""/healthz reports each server the platform depends on: PostgreSQL, MongoDB, Redis and the
fingerprint index's Redis when it is another server. A private MongoDB (and a private index
Redis) stopped makes it answer 503 naming the server down; started again, 200."""

from __future__ import annotations

import pytest

from lib.runtime import embedded

pytestmark = pytest.mark.django_db


def test_healthz_names_the_server_that_is_down(client, tmp_path, settings, session_servers):
    mongo = embedded.start_mongo(tmp_path / "mongo", journal=False)
    index = embedded.start_redis(tmp_path / "index", persist=False)
    try:
        settings.MONGO_URL, settings.FINGERPRINT_INDEX_REDIS_URL = mongo.url, index.url
        settings.SERVER_CHECK_TIMEOUT_SECONDS = 1.0
        got = client.get("/healthz")
        assert got.status_code == 200, got.content
        assert got.json() == {"ok": True, "servers": {
            "postgresql": "ok", "mongodb": "ok", "redis": "ok", "index_redis": "ok"}}

        mongo.stop()
        got = client.get("/healthz")
        assert got.status_code == 503
        assert got.json() == {"ok": False, "servers": {
            "postgresql": "ok", "mongodb": "down", "redis": "ok", "index_redis": "ok"}}

        index.stop()
        assert client.get("/healthz").json()["servers"]["index_redis"] == "down"
        settings.FINGERPRINT_INDEX_REDIS_URL = ""  # the index on REDIS_URL: one entry, "redis"
        mongo = embedded.start_mongo(tmp_path / "mongo", port=int(mongo.url.rsplit(":", 1)[1]),
                                     journal=False)
        got = client.get("/healthz")
        assert got.status_code == 200
        assert got.json()["servers"] == {"postgresql": "ok", "mongodb": "ok", "redis": "ok"}
    finally:
        mongo.stop()
        index.stop()
