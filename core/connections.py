"""Connections to MongoDB and Redis, built from Django settings at call time, and the check
that the servers a command needs answer (``check_servers``, used by manage.py).

Settings are read on each call (not at import) so that the test suite, which starts its servers
after Django is configured, can point ``settings.MONGO_URL`` / ``settings.REDIS_URL`` at them.
Clients are cached per (URL, process id): pymongo and redis-py clients must not cross a fork
(Celery's prefork pool forks after import).
"""

from __future__ import annotations

import logging
import os
from functools import lru_cache

import pymongo
import redis
from django.conf import settings
from django.db import connection
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException

from core.errors import CoreError, StorageUnavailable
from fingerprint.index import IndexUnavailableError
from fingerprint.store import StoreUnavailableError

log = logging.getLogger(__name__)


@lru_cache(maxsize=8)
def _mongo_client(url: str, w: int | str, journal: bool, pid: int) -> pymongo.MongoClient:
    return pymongo.MongoClient(url, serverSelectionTimeoutMS=settings.MONGO_SERVER_TIMEOUT_MS,
                               connectTimeoutMS=settings.MONGO_SERVER_TIMEOUT_MS, tz_aware=True,
                               journal=journal, w=w)


@lru_cache(maxsize=8)
def _redis_client(url: str, pid: int) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT_SECONDS,
                                socket_timeout=settings.REDIS_SOCKET_TIMEOUT_SECONDS,
                                health_check_interval=settings.REDIS_HEALTH_CHECK_SECONDS)


@lru_cache(maxsize=8)
def _redis_cluster_client(url: str, pid: int) -> RedisCluster:
    try:  # asks the node for the cluster's nodes and slots at once
        return RedisCluster.from_url(
            url, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT_SECONDS,
            socket_timeout=settings.REDIS_SOCKET_TIMEOUT_SECONDS)
    except RedisClusterException as exc:  # no node answers: storage down, retried later
        raise redis.exceptions.ConnectionError(f"Redis Cluster {url}: {exc}") from exc


def get_mongo_db() -> pymongo.database.Database:
    """Return the platform's MongoDB database (``settings.MONGO_DB`` on ``settings.MONGO_URL``,
    a single server or a replica set), writing with ``settings.MONGO_WRITE_CONCERN``.

    No network call is made here; pymongo raises ``pymongo.errors.PyMongoError`` subclasses
    (e.g. ServerSelectionTimeoutError after settings.MONGO_SERVER_TIMEOUT_MS) on the first operation if the server is down.
    """
    return _mongo_client(settings.MONGO_URL, settings.MONGO_WRITE_CONCERN,
                         settings.MONGO_JOURNALED_WRITES, os.getpid())[settings.MONGO_DB]


def get_redis() -> redis.Redis:
    """Return a redis.Redis client for ``settings.REDIS_URL`` (the fingerprint index's server).

    Raises ``redis.exceptions.ConnectionError`` on the first command if the server is down.
    """
    return _redis_client(settings.REDIS_URL, os.getpid())


def get_index_redis() -> redis.Redis | RedisCluster:
    """Return the client of the fingerprint index's Redis: ``settings.FINGERPRINT_INDEX_REDIS_URL``
    (``settings.REDIS_URL`` when empty), a RedisCluster when
    ``settings.FINGERPRINT_INDEX_REDIS_CLUSTER``, else a redis.Redis. A redis.Redis connects on
    its first command; a RedisCluster, made once per process, asks the node at the URL for the
    cluster's nodes at once.

    Raises:
        redis.exceptions.ConnectionError: (cluster) no node answers; the next call tries again.
    """
    url = settings.FINGERPRINT_INDEX_REDIS_URL or settings.REDIS_URL
    if settings.FINGERPRINT_INDEX_REDIS_CLUSTER:
        return _redis_cluster_client(url, os.getpid())
    return _redis_client(url, os.getpid())


def storage_errors() -> tuple[type[BaseException], ...]:
    """Exception classes meaning "MongoDB or Redis is unreachable right now" (retry later).

    Only the storage servers' own errors and the engine's (StoreUnavailableError,
    IndexUnavailableError) are listed, never the builtin ConnectionError: a refused address
    (``lib.crawl.ssrf.RefusedAddress``) or a remote site that does not answer is not storage.
    """
    return (StoreUnavailableError, IndexUnavailableError, StorageUnavailable,
            pymongo.errors.ConnectionFailure, pymongo.errors.ServerSelectionTimeoutError,
            pymongo.errors.NetworkTimeout, pymongo.errors.AutoReconnect,
            redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
            redis.exceptions.BusyLoadingError)


