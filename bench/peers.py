"""Near-duplicate detectors behind one interface, for the benchmark.

Every detector indexes works with ``index(work_id, text)``, makes them queryable with
``commit()`` (timed with the indexing: datasketch's Redis storage buffers its writes, the
engine indexes all the works at once with ``Engine.add_works``), and
answers ``query(text)`` with the set of work ids it considers copied in the page; ``close()``
releases what it holds (a Redis database is flushed, a MongoDB database dropped). Peers:

- ``minhash``: datasketch ``MinHashLSH`` over character 5-gram shingles (whitespace removed),
  128 permutations, LSH threshold 0.5 (datasketch's default, 0.9, is meant for exact
  near-copies; 0.5 is the usual setting for reprints and gives MinHash its best recall here).
- ``minhash-redis``: the same with datasketch's Redis storage (insertion session, buffered).
- ``simhash``: the PyPI ``simhash`` package, 64-bit fingerprints of its default features
  (character 4-grams of the word characters), near-duplicate when the Hamming distance is at
  most 3, found with its ``SimhashIndex`` (permuted blocks, Manku et al. 2007).
- ``nshash``: the nshash method (design notes, section 4): the MD5 of each of the 5 longest
  sentences; a page matches every work sharing any of those hashes.
- ``engine``, ``engine-fixed``, ``engine-redis``: the project's engine (``fingerprint``) in its
  default mode, in Daguan's fixed-offset mode (``EngineConfig(window_mode="fixed")``), and with
  the platform's backends (``RedisIndex`` + ``MongoWorkStore``); a work matches when
  ``Engine.match`` returns it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Protocol

from datasketch import MinHash, MinHashLSH
from simhash import Simhash, SimhashIndex

MINHASH_PERMS = 128
MINHASH_SHINGLE = 5  # characters
MINHASH_THRESHOLD = 0.5  # estimated Jaccard similarity
SIMHASH_BITS = 64
SIMHASH_MAX_DISTANCE = 3  # bits (Manku et al. 2007)
NSHASH_SENTENCES = 5

_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[。！？!?；;…\n]+")


class Detector(Protocol):
    """What the benchmark calls. ``name`` labels the table row."""

    name: str

    def index(self, work_id: str, text: str) -> None:
        """Add one work (text in characters) under ``work_id``."""

    def commit(self) -> list[str] | None:
        """Make every work indexed so far visible to ``query``; a detector that indexes at
        commit returns a message per work it refused (the others None)."""

    def query(self, text: str) -> set[str]:
        """Return the ids of the works found copied in the page ``text``."""

    def close(self) -> None:
        """Release the detector's index (flush its Redis database, drop its MongoDB database)."""


def shingles(text: str, size: int = MINHASH_SHINGLE) -> set[bytes]:
    """Character ``size``-gram shingles of the text with whitespace removed, UTF-8 encoded.

    Args:
        text: any text.
        size: shingle length in characters.

    Returns:
        The distinct shingles (one shingle, the whole text, when it is shorter than ``size``).
    """
    flat = _SPACE.sub("", text)
    return {flat[i:i + size].encode("utf-8") for i in range(max(1, len(flat) - size + 1))}


