"""Index backends: MemoryIndex and RedisIndex behave the same (add, replace, remove, stop-list,
lookup), MemoryIndex saves and loads, RedisIndex keeps its documented key layout and runs on a
real three-node Redis Cluster (cluster-mode redis-server processes started here)."""

from __future__ import annotations

import json
import multiprocessing
import random
import socket
import subprocess
import sys
import threading
import time
from array import array
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import redis
from redis.cluster import RedisCluster

from fingerprint.index import (
    Index,
    IndexLayoutError,
    IndexUnavailableError,
    IndexVersionError,
    MemoryIndex,
    RedisIndex,
    RevisedIndex,
)
from fingerprint.index.directory import DIRECT_MIN_KEYS, KeyDirectory
from fingerprint.index.packing import varint_decode
from fingerprint.index.redis import BATCH
from lib.runtime.embedded import free_port, redis_server_path

V = "test-v1"


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.services)])
def make_index(request):
    """Factory of empty indexes of one backend: make_index(max_df=..., version=...)."""
    if request.param == "memory":
        return lambda **kw: MemoryIndex(**{"version": V, **kw})
    client = request.getfixturevalue("redis_client")
    return lambda **kw: RedisIndex(client, prefix="t", **{"version": V, **kw})


def as_sets(found):
    return {k: sorted(v) for k, v in found.items()}


def test_backends_implement_the_protocol(redis_client):
    assert isinstance(MemoryIndex(version=V), Index)
    assert isinstance(RedisIndex(redis_client, version=V), Index)


def test_lookup_revisions_change_with_every_add_of_a_work(make_index):
    index = make_index()
    assert isinstance(index, RevisedIndex)
    index.add("a", [(10, 0), (11, 1)])
    index.add("b", [(10, 5)])
    found, revisions = index.lookup_revisions([10, 11, 12])
    assert as_sets(found) == as_sets(index.lookup([10, 11, 12]))
    assert set(revisions) == {"a", "b"} and revisions["a"] != revisions["b"]
    assert index.lookup_revisions([11])[1] == {"a": revisions["a"]}  # only the works found
    seen = set(revisions.values())
    index.add("a", [(10, 0), (11, 1)])  # the same postings again: a new revision all the same
    again = index.lookup_revisions([10])[1]
    assert again["b"] == revisions["b"] and again["a"] not in seen
    seen.add(again["a"])
    index.clear()
    index.add("a", [(10, 0), (11, 1)])  # numbers may restart after a clear, revisions do not
    assert index.lookup_revisions([10])[1]["a"] not in seen
    assert index.lookup_revisions([99]) == ({}, {})


def test_add_and_lookup(make_index):
    index = make_index()
    assert index.add("a", [(10, 0), (11, 1), (10, 2), (10, 0)]) == 3  # duplicate counted once
    assert index.add("b", [(10, 5)]) == 1
    found = as_sets(index.lookup([10, 11, 12, 10]))
    assert found == {10: [("a", 0), ("a", 2), ("b", 5)], 11: [("a", 1)]}
    assert index.has_work("a") and not index.has_work("zz")
    assert sorted(index.work_ids()) == ["a", "b"]
    stats = index.stats()
    assert (stats["works"], stats["windows"]) == (2, 4)


def test_readd_replaces(make_index):
    index = make_index()
    index.add("a", [(1, 0), (2, 1)])
    assert index.add("a", [(3, 0)]) == 1
    assert as_sets(index.lookup([1, 2, 3])) == {3: [("a", 0)]}
    assert index.stats()["windows"] == 1


def test_remove_is_exact(make_index):
    index = make_index()
    index.add("a", [(1, 0), (2, 1)])
    index.add("b", [(1, 7), (3, 0)])
    assert index.remove("a") == 2
    assert index.remove("a") == 0
    assert as_sets(index.lookup([1, 2, 3])) == {1: [("b", 7)], 3: [("b", 0)]}
    assert list(index.work_ids()) == ["b"]
    assert index.stats()["windows"] == 2


def test_stop_list_by_document_frequency(make_index):
    index = make_index(max_df=2)
    index.add("a", [(1, 0), (1, 1), (9, 0)])  # two windows of one work: df stays 1
    index.add("b", [(1, 0)])
    assert as_sets(index.lookup([1])) == {1: [("a", 0), ("a", 1), ("b", 0)]}
    index.add("c", [(1, 4)])  # df 3 > max_df
    assert index.lookup([1, 9]) == {9: [("a", 0)]}
    index.remove("b")  # df back to 2
    assert as_sets(index.lookup([1])) == {1: [("a", 0), ("a", 1), ("c", 4)]}