class ServersUnavailable(CoreError, RuntimeError):
    """A server a command needs does not answer; the message is one line saying which, at
    which address, and what to do ("start `make run` or set REDIS_URL")."""


def _where(url: str) -> str:
    """``url`` without its user and password (str)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rsplit('@', 1)[-1]}"


def describe_servers() -> str:
    """One line naming the servers this process uses and where each URL came from (the
    environment, the data folder's run.env written by `make run`, or the default), without
    passwords."""
    parts = []
    for label, name in (("PostgreSQL", "DATABASE_URL"), ("MongoDB", "MONGO_URL"),
                        ("Redis", "REDIS_URL")):
        url = getattr(settings, name)
        if name == "DATABASE_URL" and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
            label = "SQLite"
        parts.append(f"{label} {_where(url)} ({settings.SERVER_SOURCES.get(name, 'settings')})")
    return "servers: " + ", ".join(parts)


def _ping(name: str, url: str, timeout: float) -> None:
    """Ask the server of settings name ``name`` at ``url`` to answer (PostgreSQL: a query on
    Django's connection; MongoDB and Redis: a ping on a fresh client), waiting at most
    ``timeout`` seconds. Raises the driver's own error when it does not."""
    if name == "DATABASE_URL":
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    elif name == "MONGO_URL":
        client = pymongo.MongoClient(url, serverSelectionTimeoutMS=int(timeout * 1000),
                                     connectTimeoutMS=int(timeout * 1000))
        try:
            client.admin.command("ping")
        finally:
            client.close()
    elif name == "FINGERPRINT_INDEX_REDIS_URL" and settings.FINGERPRINT_INDEX_REDIS_CLUSTER:
        get_index_redis().ping()
    else:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            client.ping()
        finally:
            client.close()


def health() -> dict[str, bool]:
    """Whether each server the platform depends on answers within
    settings.SERVER_CHECK_TIMEOUT_SECONDS seconds: {"postgresql": bool, "mongodb": bool,
    "redis": bool}, and "index_redis" when FINGERPRINT_INDEX_REDIS_URL names another server
    than REDIS_URL. A server that does not answer is logged with the driver's reason."""
    servers = {"postgresql": "DATABASE_URL", "mongodb": "MONGO_URL", "redis": "REDIS_URL"}
    if settings.FINGERPRINT_INDEX_REDIS_URL and \
            settings.FINGERPRINT_INDEX_REDIS_URL != settings.REDIS_URL:
        servers["index_redis"] = "FINGERPRINT_INDEX_REDIS_URL"
    answers = {}
    for label, name in servers.items():
        url = getattr(settings, name)
        try:
            _ping(name, url, settings.SERVER_CHECK_TIMEOUT_SECONDS)
            answers[label] = True
        except Exception as exc:  # every driver's own errors: down, whatever the reason
            log.warning("health check: %s %s does not answer: %s", label, _where(url), exc)
            answers[label] = False
    return answers


def check_servers(names: tuple[str, ...] = ("DATABASE_URL", "MONGO_URL", "REDIS_URL")) -> None:
    """Check that the servers named (settings names) answer within
    settings.SERVER_CHECK_TIMEOUT_SECONDS seconds each.

    Raises:
        ServersUnavailable: the first that does not answer, in one line.
    """
    timeout = settings.SERVER_CHECK_TIMEOUT_SECONDS
    for name in names:
        url = getattr(settings, name)
        try:
            _ping(name, url, timeout)
        except Exception as exc:  # every driver's own errors: the message names the server
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            source = settings.SERVER_SOURCES.get(name, "settings")
            hint = (f"the servers recorded in {source} are gone: start `make run` again or set "
                    f"{name}" if source == str(settings.RUN_ENV_FILE)
                    else f"start `make run` or set {name}")
            raise ServersUnavailable(f"{name} {_where(url)} ({source}) does not answer: "
                                     f"{reason}; {hint}") from exc