class MinHashDetector:
    """datasketch MinHashLSH, character 5-gram shingles, 128 permutations, threshold 0.5.

    Args:
        redis_url: None for datasketch's in-memory storage, else a ``redis://host:port/db`` URL
            for its Redis storage (that database is flushed on close).
    """

    def __init__(self, redis_url: str | None = None) -> None:
        self.name = "minhash-redis" if redis_url else "minhash"
        self._redis_url = redis_url
        storage = None
        if redis_url:
            import redis

            client = redis.Redis.from_url(redis_url)
            kwargs = client.connection_pool.connection_kwargs
            storage = {"type": "redis", "basename": b"bench",
                       "redis": {"host": kwargs["host"], "port": kwargs["port"],
                                 "db": kwargs.get("db", 0)}}
        self._lsh = MinHashLSH(threshold=MINHASH_THRESHOLD, num_perm=MINHASH_PERMS,
                               storage_config=storage)
        template = MinHash(num_perm=MINHASH_PERMS)  # reused: generating them costs 250 us
        self._permutations, self._scheme = template.permutations, template.scheme
        self._session = self._lsh.insertion_session() if redis_url else None

    def _minhash(self, text: str) -> MinHash:
        minhash = MinHash(num_perm=MINHASH_PERMS, permutations=self._permutations,
                          scheme=self._scheme)
        minhash.update_batch(list(shingles(text)))
        return minhash

    def index(self, work_id: str, text: str) -> None:
        (self._session or self._lsh).insert(work_id, self._minhash(text))

    def commit(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def query(self, text: str) -> set[str]:
        return set(self._lsh.query(self._minhash(text)))

    def close(self) -> None:
        if self._redis_url:
            import redis

            redis.Redis.from_url(self._redis_url).flushdb()


class SimhashDetector:
    """PyPI ``simhash``: 64 bits, Hamming distance <= 3, with its SimhashIndex."""

    name = "simhash"

    def __init__(self) -> None:
        quiet = logging.getLogger("bench.simhash")
        quiet.setLevel(logging.ERROR)  # it warns on every bucket of more than 200 entries
        self._index = SimhashIndex([], f=SIMHASH_BITS, k=SIMHASH_MAX_DISTANCE, log=quiet)

    def index(self, work_id: str, text: str) -> None:
        self._index.add(work_id, Simhash(text, f=SIMHASH_BITS))

    def commit(self) -> None:
        pass

    def query(self, text: str) -> set[str]:
        return set(self._index.get_near_dups(Simhash(text, f=SIMHASH_BITS)))

    def close(self) -> None:
        pass


def longest_sentences(text: str, count: int = NSHASH_SENTENCES) -> list[str]:
    """The ``count`` longest sentences (split at 。！？!?；;… and newlines, whitespace removed).

    Args:
        text: any text.
        count: how many sentences to keep.

    Returns:
        Up to ``count`` distinct sentences, longest first (ties in text order).
    """
    pieces = dict.fromkeys(_SPACE.sub("", piece) for piece in _SENTENCE_END.split(text))
    return sorted((p for p in pieces if p), key=len, reverse=True)[:count]  # stable: text order


class NSHashDetector:
    """nshash-style baseline: MD5 of the 5 longest sentences, any shared hash is a match."""

    name = "nshash"

    def __init__(self) -> None:
        self._postings: dict[bytes, set[str]] = defaultdict(set)

    @staticmethod
    def _hashes(text: str) -> list[bytes]:
        return [hashlib.md5(s.encode("utf-8")).digest() for s in longest_sentences(text)]

    def index(self, work_id: str, text: str) -> None:
        for key in self._hashes(text):
            self._postings[key].add(work_id)

    def commit(self) -> None:
        pass

    def query(self, text: str) -> set[str]:
        found: set[str] = set()
        for key in self._hashes(text):
            found |= self._postings.get(key, set())
        return found

    def close(self) -> None:
        self._postings.clear()


class EngineDetector:
    """The project's engine, in memory or on the platform's Redis + MongoDB backends.

    Args:
        window_mode: None for the default configuration, else ``EngineConfig(window_mode=...)``
            (``"fixed"`` is Daguan's fixed-offset mode).
        redis_url: None for MemoryIndex + MemoryWorkStore; else RedisIndex on this URL (its
            database is flushed on close) with a MongoWorkStore on ``mongo_url``.
        mongo_url: MongoDB URL, required with ``redis_url``; database ``bench_engine`` is
            dropped on close.
        rewrite: the rewrite stage on (its keys in a second index, ``fingerprint.rewrite``).

    Raises:
        ImportError: the ``fingerprint`` package is not there yet.
    """

    def __init__(self, window_mode: str | None = None, redis_url: str | None = None,
                 mongo_url: str | None = None, rewrite: bool = True) -> None:
        from fingerprint import Engine, EngineConfig

        config = EngineConfig(window_mode=window_mode or "content", rewrite_stage=rewrite)
        self.name = "engine" + (f"-{window_mode}" if window_mode else "") + \
            ("-redis" if redis_url else "") + ("" if rewrite else "-first")
        self._redis_url, self._mongo = redis_url, None
        if redis_url:
            import pymongo
            import redis

            from fingerprint.index import RedisIndex
            from fingerprint.store import MongoWorkStore

            self._mongo = pymongo.MongoClient(mongo_url)
            index = RedisIndex(redis.Redis.from_url(redis_url), prefix="bench")
            rewrite_index = RedisIndex(redis.Redis.from_url(redis_url), prefix="bench-rw")
            store = MongoWorkStore(self._mongo["bench_engine"])
        else:
            from fingerprint.index import MemoryIndex
            from fingerprint.store import MemoryWorkStore

            index, rewrite_index, store = MemoryIndex(), MemoryIndex(), MemoryWorkStore()
        self._engine = Engine(index, store, config=config,
                              rewrite_index=rewrite_index if rewrite else None)
        self._pending: list[tuple[str, str]] = []  # (work_id, text) until commit

    def index(self, work_id: str, text: str) -> None:
        self._pending.append((work_id, text))

    def commit(self) -> list[str]:
        pending, self._pending = self._pending, []
        try:
            self._engine.add_works(pending)
            return []
        except ValueError:  # a work refused (too short): add them one by one, skipping it
            refused = []
            for work_id, text in pending:
                try:
                    self._engine.add_work(work_id, text)
                except ValueError as exc:
                    refused.append(f"index {work_id}: {type(exc).__name__}: {exc}")
            return refused

    def query(self, text: str) -> set[str]:
        return {match.work_id for match in self._engine.match(text)}

    def close(self) -> None:
        if self._redis_url:
            import redis

            redis.Redis.from_url(self._redis_url).flushdb()
        if self._mongo is not None:
            self._mongo.drop_database("bench_engine")
            self._mongo.close()


def factories(redis_url: str | None = None,
              mongo_url: str | None = None) -> dict[str, Callable[[], Detector]]:
    """Detector name -> constructor of a fresh, empty detector.

    Args:
        redis_url: URL of a Redis database the benchmark may flush; None leaves out the
            Redis-backed detectors.
        mongo_url: MongoDB URL for ``engine-redis``'s work store.

    Returns:
        The constructors, memory peers first, then the engine's modes, then the Redis-backed
        ones. The engine's constructors raise ImportError while ``fingerprint`` is missing.
    """
    made: dict[str, Callable[[], Detector]] = {
        "minhash": MinHashDetector,
        "simhash": SimhashDetector,
        "nshash": NSHashDetector,
        "engine": EngineDetector,
        "engine-fixed": lambda: EngineDetector(window_mode="fixed"),
        "engine-first": lambda: EngineDetector(rewrite=False),
    }
    if redis_url:
        made["minhash-redis"] = lambda: MinHashDetector(redis_url)
        made["engine-redis"] = lambda: EngineDetector(redis_url=redis_url, mongo_url=mongo_url)
    return made
