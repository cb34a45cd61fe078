"""PresenceFilter: which query keys a large in-process index may hold, tested all at once.

A MemoryIndex being changed keeps its postings in a dict. Once that dict outgrows the CPU caches
(millions of keys), each ``dict.get`` of a page's ~250 query keys costs a cache miss or two,
one after the other: about 0.1 ms per unrelated page at 10M windows, where the same page takes
0.1 ms in all at 10k (README, index at publisher scale). Most query keys of a page are absent.
A one-hash Bloom filter (Bloom, "Space/time trade-offs in hash coding with allowable errors",
CACM 1970) answers "absent" for most of them, a hash and a bit read each in the compiled
lookup (``fingerprint.compiled.lookup.gather_held``), and the dict is read only for the keys
that pass.

With ``m`` bits per key the share of absent keys that pass is about ``1 - exp(-1/m)`` (6% at
the default 16). Keys are never cleared: a removed key only passes the filter needlessly.
"""

from __future__ import annotations

import numpy as np

from fingerprint.windows import mix

#: Filter bits per distinct key, before rounding the size up to a power of two.
BITS_PER_KEY = 16


class PresenceFilter:
    """A set of bits over mixed uint64 keys, sized for ``capacity`` keys.

    Args:
        capacity: distinct keys it is sized for (int >= 1): ``BITS_PER_KEY * capacity``
            bits rounded up to a power of two, at least 2**16 (8 KiB).

    More keys than ``capacity`` may be added; the share of absent keys that pass then grows,
    so the owner rebuilds it larger (``full``).
    """

    def __init__(self, capacity: int):
        bits = max(1 << 16, 1 << (BITS_PER_KEY * max(1, capacity) - 1).bit_length())
        self.capacity = capacity
        self._shift = np.uint64(64 - (bits.bit_length() - 1))
        self._bytes = np.zeros(bits // 8, dtype=np.uint8)
        self._keys = 0

    @property
    def full(self) -> bool:
        """True when more keys were added than it was sized for."""
        return self._keys > self.capacity

    def _positions(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = mix(keys) >> self._shift
        return at >> np.uint64(3), (np.uint8(1) << (at & np.uint64(7)).astype(np.uint8))

    def add(self, keys: np.ndarray) -> None:
        """Set the bits of ``keys`` (uint64 array, distinct keys new to the owner)."""
        byte, bit = self._positions(keys)
        np.bitwise_or.at(self._bytes, byte, bit)
        self._keys += len(keys)

    @property
    def bits(self) -> tuple[np.ndarray, int]:
        """(bytes, shift): the filter as the compiled lookup tests it
        (``fingerprint.compiled.lookup.gather_held``): a key k may have been added when bit
        ``h & 7`` of ``bytes[h >> 3]`` (uint8 array) is set, h = ``mix(k) >> shift``; when it
        is clear, k was certainly never added."""
        return self._bytes, int(self._shift)
