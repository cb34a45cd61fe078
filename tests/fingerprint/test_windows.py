"""Windows: fixed offsets versus content-defined starts under insertion and reordering."""

from __future__ import annotations

import numpy as np
import pytest

from fingerprint.config import EngineConfig
from fingerprint.letters import to_letters
from fingerprint.windows import kgram_codes, local_minima, mix
from tests.fingerprint.oracle import window_starts_reference as window_starts


def test_winnowing_and_kgram_codes_match_naive_versions():
    rng = np.random.default_rng(3)
    for n in (1, 7, 64, 301):
        a = rng.integers(0, 2**10, n).astype(np.uint64)  # small values: ties happen
        radii = (1, 2, 5, 7, 10, 14, n)
        naive = [[p for p in range(n) if a[p] == a[max(0, p - r):p + r + 1].min()]
                 for r in radii]
        assert [local_minima(a, r).tolist() for r in radii] == naive
    codes = rng.integers(0, 26, 40).astype(np.uint8)
    for k in range(1, 13):
        naive = [sum(int(codes[i + j]) << (5 * (k - 1 - j)) for j in range(k))
                 for i in range(len(codes) - k + 1)]
        assert kgram_codes(codes, k).tolist() == naive


def test_fixed_mode_starts_every_stride():
    codes = np.zeros(100, dtype=np.uint8)
    assert window_starts(codes, 40, 20, "fixed").tolist() == [0, 20, 40, 60]
    assert len(window_starts(codes[:39], 40, 20, "fixed")) == 0


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="window_mode"):
        EngineConfig(window_mode="random")


def _shared_windows(a: np.ndarray, b: np.ndarray, mode: str) -> float:
    """Share of b's windows (as letter content) that also are windows of a."""
    sa = {a[s:s + 48].tobytes() for s in window_starts(a, 48, 24, mode)}
    sb = [b[s:s + 48].tobytes() for s in window_starts(b, 48, 24, mode)]
    return sum(w in sa for w in sb) / len(sb)


def test_content_defined_starts_survive_a_prefix_insertion_fixed_ones_do_not(chapters):
    codes = to_letters(chapters[0]["text"]).codes
    shifted = to_letters("本站首发，" + chapters[0]["text"]).codes
    assert _shared_windows(codes, shifted, "content") > 0.95
    assert _shared_windows(codes, shifted, "fixed") < 0.1


def test_content_defined_starts_survive_paragraph_reordering(chapters, edits):
    text = chapters[1]["text"]
    a, b = to_letters(text).codes, to_letters(edits.reorder(text)).codes
    assert _shared_windows(a, b, "content") > 0.8
    assert _shared_windows(a, b, "fixed") < 0.2


def test_content_starts_average_one_per_stride(chapters):
    codes = to_letters(chapters[2]["text"]).codes
    starts = window_starts(codes, 48, 24, "content")
    assert 0.6 < len(codes) / len(starts) / 24 < 1.4
    assert np.all(starts <= len(codes) - 48)


def test_sparser_query_selection_is_a_subset_of_the_work_selection(chapters):
    codes = to_letters(chapters[0]["text"]).codes
    work = set(window_starts(codes, 48, 24, "content", sparsity=1).tolist())
    page = window_starts(codes, 48, 24, "content", sparsity=3)
    assert 0 < len(page) < len(work) / 2
    assert set(page.tolist()) <= work
    h = mix(kgram_codes(codes, 5))
    assert set(local_minima(h, 9).tolist()) <= set(local_minima(h, 3).tolist())
