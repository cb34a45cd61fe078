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
from fingerprint.index.redis import RedisIndex

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
