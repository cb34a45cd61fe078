"""Hits: the postings of one lookup as arrays, the form the engine ranks candidates from.

``Index.lookup`` returns ``{key: [(work_id, window), ...]}``, one Python tuple per posting; a
templated page hits hundreds of postings, and building those tuples cost more than ranking
them. A MemoryIndex gives its postings as arrays directly (``MemoryIndex.lookup_hits``); any
other index (RedisIndex) is adapted at its edge by ``hits_from_lookup``; ``hits_of_each`` splits
one lookup of several pages' keys together (one round trip for many pages) into each page's;
``key_hits`` gives each posting's key too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from fingerprint.arrays import sorted_distinct


class Hits(NamedTuple):
    """The postings of one lookup of distinct keys.

    works: the distinct work ids of the postings (list[str]); revisions: each one's index
    revision (a sequence of str, as ``RevisedIndex.lookup_revisions`` gives them; a
    MemoryIndex's is ``fingerprint.compiled.lookup.Revisions``) or None when the index reports
    none; work: each posting's work, as a position in ``works`` (int64 (n,)); window: each
    posting's window number (int64 (n,)); place: each posting's key as a number (int64 (n,):
    the same number for the same key, below the number of keys asked), or None when the index
    does not say.
    """

    works: list[str]
    revisions: Sequence[str] | None
    work: np.ndarray
    window: np.ndarray
    place: np.ndarray | None = None


def hits_from_lookup(found: dict[int, list[tuple[str, int]]],
                     revisions: dict[str, str] | None) -> Hits:
    """Hits of an ``Index.lookup`` result ``found`` and, when the index reports them, its
    ``lookup_revisions`` revisions ({work_id: revision})."""
    number: dict[str, int] = {}
    work, window, place = [], [], []
    for key_number, held in enumerate(found.values()):
        for work_id, at in held:
            work.append(number.setdefault(work_id, len(number)))
            window.append(at)
            place.append(key_number)
    works = list(number)
    return Hits(works, None if revisions is None else [revisions[w] for w in works],
                np.array(work, dtype=np.int64), np.array(window, dtype=np.int64),
                np.array(place, dtype=np.int64))


def hits_of_each(found: dict[int, list[tuple[str, int]]], revisions: dict[str, str] | None,
                 pages: Sequence[np.ndarray]) -> list[Hits]:
    """The Hits of each page of ``pages`` (each its query keys, uint64 (n,), duplicates
    allowed) from one ``Index.lookup`` (``found``) and, when the index reports them, its
    ``lookup_revisions`` revisions, of keys that include every page's keys. A key's postings
    do not depend on the other keys asked with it (the stop-list counts the works of one
    key), so each page's Hits are those its own lookup would give, up to their order."""
    out = []
    for keys in pages:
        wanted = sorted_distinct(keys).tolist()
        out.append(hits_from_lookup({k: found[k] for k in wanted if k in found}, revisions))
    return out


def key_hits(index, keys: list[int]) -> tuple[np.ndarray, Hits]:
    """(places, hits) of a lookup of distinct ``keys`` in ``index`` (any ``Index``): the
    postings as Hits (revisions None unless the index is a MemoryIndex) and each posting's key
    as its place in ``keys`` (int64 (n_postings,)). A MemoryIndex answers with arrays
    (``lookup_places``); any other index through ``lookup``, adapted."""
    lookup_places = getattr(index, "lookup_places", None)
    if lookup_places is not None:
        return lookup_places(keys)
    found = index.lookup(keys)
    place = {key: i for i, key in enumerate(keys)}
    places = [place[key] for key, held in found.items() for _ in held]
    return np.array(places, dtype=np.int64), hits_from_lookup(found, None)
