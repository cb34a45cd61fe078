"""The embedded servers started by tests/conftest.py answer real commands."""

import pymongo
import redis


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