@pytest.mark.parametrize("bad", [[(-1, 0)], [(2**64, 0)], [(1, -1)], [(1, 2**32)]])
def test_out_of_range_posting_stores_nothing(make_index, bad):
    index = make_index()
    with pytest.raises(ValueError, match="out of range"):
        index.add("a", [(5, 0), *bad])
    assert not index.has_work("a") and index.lookup([5]) == {}


def test_empty_work_id_rejected(make_index):
    with pytest.raises(ValueError, match="work_id"):
        make_index().add("", [(1, 0)])


def test_large_keys_and_windows_round_trip(make_index):
    index = make_index()
    index.add("big", [(2**64 - 1, 2**32 - 1), (2**40 + 3, 0)])
    assert as_sets(index.lookup([2**64 - 1, 2**40 + 3])) == {
        2**64 - 1: [("big", 2**32 - 1)], 2**40 + 3: [("big", 0)]}
    assert index.remove("big") == 2
    assert index.lookup([2**64 - 1]) == {}
    # a small key with a huge window (stored wide in Redis) next to small windows of it
    index.add("huge", [(7, 2**32 - 1), (7, 1), (8, 2**24)])
    index.add("small", [(7, 2)])
    assert as_sets(index.lookup([7, 8])) == {7: [("huge", 1), ("huge", 2**32 - 1), ("small", 2)],
                                             8: [("huge", 2**24)]}
    assert index.remove("huge") == 3
    assert index.lookup([7, 8]) == {7: [("small", 2)]}


def test_clear(make_index):
    index = make_index()
    index.add("a", [(1, 0)])
    index.clear()
    assert index.lookup([1]) == {} and list(index.work_ids()) == []


def replay_random_operations(rng, memory, other, steps, make_postings) -> None:
    """Apply the same random adds and removes to both indexes, checking their answers agree."""
    works = [f"w{i}" for i in range(12)]
    for _ in range(steps):
        work = rng.choice(works)
        if rng.random() < 0.25:
            assert memory.remove(work) == other.remove(work)
        else:
            postings = make_postings()
            assert memory.add(work, postings) == other.add(work, postings)
    assert sorted(memory.work_ids()) == sorted(other.work_ids())
    assert memory.stats()["windows"] == other.stats()["windows"]


def test_backends_agree_on_random_operations(redis_client):
    rng = random.Random(7)
    memory = MemoryIndex(max_df=3, version=V)
    red = RedisIndex(redis_client, prefix="r", max_df=3, version=V)
    replay_random_operations(rng, memory, red, 60, lambda: [
        (rng.randrange(40), rng.randrange(50)) for _ in range(rng.randrange(1, 15))])
    keys = list(range(40))
    assert as_sets(memory.lookup(keys)) == as_sets(red.lookup(keys))


# --- MemoryIndex save / load -------------------------------------------------------------

def test_memory_save_load_round_trip(tmp_path):
    index = MemoryIndex(max_df=2, version=V)
    index.add("a", [(1, 0), (2, 1), (1, 3)])
    index.add("gone", [(1, 9), (7, 7)])
    index.add("b", [(1, 4), (3, 0)])
    index.add("c", [(1, 5)])  # key 1 now in 3 works: stop-listed
    index.remove("gone")  # leaves a hole in the work numbers
    index.add("中文", [])
    index.save(tmp_path / "idx")
    loaded = MemoryIndex.load(tmp_path / "idx", version=V)
    keys = [1, 2, 3, 7]
    assert as_sets(loaded.lookup(keys)) == as_sets(index.lookup(keys)) == {
        2: [("a", 1)], 3: [("b", 0)]}
    assert loaded.stats() == index.stats()
    assert sorted(loaded.work_ids()) == ["a", "b", "c", "中文"]
    # the loaded index still removes exactly and keeps document frequencies
    loaded.remove("c")
    assert as_sets(loaded.lookup([1])) == {1: [("a", 0), ("a", 3), ("b", 4)]}
    loaded.save(tmp_path / "idx")
    assert MemoryIndex.load(tmp_path / "idx", version=V).stats()["windows"] == 5


