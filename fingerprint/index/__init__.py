"""Fingerprint index: window fingerprint -> (work, window) postings, in memory or in Redis.

See :mod:`fingerprint.index.base` for the protocol and the stop-list.
"""

from fingerprint.index.base import (
    DEFAULT_MAX_DF,
    Index,
    IndexLayoutError,
    IndexUnavailableError,
    IndexVersionError,
    RevisedIndex,
)
from fingerprint.index.memory import MemoryIndex

__all__ = [
    "DEFAULT_MAX_DF",
    "Index",
    "IndexLayoutError",
    "IndexUnavailableError",
    "IndexVersionError",
    "MemoryIndex",
    "RedisIndex",
    "RevisedIndex",
]


def __getattr__(name: str):
    if name == "RedisIndex":
        # Imported on first use: the redis client library costs the command line (which uses
        # the MemoryIndex) a quarter of its start-up.
        from fingerprint.index.redis import RedisIndex
        return RedisIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
