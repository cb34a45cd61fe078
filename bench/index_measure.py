"""Measure the index backends alone (no engine): memory per window, add and lookup throughput.

Run by hand (not a test)::

    .venv/bin/python -m bench.index_measure --windows 100000 --runs 5

Works are real chapters (``--novels``, JSON Lines with ``id`` and ``text``, gzip ok), turned
into postings by the default Engine, taken in file order until ``--windows`` postings; the
queries are the keys (with probing) of ``--queries`` later chapters that are not indexed.
Redis runs on a private ``redis-server`` started for the measurement (``lib.runtime.embedded``),
so ``INFO used_memory`` counts nothing else. Prints one JSON object (medians over ``--runs``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import redis

from fingerprint import Engine
from fingerprint.index import MemoryIndex, RedisIndex
from lib.runtime import embedded


def load_postings(path: Path, windows: int, queries: int):
    """([(work_id, postings)], [query key lists]) from the chapters in ``path``."""
    engine = Engine(None, None)
    works, query_keys, total = [], [], 0
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            letters = engine.letters(record["text"])
            if len(letters) < 200:
                continue
            if total < windows:
                postings = engine.postings(letters)
                works.append((record["id"], postings))
                total += len(postings)
            elif len(query_keys) < queries:
                query_keys.append(engine.query_keys(letters))
            else:
                break
    return works, query_keys


def timed(fn) -> float:
    """Seconds taken by fn()."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(index_factory, works, query_keys, runs: int, reset) -> dict:
    """Median add and lookup throughput over ``runs`` fresh indexes."""
    windows = sum(len(p) for _, p in works)
    keys = sum(len(k) for k in query_keys)
    add, look = [], []
    for _ in range(runs):
        reset()
        index = index_factory()
        add.append(timed(lambda index=index: [index.add(w, p) for w, p in works]))
        look.append(timed(lambda index=index: [index.lookup(k) for k in query_keys]))
    return {
        "add_windows_per_s": round(windows / statistics.median(add)),
        "lookups_per_s": round(len(query_keys) / statistics.median(look)),
        "lookup_keys_per_s": round(keys / statistics.median(look)),
        "keys_per_lookup": round(keys / len(query_keys)),
        "add_s_runs": [round(t, 3) for t in add],
        "lookup_s_runs": [round(t, 3) for t in look],
    }


def memory_bytes(works) -> float:
    """Python heap bytes per window of a MemoryIndex holding ``works`` (tracemalloc)."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    index = MemoryIndex()
    for work_id, postings in works:
        index.add(work_id, postings)
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return used / index.stats()["windows"]


def redis_bytes(client: redis.Redis, works) -> dict:
    """INFO used_memory growth per window, and MEMORY USAGE of the group hashes per window."""
    client.flushall()
    before = client.info("memory")["used_memory"]
    index = RedisIndex(client, prefix="fp")
    for work_id, postings in works:
        index.add(work_id, postings)
    stats = index.stats()
    used = client.info("memory")["used_memory"] - before
    pipe = client.pipeline(transaction=False)
    for group in range(stats["groups"]):
        pipe.memory_usage(f"fp:g:{group}", samples=0)
    postings_bytes = sum(pipe.execute())
    return {"used_memory_bytes_per_window": round(used / stats["windows"], 1),
            "posting_hashes_bytes_per_window": round(postings_bytes / stats["windows"], 1),
            "buckets": stats["buckets"], "windows": stats["windows"]}


def df_profile(works, limits=(10, 100, 1000)) -> dict:
    """Share of keys and of postings above each document-frequency limit."""
    index = MemoryIndex(max_df=2**31)  # no stop-list: lookup returns every key's postings
    for work_id, postings in works:
        index.add(work_id, postings)
    stats = index.stats()
    shared = index.lookup(list(index._df))  # the keys held by two works or more
    out = {}
    for limit in limits:
        stopped = [k for k, d in index._df.items() if d > limit]
        out[f"df>{limit}"] = {"keys_share": round(len(stopped) / stats["keys"], 4),
                              "postings_share": round(sum(len(shared[k]) for k in stopped)
                                                      / stats["windows"], 4)}
    return out


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the measurements, print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--novels", default="../shared/data/novels_dev.jsonl.gz")
    parser.add_argument("--windows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    works, query_keys = load_postings(Path(args.novels), args.windows, args.queries)
    random_works = [(f"r{i}", [(random.getrandbits(64), j) for j in range(100)])
                    for i in range(args.windows // 100)]
    report = {"works": len(works), "windows": sum(len(p) for _, p in works),
              "queries": len(query_keys), "df": df_profile(works),
              "memory": measure(MemoryIndex, works, query_keys, args.runs, lambda: None),
              "memory_python_heap_bytes_per_window": round(memory_bytes(works), 1)}
    with tempfile.TemporaryDirectory() as tmp:
        index = MemoryIndex()
        for work_id, postings in works:
            index.add(work_id, postings)
        index.save(tmp)
        disk = sum(f.stat().st_size for f in Path(tmp).iterdir())
        report["memory_saved_bytes_per_window"] = round(disk / report["windows"], 1)
        server = embedded.start_redis(Path(tmp) / "redis", persist=False)
        try:
            client = redis.Redis.from_url(server.url)
            report["redis"] = measure(lambda: RedisIndex(client), works, query_keys, args.runs,
                                      client.flushall)
            report["redis_bytes_real_keys"] = redis_bytes(client, works)
            report["redis_bytes_random_64bit_keys"] = redis_bytes(client, random_works)
            report["redis_server"] = client.info("server")["redis_version"]
        finally:
            server.stop()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