def test_memory_load_other_version_raises(tmp_path):
    index = MemoryIndex(version="old-1")
    index.add("a", [(1, 0)])
    index.save(tmp_path)
    with pytest.raises(IndexVersionError, match="old-1"):
        MemoryIndex.load(tmp_path, version=V)


def test_memory_load_missing_or_inconsistent(tmp_path):
    with pytest.raises(FileNotFoundError, match="no fingerprint index"):
        MemoryIndex.load(tmp_path / "nothing", version=V)
    index = MemoryIndex(version=V)
    index.add("a", [(1, 0)])
    index.save(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["windows"] = 99
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="do not match"):
        MemoryIndex.load(tmp_path, version=V)


def test_memory_save_empty(tmp_path):
    MemoryIndex(version=V).save(tmp_path)
    assert MemoryIndex.load(tmp_path, version=V).stats()["works"] == 0


def test_memory_loaded_arrays_answer_like_the_dicts(tmp_path):
    """A loaded index answers from its sorted arrays (narrow keys in Elias-Fano form, wide
    keys plain) exactly as the index that was saved, stop-list included; a change after the
    load works on the dicts again."""
    rng = random.Random(5)
    index = MemoryIndex(max_df=3, version=V)
    for n in range(40):
        index.add(f"w{n}", [(rng.randrange(5000), rng.randrange(3000)) for _ in range(200)]
                  + [(rng.getrandbits(64), rng.randrange(2**32)), (2**40 + n % 3, 7)])
    for n in range(0, 40, 7):
        index.remove(f"w{n}")
    index.save(tmp_path)
    loaded = MemoryIndex.load(tmp_path, version=V)
    keys = list(index._post) + list(range(5000)) + [2**40, 2**40 + 1, 2**64 - 1]
    assert loaded._arrays is not None
    assert as_sets(loaded.lookup(keys)) == as_sets(index.lookup(keys))
    assert as_sets(loaded.lookup_revisions(keys)[0]) == as_sets(index.lookup(keys))
    assert loaded.stats() == index.stats() and loaded.stats()["stop_listed"] > 0
    loaded.add("new", [(1, 1)])
    index.add("new", [(1, 1)])
    assert loaded._arrays is None
    assert as_sets(loaded.lookup(keys)) == as_sets(index.lookup(keys))


@pytest.mark.parametrize("direct_min", [0, DIRECT_MIN_KEYS])
@pytest.mark.parametrize("shape", ["uniform", "skewed", "few", "wide only", "empty"])
def test_key_directory_finds_exactly_what_binary_search_finds(shape, direct_min):
    """The loaded index's KeyDirectory gives every query key the position binary search over
    the sorted keys gives (or -1 when absent): uniform 35-bit keys, keys crowded into a few
    buckets, tiny and empty arrays, keys above the direct-addressed limit; with the directory
    (direct_min 0) and without it (fewer keys than DIRECT_MIN_KEYS)."""
    rng = np.random.default_rng(len(shape))
    limit = 2**40
    keys = {
        "uniform": rng.integers(0, 2**35, 20_000, dtype=np.uint64),
        "skewed": np.concatenate([rng.integers(0, 2**12, 3_000, dtype=np.uint64),
                                  rng.integers(0, 2**39, 2_000, dtype=np.uint64)]),
        "few": np.array([0, 1, 2**39], dtype=np.uint64),
        "wide only": rng.integers(2**40, 2**64 - 1, 500, dtype=np.uint64),
        "empty": np.zeros(0, dtype=np.uint64),
    }[shape]
    keys = np.unique(np.concatenate([keys, rng.integers(2**63, 2**64 - 1, 50, dtype=np.uint64)])
                     if shape != "empty" else keys)
    directory = KeyDirectory(keys, limit, direct_min)
    query = np.concatenate([keys[::3], rng.integers(0, 2**36, 5_000, dtype=np.uint64),
                            keys[::7] + np.uint64(1), np.array([0, limit - 1, limit, 2**64 - 1],
                                                               dtype=np.uint64)])
    expected = np.searchsorted(keys, query)
    expected = np.where((expected < len(keys))
                        & (keys[np.minimum(expected, max(len(keys) - 1, 0))] == query
                           if len(keys) else False), expected, -1)
    assert np.array_equal(directory.find(query), expected)
    assert (directory.find(keys) == np.arange(len(keys))).all()


