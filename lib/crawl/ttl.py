"""MongoDB TTL indexes: documents removed a set number of seconds after a date field."""

from __future__ import annotations

import pymongo.errors


def ensure_ttl_index(coll, field: str, name: str, seconds: int) -> None:
    """Create TTL index ``name`` on date ``field`` of pymongo Collection ``coll``: a document
    goes ``seconds`` after that date (MongoDB's TTL monitor deletes it within about a minute
    after; a document without the field stays). Idempotent; an index of that name with another
    TTL gets the new one (``collMod``)."""
    try:
        coll.create_index(field, expireAfterSeconds=seconds, name=name)
    except pymongo.errors.OperationFailure:  # the index exists with another TTL
        coll.database.command("collMod", coll.name, index={"name": name,
                                                           "expireAfterSeconds": seconds})
