"""Query keys of a page version, kept with it so that the stored pages can be searched for new
works without fingerprinting their texts again (crawler.rematch).

The keys are the ones ``fingerprint.Engine.query_keys`` looks up for the page's text, without
duplicates, sorted and packed as little-endian uint64 (8 bytes a key); a crawled page gets
them from its matching (``Engine.match_with_keys``). Looking up the distinct
keys gives the same postings as looking up the page's key list (an index answers each key
once). Keys are tagged with ``tag(config)``: FINGERPRINT_VERSION plus a digest of every engine
parameter that shapes query keys; keys with another tag are never used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

import numpy as np

from fingerprint import FINGERPRINT_VERSION

#: EngineConfig fields that shape a page's query keys beyond ``EngineConfig.scheme()``
#: (see ``fingerprint.Engine.query_keys``).
QUERY_FIELDS = ("probe", "query_sparsity", "dense_page_letters")
_DTYPE = np.dtype("<u8")


@dataclass(frozen=True)
class QueryKeys:
    """Packed query keys of one text: ``data`` (bytes, sorted distinct little-endian uint64)
    and ``tag`` (str, see ``tag``)."""

    data: bytes
    tag: str


def tag(config) -> str:
    """Version tag of the query keys made with ``config`` (a fingerprint.EngineConfig):
    ``"<FINGERPRINT_VERSION>/<6 hex digits>"``, the digest covering ``config.scheme()`` and
    QUERY_FIELDS, so keys made with other parameters are told apart."""
    shape = {**config.scheme(), **{k: asdict(config)[k] for k in QUERY_FIELDS}}
    digest = hashlib.sha1(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:6]
    return f"{FINGERPRINT_VERSION}/{digest}"


def compute(engine, text: str) -> QueryKeys:
    """QueryKeys of ``text`` (str) with ``engine`` (a fingerprint.Engine). Raises the engine's
    TextTooLargeError for a text over ``max_text_chars``. A page being matched gets them from
    ``Engine.match_with_keys`` instead (``pack``), without fingerprinting it again."""
    return pack(engine.query_keys(engine.letters(text)), engine.config)


def pack(keys, config) -> QueryKeys:
    """QueryKeys of a page's query ``keys`` (uint64 array of shape (n,) or list of int, as
    ``Engine.query_keys`` or ``Engine.match_with_keys`` give them, duplicates allowed) made
    with ``config`` (the engine's fingerprint.EngineConfig)."""
    return QueryKeys(np.unique(np.asarray(keys, dtype=_DTYPE)).tobytes(), tag(config))


def unpack(data: bytes) -> np.ndarray:
    """uint64 array of shape (len(data) // 8,) over ``data`` (packed by ``compute``)."""
    return np.frombuffer(data, dtype=_DTYPE)