def brute_force_lookup(postings: dict[str, set], keys: list[int], max_df: int) -> dict:
    """What a lookup of ``keys`` must answer, from a scan of every work's (key, window)
    postings: {key: sorted [(work_id, window)]} for the keys held by at most max_df works."""
    brute, asked = {}, set(keys)
    for work_id, work in postings.items():
        for key, window in work:
            brute.setdefault(key, []).append((work_id, window))
    return {k: sorted(v) for k, v in brute.items()
            if k in asked and len({w for w, _ in v}) <= max_df}


@pytest.mark.parametrize("direct_min", [0, DIRECT_MIN_KEYS])
def test_memory_loaded_index_agrees_with_brute_force_on_random_keys(tmp_path, monkeypatch,
                                                                   direct_min):
    """A loaded index of 35-bit keys (many works sharing keys) answers random keys, present
    and absent, as a brute-force scan of all postings does, the stop-list too: with its keys
    in a KeyDirectory (as from DIRECT_MIN_KEYS keys on) and binary-searched."""
    monkeypatch.setattr("fingerprint.index.directory.DIRECT_MIN_KEYS", direct_min)
    rng = random.Random(11)
    index = MemoryIndex(max_df=4, version=V)
    postings = {}
    common = [rng.getrandbits(35) for _ in range(300)]
    for n in range(60):
        work = [(rng.getrandbits(35), rng.randrange(5000)) for _ in range(300)]
        work += [(rng.choice(common), rng.randrange(5000)) for _ in range(30)]
        index.add(f"w{n}", work)
        postings[f"w{n}"] = set(work)
    index.save(tmp_path)
    loaded = MemoryIndex.load(tmp_path, version=V)
    keys = [k for work in postings.values() for k, _ in work][::5] + common \
        + [rng.getrandbits(35) for _ in range(2000)]
    brute = brute_force_lookup(postings, keys, max_df=4)
    assert as_sets(loaded.lookup(keys)) == brute
    assert any(len({w for w, _ in v}) > 1 for v in brute.values())


@pytest.mark.parametrize("presence_min", [0, 1 << 20])
def test_memory_index_with_a_presence_filter_answers_as_without(monkeypatch, presence_min):
    """The dicts' lookups, with a PresenceFilter in front (as from PRESENCE_MIN_KEYS keys on)
    and without, answer random keys as a brute-force scan of the postings does: present and
    absent keys, wide keys (bit 63 set), after removes and re-adds, and after the filter
    filled up and was rebuilt larger."""
    monkeypatch.setattr("fingerprint.index.memory.PRESENCE_MIN_KEYS", presence_min)
    rng = random.Random(12)
    index = MemoryIndex(max_df=4, version=V)
    postings = {}
    common = [rng.getrandbits(35) for _ in range(200)]

    def check():
        keys = [k for work in postings.values() for k, _ in work][::3] + common \
            + [rng.getrandbits(35) for _ in range(3000)] + [2**64 - 1, 0]
        assert as_sets(index.lookup(keys)) == brute_force_lookup(postings, keys, max_df=4)
        assert index.lookup([]) == {}

    for n in range(40):  # the filter (sized for 2x the keys at its first lookup) fills up
        work = [(rng.getrandbits(35), rng.randrange(5000)) for _ in range(400)]
        work += [(rng.choice(common), rng.randrange(5000)) for _ in range(20)]
        work += [(2**63 + rng.getrandbits(63), 0)]
        index.add(f"w{n}", work)
        postings[f"w{n}"] = set(work)
        if n % 8 == 0:
            check()
    for n in range(0, 40, 5):
        index.remove(f"w{n}")
        del postings[f"w{n}"]
    check()
    index.add("w0", [(k, 1) for k in common[:50]])
    postings["w0"] = {(k, 1) for k in common[:50]}
    check()
    assert (index._presence is not None) == (presence_min == 0)


def test_memory_saved_index_is_small(tmp_path):
    """100,000 postings of 35-bit keys (the default window keys' width) over 500 works take
    at most 8 bytes per posting on disk, all files included."""
    rng = random.Random(9)
    index = MemoryIndex(version=V)
    for n in range(500):
        index.add(f"work-{n}", [(rng.getrandbits(35), w) for w in range(200)])
    index.save(tmp_path)
    size = sum(f.stat().st_size for f in tmp_path.iterdir())
    assert size / index.stats()["windows"] <= 8


