"""Window fingerprints: reference distribution, quantization levels, keys and probing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fingerprint.fingerprints import (
    DATA_DIR,
    Quantizer,
    level_thresholds,
    reference_frequencies,
)
from fingerprint.letters import to_letters
from tests.fingerprint.oracle import window_starts_reference as window_starts

SUBSET = "bcdfghjklmnqrstwxyz"


def test_reference_distribution_records_corpus_method_and_sums_to_one():
    record = json.loads((DATA_DIR / "reference_distribution.json").read_text())
    assert "novels_dev" in record["corpus"] and "peoples_daily" in record["corpus"]
    assert record["method"] and record["letters"] > 1_000_000
    freq = reference_frequencies()
    assert sum(freq.values()) == pytest.approx(1.0, abs=1e-3)
    # pinyin facts: no syllable starts with i, u or v; z, y, s lead
    assert freq["u"] == freq["v"] == 0 and freq["i"] < 1e-4
    assert sorted(freq, key=freq.get)[-3:] == ["s", "y", "z"]


def test_thresholds_split_the_binomial_into_near_equal_levels():
    assert level_thresholds(48, 0.1, 2) == [4.5]
    cuts = level_thresholds(48, 0.1, 4)
    assert len(cuts) == 3 and cuts == sorted(cuts)


def test_levels_are_balanced_on_real_text(chapters):
    q = Quantizer(SUBSET, 48, 2)
    codes = to_letters(chapters[0]["text"]).codes
    starts = window_starts(codes, 48, 24, "content")
    counts = q.counts(codes, starts)
    high = (counts > np.array([c[0] for c in q.cuts])).mean(axis=0)
    # the reference comes from the same kind of text: each digit is informative
    assert np.all((high > 0.1) & (high < 0.9))


def test_counts_are_the_letter_counts_of_each_window(chapters):
    q = Quantizer(SUBSET, 48, 2)
    codes = to_letters(chapters[1]["text"][:1000]).codes
    starts = np.array([0, 5, 100])
    counts = q.counts(codes, starts)
    for row, s in zip(counts, starts, strict=True):
        window = codes[s:s + 48]
        assert row.tolist() == [int((window == ord(ch) - 97).sum()) for ch in SUBSET]


def test_keys_are_deterministic_non_negative_and_below_2_63(chapters):
    q = Quantizer(SUBSET, 48, 2, anchor_bits=16)
    codes = to_letters(chapters[2]["text"]).codes
    starts = window_starts(codes, 48, 24, "content")
    keys = q.keys(codes, starts)
    assert np.array_equal(keys, Quantizer(SUBSET, 48, 2, anchor_bits=16).keys(codes, starts))
    assert keys.min() >= 0 and keys.max() < 2**63
    assert len(set(keys.tolist())) > 0.95 * len(keys)


@pytest.mark.parametrize("levels", [2, 3])
def test_probing_finds_the_key_after_any_single_substitution(chapters, levels):
    q = Quantizer(SUBSET, 48, levels, anchor_k=5, anchor_bits=16)
    codes = to_letters(chapters[0]["text"]).codes
    rng = np.random.default_rng(5)
    starts = np.array([100])
    probes1 = set(q.probe_keys(codes, starts, 1).tolist())
    probes2 = set(q.probe_keys(codes, starts, 2).tolist())
    assert q.keys(codes, starts)[0] in probes1 <= probes2
    flipped = 0
    for _ in range(200):
        changed = codes.copy()
        pos = 100 + int(rng.integers(5, 48))  # outside the anchor k-gram
        changed[pos] = rng.integers(0, 26)
        key = q.keys(changed, starts)[0]
        flipped += key != q.keys(codes, starts)[0]
        assert key in probes2
    assert flipped > 0  # the edits did move keys: probing is what kept them
