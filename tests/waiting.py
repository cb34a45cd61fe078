"""Waiting for what a worker does, by polling instead of sleeping a fixed time:
``from tests.waiting import wait_for``."""

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], object], timeout: float = 60.0, what: str = "condition"):
    """Poll ``predicate`` every 0.1 s until it returns something true; return that value.
    Raises AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