def test_memory_index_of_the_old_format_is_refused_then_rebuilt(tmp_path):
    """A folder saved by the first format (CSR arrays, manifest format_version 1) is refused
    with a message naming the rebuild; `python -m fingerprint index` rebuilds it."""
    old = tmp_path / "db" / "index"
    old.mkdir(parents=True)
    (old / "manifest.json").write_text(json.dumps({
        "format": "fingerprint-memory-index", "format_version": 1, "fingerprint_version": V,
        "works": 0, "windows": 0, "keys": 0, "max_df": 100}))
    with pytest.raises(IndexLayoutError, match="format 1.*python -m fingerprint index"):
        MemoryIndex.load(old, version=V)
    works = tmp_path / "works.jsonl"
    text = "\n".join(f"第{n}回 甄士隐梦幻识通灵 贾雨村风尘怀闺秀 此开卷第一回也 作者自云 曾历过一番梦幻之后"
                     f" 故将真事隐去 而借通灵之说 撰此石头记一书也 {n}" for n in range(20))
    works.write_text(json.dumps({"id": "hlm-1", "text": text}, ensure_ascii=False) + "\n")
    proc = subprocess.run([sys.executable, "-m", "fingerprint", "index", "--db",
                           str(tmp_path / "db"), str(works)], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "format 1" in proc.stderr
    assert json.loads((old / "manifest.json").read_text())["format_version"] == 2
    assert MemoryIndex.load(old).has_work("hlm-1")


# --- RedisIndex specifics ------------------------------------------------------------------

BOOKKEEPING = {"seq", "windows", "version", "groups", "layout", "epoch"}


def left_keys(client, prefix: str) -> set[str]:
    """Keys under ``prefix:`` other than the group hashes, without the prefix."""
    return {k.decode().split(":", 1)[1] for k in client.scan_iter(f"{prefix}:*")
            if b":g:" not in k}


def test_redis_key_layout_and_exact_cleanup(redis_client):
    index = RedisIndex(redis_client, prefix="lay", version=V, groups=16)
    index.add("a", [(5, 0), (5, 3), (6, 1)])
    index.add("b", [(5, 2)])
    group, x = index._address(np.array([5], dtype=np.uint64))
    assert index.group_name(5) == f"lay:g:{int(group[0])}"
    level = 12 - 4  # 4096 buckets over 16 groups
    bucket, r = int(x[0]) % 2**level, int(x[0]) >> level
    value = redis_client.hget(index.group_name(5), str(bucket))
    entries = [value[i:i + 9] for i in range(0, len(value), 9)]
    # narrow postings: r, work number, window, 3 bytes each, little-endian
    a, b = (work_number(redis_client, "lay", w) for w in ("a", "b"))
    assert sorted(entries) == sorted(
        r.to_bytes(3, "little") + n.to_bytes(3, "little") + w.to_bytes(3, "little")
        for n, w in ((a, 0), (a, 3), (b, 2)))
    meta = redis_client.hget(index.group_name(5), "")
    assert meta.split(b":")[:2] == [str(level).encode(), b"0"] and len(meta) == 80
    assert redis_client.hget("lay:names", a) == b"a"
    assert redis_client.get("lay:version") == V.encode()
    assert redis_client.get("lay:layout") == b"2"
    index.remove("a")
    value = redis_client.hget(index.group_name(5), str(bucket))
    assert value == r.to_bytes(3, "little") + b.to_bytes(3, "little") + (2).to_bytes(3, "little")
    assert redis_client.object("encoding", index.group_name(5)) == b"hashtable"
    assert index.lookup([5, 6]) == {5: [("b", 2)]}
    index.remove("b")
    assert index.stats()["buckets"] == 0 and index.stats()["windows"] == 0
    assert left_keys(redis_client, "lay") == BOOKKEEPING
    assert all(set(redis_client.hkeys(k)) == {b""} for k in redis_client.scan_iter("lay:g:*"))


def work_number(client, prefix: str, work_id: str) -> int:
    """The work number in the work's ``P:ids`` record (its first varint)."""
    return int(varint_decode(client.hget(f"{prefix}:ids", work_id))[0])


def test_redis_buckets_split_and_stay_exact(redis_client):
    """With a load of 1 posting per bucket, adds split buckets over and over (linear
    hashing); lookups by this and by another client, stop-list and removals stay exact."""
    rng = random.Random(3)
    memory = MemoryIndex(max_df=3, version=V)
    red = RedisIndex(redis_client, prefix="split", max_df=3, version=V, groups=4, load=1)
    replay_random_operations(rng, memory, red, 60, lambda: [
        *((rng.randrange(20000), rng.randrange(500)) for _ in range(rng.randrange(1, 1500))),
        (rng.getrandbits(64), rng.randrange(2**32))])
    metas = [redis_client.hget(f"split:g:{g}", "").split(b":") for g in range(4)]
    # each group started at level 10 (4096 buckets over 4 groups) and has split since
    assert all((int(m[0]), int(m[1])) > (10, 0) for m in metas)
    keys = list(memory._post) + list(range(20000))
    other = RedisIndex(redis_client, prefix="split", version=V, max_df=3)  # stale levels
    assert as_sets(memory.lookup(keys)) == as_sets(red.lookup(keys)) \
        == as_sets(other.lookup(keys))
    for work in list(memory.work_ids()):
        assert memory.remove(work) == red.remove(work)
    assert red.lookup(keys) == {} and red.stats()["windows"] == 0
    assert all(set(redis_client.hkeys(k)) == {b""} for k in redis_client.scan_iter("split:g:*"))


def _add_works(url: str, prefix: str, first: int) -> None:
    """Child process: add works first..first+19 with load 1 (a split after nearly every add)."""
    client = redis.Redis.from_url(url)
    index = RedisIndex(client, prefix=prefix, version=V, groups=2, load=1)
    for n in range(first, first + 20):
        index.add(f"w{n}", concurrent_postings(n))


def concurrent_postings(n: int) -> list[tuple[int, int]]:
    """Postings of work n in the concurrency test: keys shared by all works, plus its own."""
    rng = random.Random(n)
    return [(rng.randrange(6000), w) for w in range(300)] + [(10**6 + n, 0)]


def test_redis_concurrent_writers_lose_nothing(redis_client):
    """Two processes add different works to the same buckets while those buckets split: every
    posting of both is found, with exact document frequencies."""
    url = redis_client.connection_pool.connection_kwargs
    url = f"redis://{url['host']}:{url['port']}/{url.get('db', 0)}"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_add_works, args=(url, "conc", first)) for first in (0, 20)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    memory = MemoryIndex(version=V, max_df=5)
    for n in range(40):
        memory.add(f"w{n}", concurrent_postings(n))
    red = RedisIndex(redis_client, prefix="conc", version=V, max_df=5)
    keys = list(range(6000)) + [10**6 + n for n in range(40)]
    assert as_sets(red.lookup(keys)) == as_sets(memory.lookup(keys))
    assert red.stats()["windows"] == memory.stats()["windows"]
    assert red.stats()["buckets"] > 4096  # the buckets did split under both writers


