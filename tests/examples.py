"""How many examples a property test (Hypothesis) tries.

``examples(n)`` is ``n`` under ``make test`` (CI's command) and an eighth of it, at least 10,
under ``make test-fast``, which sets ``TRACKER_TEST_FAST=1``: the fast loop trades the depth of
the search for a wait of seconds, and the whole suite searches as deep as each test asks.
"""

from __future__ import annotations

import os

FAST = os.environ.get("TRACKER_TEST_FAST") == "1"


def examples(full: int) -> int:
    """The number of examples for a test that asks for ``full`` under the whole suite."""
    return max(10, full // 8) if FAST else full
