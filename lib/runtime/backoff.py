"""The one retry delay of the platform: capped exponential backoff with jitter.

Every retry uses it: a fetch the crawl library tries again (``lib.crawl.fetch.retry_delay``), a
crawl or match task while MongoDB or Redis is down (``crawler.tasks``), an ingestion or a work's
removal while storage is down (``core.tasks``), an alert delivery. It lives in the
Django-free runtime package, below every layer that uses it, so that the crawl library and the
Django apps import it without an upward import; it imports nothing but the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Callable


def backoff_delay(attempt: int, base_seconds: float, max_seconds: float, jitter: float = 0.25,
                  rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry number ``attempt + 1``.

    The delay doubles per attempt from ``base_seconds`` and stops growing at ``max_seconds``;
    then up to ``jitter`` of it is taken off at random, so that clients that failed together do
    not all come back at the same moment ("Exponential Backoff and Jitter", AWS Architecture
    Blog, 2015; this is its "equal jitter" with a tunable share). The result never exceeds
    ``max_seconds`` and delays of consecutive attempts below the cap never overlap (with
    ``jitter`` < 0.5 each range lies above the previous one).

    Args:
        attempt: retries made so far, from 0 (the first retry waits about ``base_seconds``).
        base_seconds: delay of the first retry before jitter, seconds (> 0).
        max_seconds: the longest delay, seconds (>= ``base_seconds``).
        jitter: share of the delay (0..1) that may be taken off at random; 0 for none.
        rand: source of uniform numbers in [0, 1) (tests pass a fixed one).

    Returns:
        The delay in seconds, in ``[d * (1 - jitter), d]`` with ``d = min(max_seconds,
        base_seconds * 2**attempt)``.

    Raises:
        ValueError: a negative ``attempt``, a non-positive ``base_seconds``, ``max_seconds``
            below ``base_seconds`` or ``jitter`` outside 0..1.
    """
    if attempt < 0:
        raise ValueError(f"attempt must be 0 or more, got {attempt}")
    if base_seconds <= 0 or max_seconds < base_seconds:
        raise ValueError(f"need 0 < base_seconds <= max_seconds, got {base_seconds}, {max_seconds}")
    if not 0.0 <= jitter <= 1.0:
        raise ValueError(f"jitter must lie between 0 and 1, got {jitter}")
    # 2**attempt overflows a float past about 1024 attempts: the cap is reached long before
    delay = max_seconds if attempt >= 64 else min(max_seconds, base_seconds * 2.0**attempt)
    return delay * (1.0 - jitter * rand())
