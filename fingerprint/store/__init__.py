"""Work store: what verification needs of each work, in memory or in MongoDB.

See :mod:`fingerprint.store.base` for the protocol.
"""

from fingerprint.store.base import StoreUnavailableError, WorkStore
from fingerprint.store.memory import MemoryWorkStore
from fingerprint.store.mongo import MongoWorkStore

__all__ = ["MemoryWorkStore", "MongoWorkStore", "StoreUnavailableError", "WorkStore"]
