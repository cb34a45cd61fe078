"""RedisIndex on a real three-node Redis Cluster (redis-server in cluster mode, started here):
every command and script must stay within one hash slot, and redis-py's RedisCluster must
route them. Results must equal MemoryIndex's on the same operations."""

from __future__ import annotations

import random
import socket
import subprocess
import time

import pytest
import redis
from redis.cluster import RedisCluster

from fingerprint.index import MemoryIndex, RedisIndex
from tracker.embedded import redis_server_path

V = "test-v1"
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
    rng = random.Random(11)
    memory = MemoryIndex(max_df=3, version=V)
    red = RedisIndex(cluster, prefix="c", max_df=3, version=V, groups=16)
    works = [f"w{i}" for i in range(15)]
    for _ in range(80):
        work = rng.choice(works)
        if rng.random() < 0.25:
            assert memory.remove(work) == red.remove(work)
        else:
            postings = [(rng.getrandbits(64), rng.randrange(50)) for _ in range(5)]
            postings += [(rng.randrange(30), rng.randrange(50)) for _ in range(10)]
            assert memory.add(work, postings) == red.add(work, postings)
    keys = list(memory._post) + [rng.getrandbits(64) for _ in range(100)]
    assert {k: sorted(v) for k, v in memory.lookup(keys).items()} == \
        {k: sorted(v) for k, v in red.lookup(keys).items()}
    assert sorted(memory.work_ids()) == sorted(red.work_ids())
    stats = red.stats()
    assert stats["windows"] == memory.stats()["windows"]
    assert stats["keys"] == memory.stats()["keys"]
    # the posting groups really are spread over the nodes
    owners = {cluster.get_node_from_key(red.group_name(k)).name for k in range(64)}
    assert len(owners) == 3
    red.clear()
    assert red.lookup(keys) == {} and list(red.work_ids()) == []
