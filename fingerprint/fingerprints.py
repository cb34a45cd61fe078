"""Window fingerprints: quantized letter-frequency vectors (Daguan, InfoQ 2016-08-18, steps 3-5).

For each window of W letters and each letter l of the configured subset: count c_l, subtract the
reference expectation W * p_l (p from ``data/reference_distribution.json``), normalise, and
quantize into ``levels`` levels. The level thresholds are the quantiles j/levels of the count's
distribution under the reference, Binomial(W, p_l), placed on half-integers: this is the same
as normalising the deviation c_l - W*p_l to a z-score and cutting it at equiprobable points,
and makes every digit carry close to log2(levels) bits on ordinary text. The digits, in
alphabetical letter order, form a base-``levels`` integer: the window's key. Optionally
``anchor_bits`` bits of the hash of the window's first k-gram are placed above the digits.

Quantization-boundary flips. One substituted character moves one letter count down and another
up by one; a digit changes only if its count sits on the edge of its level. ``probe_keys``
enumerates the keys reachable by moving up to ``probe`` edge digits to the neighbouring level,
so a page with a few substitutions still finds the work's window (multi-probe lookup; Lv et
al., "Multi-probe LSH", VLDB 2007, applies the same idea to LSH buckets).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from fingerprint.windows import kgram_codes, mix

DATA_DIR = Path(__file__).with_name("data")


@lru_cache(maxsize=1)
def reference_frequencies() -> dict[str, float]:
    """Letter -> frequency (0..1) from ``data/reference_distribution.json``."""
    record = json.loads((DATA_DIR / "reference_distribution.json").read_text())
    return record["frequency"]


def _binomial_cdf(n: int, p: float) -> list[float]:
    """CDF of Binomial(n, p) at 0..n."""
    out, acc = [], 0.0
    for k in range(n + 1):
        acc += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        out.append(acc)
    return out


def level_thresholds(window_letters: int, p: float, levels: int) -> list[float]:
    """Half-integer count thresholds splitting Binomial(window_letters, p) into ``levels``
    near-equiprobable levels (ascending, at most levels - 1 of them, duplicates removed)."""
    cdf = _binomial_cdf(window_letters, p)
    cuts = []
    for j in range(1, levels):
        q = j / levels
        k = next(i for i, v in enumerate(cdf) if v >= q)
        # put the cut on the side of k that best splits the probability mass at q
        below = cdf[k - 1] if k > 0 else 0.0
        t = k - 0.5 if abs(below - q) < abs(cdf[k] - q) else k + 0.5
        if not cuts or t > cuts[-1]:
            cuts.append(t)
    return cuts


class Quantizer:
    """Turns windows of letter codes into integer keys for one configuration.

    letters: subset of a-z (str); window_letters: W; levels: digits per letter; anchor_k and
    anchor_bits: optional k-gram hash bits above the digits. Thresholds come from the reference
    distribution (see module docstring).
    """

    def __init__(self, letters: str, window_letters: int, levels: int, anchor_k: int = 5,
                 anchor_bits: int = 0):
        freq = reference_frequencies()
        self.columns = np.array([ord(ch) - 97 for ch in sorted(set(letters))], dtype=np.int64)
        self.window_letters = window_letters
        self.levels = levels
        self.anchor_k = anchor_k
        self.anchor_bits = anchor_bits
        m = len(self.columns)
        cuts = [level_thresholds(window_letters, freq[chr(97 + c)], levels) for c in self.columns]
        width = max(len(c) for c in cuts)
        # pad unused cuts with +inf so every letter has the same number of thresholds
        self.cuts = np.full((m, width), np.inf)
        for i, c in enumerate(cuts):
            self.cuts[i, : len(c)] = c
        self.weights = levels ** np.arange(m - 1, -1, -1, dtype=np.int64)
        self.digit_bits = math.ceil(m * math.log2(levels))

    def counts(self, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Letter counts of each window: (n_windows, n_letters) int32."""
        onehot = np.zeros((len(codes) + 1, 26), dtype=np.int32)
        onehot[np.arange(1, len(codes) + 1), codes] = 1
        cum = np.cumsum(onehot[:, self.columns], axis=0)
        return cum[starts + self.window_letters] - cum[starts]

    def digits(self, counts: np.ndarray) -> np.ndarray:
        """Quantized levels (n_windows, n_letters) int64 of window letter counts."""
        return (counts[:, :, None] > self.cuts[None, :, :]).sum(axis=2).astype(np.int64)

    def anchor_hashes(self, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """anchor_bits-bit hash (int64) of the first anchor_k letters of each window."""
        if not self.anchor_bits:
            return np.zeros(len(starts), dtype=np.int64)
        h = mix(kgram_codes(codes, self.anchor_k)[starts] ^ 0x5BD1E995)
        return (h >> np.uint64(64 - self.anchor_bits)).astype(np.int64)

    def keys(self, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Window keys (n_windows,) int64 for windows [start, start + W) of ``codes``."""
        counts = self.counts(codes, starts)
        return self._compose(self.digits(counts), self.anchor_hashes(codes, starts))

    def _compose(self, digits: np.ndarray, anchors: np.ndarray) -> np.ndarray:
        return (anchors << self.digit_bits) + digits @ self.weights

    def probe_keys(self, codes: np.ndarray, starts: np.ndarray, depth: int
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Exact and probed keys of every window.

        Returns (keys, window) int64 arrays of equal length: each key and the window number it
        was derived from; the exact keys come first (keys[:n_windows] == self.keys(...)).
        depth 0: exact keys only; 1: plus each single edge-digit move; 2: plus each pair of
        moves on different letters. A digit is on an edge when its count is the lowest count of
        its level (a -1 moves it down) or the highest (a +1 moves it up).
        """
        counts = self.counts(codes, starts)
        digits = self.digits(counts)
        base = self._compose(digits, self.anchor_hashes(codes, starts))
        nw = len(starts)
        out_keys, out_win = [base], [np.arange(nw, dtype=np.int64)]
        if depth == 0 or nw == 0:
            return base, out_win[0]
        c = counts[:, :, None]
        down = ((c - 1) < self.cuts[None]) & (c > self.cuts[None])
        up = ((c + 1) > self.cuts[None]) & (c < self.cuts[None])
        down = down.any(axis=2)
        up = up.any(axis=2)
        # moves: (n_windows, 2m) deltas, 0 where the move is not possible
        deltas = np.concatenate([np.where(down, -self.weights, 0),
                                 np.where(up, self.weights, 0)], axis=1)
        wi, mi = np.nonzero(deltas)
        out_keys.append(base[wi] + deltas[wi, mi])
        out_win.append(wi)
        if depth >= 2:
            m = len(self.columns)
            letter = np.concatenate([np.arange(m), np.arange(m)])
            pair_ok = letter[:, None] < letter[None, :]
            valid = (deltas[:, :, None] != 0) & (deltas[:, None, :] != 0) & pair_ok[None]
            wi, a, b = np.nonzero(valid)
            out_keys.append(base[wi] + deltas[wi, a] + deltas[wi, b])
            out_win.append(wi)
        return np.concatenate(out_keys), np.concatenate(out_win)
