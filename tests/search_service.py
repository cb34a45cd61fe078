"""The search provider of the session's Celery worker: the worker copies this process's
environment when it starts (after the test modules are collected), so a test module that runs
search discovery through the worker imports ``WORKER_SEARCH_PORT`` from here and serves its
SearXNG-format search service (bench.simweb.SimulatedWeb) on that port of 127.0.0.1."""

import os
import socket


def free_port() -> int:
    """A TCP port of 127.0.0.1 free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


WORKER_SEARCH_PORT = free_port()
os.environ["TRACKER_SEARCH_PROVIDERS"] = f"searxng=http://127.0.0.1:{WORKER_SEARCH_PORT}"
