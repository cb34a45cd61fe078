"""Work store: what verification needs of each work, in memory or in MongoDB.

See :mod:`fingerprint.store.base` for the protocol.
"""

from fingerprint.store.base import StoreUnavailableError, WorkStore
from fingerprint.store.memory import MemoryWorkStore

__all__ = ["MemoryWorkStore", "MongoWorkStore", "StoreUnavailableError", "WorkStore"]


def __getattr__(name: str):
    if name == "MongoWorkStore":
        # Imported on first use: pymongo costs the command line (which uses the
        # MemoryWorkStore) a tenth of its start-up.
        from fingerprint.store.mongo import MongoWorkStore
        return MongoWorkStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