def test_redis_work_removed_while_looked_up(redis_client):
    """Readers racing a writer that removes and re-adds works never crash and never name a
    work for postings it does not have."""
    writer = RedisIndex(redis_client, prefix="race", version=V, load=1)
    reader = RedisIndex(redis_client, prefix="race", version=V)
    postings = {f"w{n}": [(k, n) for k in range(n * 50, n * 50 + 400)] for n in range(8)}
    for work, ps in postings.items():
        writer.add(work, ps)
    errors, stop = [], threading.Event()

    def read():
        try:
            while not stop.is_set():
                for key, hits in reader.lookup(range(0, 800)).items():
                    for work, window in hits:
                        assert (key, window) in set(postings[work]), (key, work, window)
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for _ in range(3):
            for work, ps in postings.items():
                writer.remove(work)
                writer.add(work, ps)
    finally:
        stop.set()
        thread.join(30)
    assert errors == []
    assert len(reader.lookup(range(800))) == 750


def test_redis_old_layout_is_refused_until_rebuilt(redis_client):
    """An index written by the first layout (a hash field per key, no P:layout) is refused
    with a message naming the rebuild; clear() then gives an empty index of the new layout."""
    # the first layout's keys, as its RedisIndex wrote them for one work with key 5 window 0
    redis_client.set("old:version", V)
    redis_client.set("old:groups", 64)
    redis_client.set("old:epoch", "e1")
    redis_client.set("old:seq", 1)
    redis_client.set("old:windows", 1)
    redis_client.hset("old:ids", "a", 1)
    redis_client.hset("old:names", 1, "a")
    redis_client.hset("old:w:1", mapping={"keys": array("Q", [5]).tobytes(), "windows": 1})
    redis_client.hset("old:g:7", mapping={"": "-" * 1024,
                                          "5": array("I", [1, 1, 0]).tobytes()})
    index = RedisIndex(redis_client, prefix="old", version=V)
    for call in (lambda: index.lookup([5]), lambda: index.add("b", [(1, 0)]), index.check):
        with pytest.raises(IndexLayoutError, match="old layout.*reindex"):
            call()
    assert isinstance(IndexLayoutError("x"), IndexVersionError)  # rebuilt like a version change
    assert redis_client.hget("old:g:7", "5") is not None  # nothing was touched
    index.clear()
    index.add("a", [(5, 0)])
    assert index.lookup([5]) == {5: [("a", 0)]}
    assert redis_client.get("old:layout") == b"2"


