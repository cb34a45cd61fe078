"""Connections to MongoDB and Redis, built from Django settings at call time.

Settings are read on each call (not at import) so that the test suite, which starts its servers
after Django is configured, can point ``settings.MONGO_URL`` / ``settings.REDIS_URL`` at them.
Clients are cached per (URL, process id): pymongo and redis-py clients must not cross a fork
(Celery's prefork pool forks after import).
"""

from __future__ import annotations

import os
from functools import lru_cache

import pymongo
import redis
from django.conf import settings

from fingerprint.index import IndexUnavailableError
from fingerprint.store import StoreUnavailableError
from tracker.core.errors import StorageUnavailable


@lru_cache(maxsize=8)
def _mongo_client(url: str, pid: int) -> pymongo.MongoClient:
    return pymongo.MongoClient(url, serverSelectionTimeoutMS=settings.MONGO_SERVER_TIMEOUT_MS,
                               connectTimeoutMS=settings.MONGO_SERVER_TIMEOUT_MS, tz_aware=True)


@lru_cache(maxsize=8)
def _redis_client(url: str, pid: int) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT_SECONDS,
                                socket_timeout=settings.REDIS_SOCKET_TIMEOUT_SECONDS,
                                health_check_interval=settings.REDIS_HEALTH_CHECK_SECONDS)


def get_mongo_db() -> pymongo.database.Database:
    """Return the platform's MongoDB database (``settings.MONGO_DB`` on ``settings.MONGO_URL``).

    No network call is made here; pymongo raises ``pymongo.errors.PyMongoError`` subclasses
    (e.g. ServerSelectionTimeoutError after settings.MONGO_SERVER_TIMEOUT_MS) on the first operation if the server is down.
    """
    return _mongo_client(settings.MONGO_URL, os.getpid())[settings.MONGO_DB]


def get_redis() -> redis.Redis:
    """Return a redis.Redis client for ``settings.REDIS_URL`` (the fingerprint index's server).

    Raises ``redis.exceptions.ConnectionError`` on the first command if the server is down.
    """
    return _redis_client(settings.REDIS_URL, os.getpid())


def storage_errors() -> tuple[type[BaseException], ...]:
    """Exception classes meaning "MongoDB or Redis is unreachable right now" (retry later).

    Only the storage servers' own errors and the engine's (StoreUnavailableError,
    IndexUnavailableError) are listed, never the builtin ConnectionError: a refused address
    (``crawler.ssrf.RefusedAddress``) or a remote site that does not answer is not storage.
    """
    return (StoreUnavailableError, IndexUnavailableError, StorageUnavailable,
            pymongo.errors.ConnectionFailure, pymongo.errors.ServerSelectionTimeoutError,
            pymongo.errors.NetworkTimeout, pymongo.errors.AutoReconnect,
            redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
            redis.exceptions.BusyLoadingError)
