"""The fingerprint engine wired to the platform's MongoDB and Redis (docs/engine-api.md)."""

from __future__ import annotations

import os
from functools import lru_cache

from django.conf import settings

from fingerprint import Engine, EngineConfig
from fingerprint.index import IndexVersionError, RedisIndex
from fingerprint.store import MongoWorkStore

from .connections import get_index_redis, get_mongo_db


@lru_cache(maxsize=4)
def _engine(mongo_url: str, mongo_db: str, index_redis: tuple[str, str, bool], prefix: str,
            pid: int):
    config = EngineConfig(max_text_chars=settings.WORK_TEXT_MAX_CHARS,
                          rewrite_stage=settings.REWRITE_STAGE,
                          rewrite_min_share=settings.REWRITE_MIN_SHARE,
                          rewrite_pair_score=settings.REWRITE_PAIR_SCORE,
                          rewrite_min_pairs=settings.REWRITE_MIN_PAIRS)
    return Engine(RedisIndex(get_index_redis(), prefix=prefix), MongoWorkStore(get_mongo_db()),
                  config=config, rewrite_index=RedisIndex(get_index_redis(), prefix=f"{prefix}-rw"))


def get_engine():
    """Return the ``fingerprint.Engine`` over RedisIndex (``connections.get_index_redis``,
    prefix settings.FINGERPRINT_INDEX_PREFIX; the rewrite stage's keys under that prefix +
    "-rw", outside "<prefix>:*", which the index's clear() deletes; settings.REWRITE_*) and
    MongoWorkStore (settings.MONGO_DB), built once per process and settings. Creating it makes no network call, except with a Redis Cluster
    index, whose client learns the cluster's nodes at once (``connections.get_index_redis``:
    redis.exceptions.ConnectionError when none answers)."""
    index_redis = (settings.REDIS_URL, settings.FINGERPRINT_INDEX_REDIS_URL,
                   settings.FINGERPRINT_INDEX_REDIS_CLUSTER)
    return _engine(settings.MONGO_URL, settings.MONGO_DB, index_redis,
                   settings.FINGERPRINT_INDEX_PREFIX, os.getpid())


def indexed_work_ids() -> set[str]:
    """Engine ids of every work in the platform's fingerprint index, asked through the index's
    documented protocol (``Index.work_ids()``, docs/engine-api.md) rather than by callers
    reaching into the engine. Raises redis.RedisError when Redis is unreachable."""
    return set(get_engine().index.work_ids())


def clear_outdated_index() -> str | None:
    """Clear the platform's index when it was written by another fingerprint version or an
    older Redis layout (``Index.check()`` raises ``fingerprint.index.IndexVersionError``), so
    that a rebuild from MongoDB can follow.

    Returns:
        The refusal's message (str) when the index was cleared, else None.

    Raises:
        fingerprint.index.IndexUnavailableError (a ConnectionError): Redis is unreachable.
    """
    engine = get_engine()
    refused = None
    for index in (engine.index, getattr(engine.rewrite, "index", None)):  # the rewrite keys too
        if index is None:
            continue
        try:
            index.check()
        except IndexVersionError as exc:
            index.clear()
            refused = refused or str(exc)
    return refused


def get_store():
    """Return the engine's ``fingerprint.store.MongoWorkStore`` on the platform's database."""
    return get_engine().store