def test_redis_loss_does_not_misattribute_cached_work_numbers(redis_client):
    """A long-lived reader caches work number -> id; after Redis loses the index, the numbers
    are given out again from 1 and the reader must not name the old work."""
    writer = RedisIndex(redis_client, prefix="loss", version=V)
    reader = RedisIndex(redis_client, prefix="loss", version=V)
    writer.add("old-work", [(7, 0)])
    assert as_sets(reader.lookup([7])) == {7: [("old-work", 0)]}
    redis_client.flushdb()  # the Redis server lost its data
    writer.add("new-work", [(7, 4)])
    assert work_number(redis_client, "loss", "new-work") == 1  # the same number again
    assert as_sets(reader.lookup([7])) == {7: [("new-work", 4)]}


def test_redis_groups_are_even_and_fixed_per_index(redis_client):
    index = RedisIndex(redis_client, version=V, groups=64)
    groups = Counter(index.group_name(k) for k in range(0, 2**20, 16))  # low bits all 0
    assert len(groups) == 64 and min(groups.values()) > 0.8 * (2**16 / 64)
    index.add("a", [(7, 0)])
    other = RedisIndex(redis_client, version=V, groups=8)  # adopts the stored 64
    assert other.lookup([7]) == {7: [("a", 0)]} and other.groups == 64
    for bad in (12, 128):
        with pytest.raises(ValueError, match="power of two"):
            RedisIndex(redis_client, groups=bad)


def test_redis_lookup_spans_batches_and_other_clients(redis_client):
    writer = RedisIndex(redis_client, prefix="bat", version=V, groups=1)
    keys = list(range(BATCH * 2 + 10))  # one group: several commands and script calls
    writer.add("long", [(k, k) for k in keys])
    reader = RedisIndex(redis_client, prefix="bat", version=V)  # resolves names itself
    found = reader.lookup(keys)
    assert len(found) == len(keys) and found[BATCH + 1] == [("long", BATCH + 1)]
    redis_client.script_flush()  # a restarted server forgets the scripts
    assert writer.remove("long") == len(keys)
    assert reader.lookup(keys) == {}


def test_redis_failed_add_leaves_nothing_findable(redis_client):
    index = RedisIndex(redis_client, prefix="fail", version=V, groups=4)
    keys = list(range(40))  # spread over the 4 groups
    broken = index.group_name(keys[0])
    redis_client.set(broken, "not a hash")  # every script on this group fails (WRONGTYPE)
    with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
        index.add("w", [(k, 0) for k in keys])
    others = [k for k in keys if index.group_name(k) != broken]
    assert len(others) > 20 and index.lookup(others) == {}  # the other groups were cleaned
    redis_client.delete(broken)
    index.remove("w")  # the record written first allows exact removal
    assert index.stats()["buckets"] == 0
    assert left_keys(redis_client, "fail") == BOOKKEEPING


def test_redis_other_version_raises(redis_client):
    RedisIndex(redis_client, prefix="ver", version="old-1").add("a", [(1, 0)])
    newer = RedisIndex(redis_client, prefix="ver", version=V)
    with pytest.raises(IndexVersionError, match="old-1"):
        newer.lookup([1])
    newer.clear()
    assert newer.lookup([1]) == {}
    assert redis_client.get("ver:version") == V.encode()


