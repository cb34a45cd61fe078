"""The search provider of the session's Celery worker: the worker copies this process's
environment when it starts (after the test modules are collected), so a test module that runs
search discovery through the worker imports ``WORKER_SEARCH_PORT`` from here and serves its
SearXNG-format search service (bench.simweb.SimulatedWeb) on that port of 127.0.0.1."""

import os
import random
import socket
from pathlib import Path

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 10_000


def free_port() -> int:
    """A TCP port of 127.0.0.1 free now, below the kernel's ephemeral range: a port from that
    range can be handed to another server bound to port 0, or to an outgoing connection,
    before the test binds it ("Address already in use"). Raises OSError when none is free."""
    low = int(EPHEMERAL_RANGE.read_text().split()[0]) if EPHEMERAL_RANGE.exists() else 32768
    for port in random.sample(range(LOWEST_PORT, low), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free TCP port of 127.0.0.1 from {LOWEST_PORT} to {low}")


WORKER_SEARCH_PORT = free_port()
os.environ["TRACKER_SEARCH_PROVIDERS"] = f"searxng=http://127.0.0.1:{WORKER_SEARCH_PORT}"
