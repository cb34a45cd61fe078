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

from fingerprint.compiled.keys import sequence_keys, window_digits
from fingerprint.windows import kgram_codes, mix

DATA_DIR = Path(__file__).with_name("data")
BATCH_WINDOWS = 65536


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
    cuts: list[float] = []
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
    distribution (see module docstring). Per letter, tables indexed by count (0..W) give the
    digit's contribution to the key and the key change of a move to the level below or above
    (0 when the count is not on that edge of its level).
    """

    def __init__(self, letters: str, window_letters: int, levels: int, anchor_k: int = 5,
                 anchor_bits: int = 0):
        freq = reference_frequencies()
        subset = sorted(set(letters))
        m = len(subset)
        self.window_letters = window_letters
        self.levels = levels
        self.anchor_k = anchor_k
        self.anchor_bits = anchor_bits
        self.digit_bits = math.ceil(m * math.log2(levels))
        # letter code (0..31, digits included) -> column 0..m-1, or m for codes outside the subset
        self.column = np.full(32, m, dtype=np.int64)
        for j, ch in enumerate(subset):
            self.column[ord(ch) - 97] = j
        weights = levels ** np.arange(m - 1, -1, -1, dtype=np.int64)
        count = np.arange(window_letters + 1)
        self.cuts = [level_thresholds(window_letters, freq[ch], levels) for ch in subset]
        digit = np.array([np.searchsorted(c, count) for c in self.cuts], dtype=np.int64)
        self.value = digit * weights[:, None]  # (m, W + 1)
        below = np.zeros_like(self.value)
        below[:, 1:] = self.value[:, :-1]
        above = np.zeros_like(self.value)
        above[:, :-1] = self.value[:, 1:]
        self.down = np.where(count > 0, below - self.value, 0)
        self.up = np.where(count < window_letters, above - self.value, 0)
        self._rows = np.arange(m)

    def counts(self, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Letter counts of each window: (n_windows, n_letters) int64. Windows are counted in
        batches of BATCH_WINDOWS so that memory stays bounded on very long texts."""
        m = len(self._rows)
        cols = self.column.take(codes)
        offsets = np.arange(self.window_letters)
        parts = []
        for lo in range(0, max(len(starts), 1), BATCH_WINDOWS):
            batch = starts[lo:lo + BATCH_WINDOWS]
            flat = (np.arange(len(batch))[:, None] * (m + 1) + cols.take(batch[:, None] + offsets))
            counts = np.bincount(flat.ravel(), minlength=len(batch) * (m + 1))
            parts.append(counts.reshape(len(batch), m + 1)[:, :m])
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def anchor_values(self, codes: np.ndarray, starts: np.ndarray,
                      hashes: np.ndarray | None = None) -> np.ndarray:
        """The key's anchor part per window (int64): the low ``anchor_bits`` bits of the
        window's first anchor_k-gram hash (``hashes`` = mix(kgram_codes(codes, anchor_k)),
        computed when not given), shifted above the digits; zeros when anchor_bits is 0. Low
        bits, because content-defined starts are chosen for small (high-bit) hash values."""
        if not self.anchor_bits:
            return np.zeros(len(starts), dtype=np.int64)
        if hashes is None:
            hashes = mix(kgram_codes(codes, self.anchor_k))
        low = hashes[starts] & np.uint64((1 << self.anchor_bits) - 1)
        return low.astype(np.int64) << self.digit_bits

    def keys(self, codes: np.ndarray, starts: np.ndarray, hashes: np.ndarray | None = None
             ) -> np.ndarray:
        """Window keys (n_windows,) int64 for windows [start, start + W) of ``codes``
        (``hashes``: see anchor_values)."""
        digits = window_digits(np.ascontiguousarray(codes, dtype=np.uint8),
                               np.ascontiguousarray(starts, dtype=np.int64), self.window_letters,
                               self.column, self.value)
        return digits + self.anchor_values(codes, starts, hashes)

    def sequence_keys(self, codes: np.ndarray, window_radius: int, fixed_stride: int,
                      short_radius: int, short_k: int, distinct_short: bool = False
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(keys, window starts) of a letter sequence in one compiled call
        (``fingerprint.compiled.keys.sequence_keys``): keys uint64, the ``keys`` of the
        windows starting at the local minima of radius ``window_radius`` of the anchor_k-gram
        hashes (every ``fixed_stride`` letters when it is > 0), then the ``short_k``-gram keys
        of ``fingerprint.shortdoc`` at the minima of radius ``short_radius`` (none when 0;
        sorted and each once when ``distinct_short``); starts int64, ascending."""
        return sequence_keys(np.ascontiguousarray(codes, dtype=np.uint8), self.anchor_k,
                             window_radius, fixed_stride, short_radius, short_k,
                             self.window_letters, self.column, self.value, self.anchor_bits,
                             self.digit_bits, distinct_short)

    def probe_keys(self, codes: np.ndarray, starts: np.ndarray, depth: int,
                   hashes: np.ndarray | None = None) -> np.ndarray:
        """Exact and probed keys of every window (int64 array; the exact keys come first,
        keys[:n_windows] == self.keys(...)).

        depth 0: exact keys only; 1: plus each single edge-digit move; 2: plus each pair of
        moves on different letters. A digit is on an edge when its count is the lowest count of
        its level (a -1 moves it down) or the highest (a +1 moves it up).
        """
        base = self.keys(codes, starts, hashes)
        if depth == 0 or len(starts) == 0:
            return base
        counts = self.counts(codes, starts)
        deltas = np.concatenate([self.down[self._rows, counts], self.up[self._rows, counts]],
                                axis=1)  # (n_windows, 2m), 0 where no move
        wi, mi = np.nonzero(deltas)
        out = [base, base[wi] + deltas[wi, mi]]
        if depth >= 2:
            letter = np.concatenate([self._rows, self._rows])
            pair_ok = letter[:, None] < letter[None, :]
            valid = (deltas[:, :, None] != 0) & (deltas[:, None, :] != 0) & pair_ok[None]
            wi, a, b = np.nonzero(valid)
            out.append(base[wi] + deltas[wi, a] + deltas[wi, b])
        return np.concatenate(out)