def test_redis_prefix_without_hash_tags(redis_client):
    with pytest.raises(ValueError, match="prefix"):
        RedisIndex(redis_client, prefix="{fp}")


def test_redis_prefix_with_percent_and_han_characters(redis_client):
    # lookups write the protocol by hand: byte lengths of UTF-8 names, a literal "%"
    index = RedisIndex(redis_client, prefix="指纹%d%s", version=V, groups=4)
    index.add("作品", [(k, k % 7) for k in range(1, 200)])
    assert redis_client.exists("指纹%d%s:epoch".encode())
    found = index.lookup([3, 150, 1000])
    assert found == {3: [("作品", 3)], 150: [("作品", 3)]}


def test_redis_down_gives_connection_error():
    client = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=2)
    index = RedisIndex(client, version=V)
    with pytest.raises(IndexUnavailableError, match="127.0.0.1"):
        index.add("a", [(1, 0)])
    with pytest.raises(ConnectionError):
        index.lookup([1])


# --- RedisIndex on Redis Cluster ----------------------------------------------------------

SLOTS = 16384


def cluster_port() -> int:
    """A free port below 55536 whose cluster bus port (port + 10000) is free too.

    An ephemeral port from the kernel (up to 60999) would put the bus port past 65535 and the
    node would refuse to start.
    """
    for port in random.sample(range(20000, 55000), 200):
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A RedisCluster client on three fresh cluster-mode redis-server processes."""
    folder = tmp_path_factory.mktemp("cluster")
    ports = [cluster_port() for _ in range(3)]
    procs = [subprocess.Popen(
        [redis_server_path(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf",
         "--save", "", "--appendonly", "no", "--logfile", str(folder / f"{port}.log")])
        for port in ports]
    try:
        nodes = [redis.Redis(port=port) for port in ports]
        deadline = time.monotonic() + 30
        while True:
            try:
                for node in nodes:
                    node.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        bounds = [0, SLOTS // 3, 2 * SLOTS // 3, SLOTS]
        for node, start, end in zip(nodes, bounds, bounds[1:], strict=False):
            node.execute_command("CLUSTER ADDSLOTS", *range(start, end))
        for port in ports[1:]:
            nodes[0].execute_command("CLUSTER MEET", "127.0.0.1", port)
        deadline = time.monotonic() + 60  # the nodes agree after about 5 s
        while not all(node.execute_command("CLUSTER INFO")["cluster_state"] == "ok"
                      and len(node.execute_command("CLUSTER NODES")) == 3 for node in nodes):
            if time.monotonic() > deadline:
                raise TimeoutError("the test cluster did not reach cluster_state:ok")
            time.sleep(0.1)
        client = RedisCluster(host="127.0.0.1", port=ports[0])
        yield client
        client.close()
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=15)


def test_cluster_matches_memory_index(cluster):
    """Every command and script of RedisIndex stays within one hash slot, and RedisCluster
    routes them: a three-node cluster answers like MemoryIndex."""
    rng = random.Random(11)
    memory = MemoryIndex(max_df=3, version=V)
    red = RedisIndex(cluster, prefix="c", max_df=3, version=V, groups=16)
    replay_random_operations(rng, memory, red, 80, lambda: [
        *((rng.getrandbits(64), rng.randrange(50)) for _ in range(5)),
        *((rng.randrange(30), rng.randrange(50)) for _ in range(10))])
    keys = list(memory._post) + [rng.getrandbits(64) for _ in range(100)]
    assert as_sets(memory.lookup(keys)) == as_sets(red.lookup(keys))
    # the posting groups really are spread over the nodes
    owners = {cluster.get_node_from_key(red.group_name(k)).name for k in range(64)}
    assert len(owners) == 3
    red.clear()
    assert red.lookup(keys) == {} and list(red.work_ids()) == []


def test_varint_round_trip_and_truncation():
    from fingerprint.index.packing import varint_encode

    values = [0, 1, 127, 128, 16383, 16384, 2**35 + 3, 2**63, 2**64 - 1]
    data = varint_encode(values)
    assert len(data) == 1 + 1 + 1 + 2 + 2 + 3 + 6 + 10 + 10
    assert varint_decode(data).tolist() == values
    assert varint_encode([]) == b"" and varint_decode(b"").tolist() == []
    with pytest.raises(ValueError, match="ends inside"):
        varint_decode(data[:-1])
