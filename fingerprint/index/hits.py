"""Hits: the postings of one lookup as arrays, the form the engine ranks candidates from.

``Index.lookup`` returns ``{key: [(work_id, window), ...]}``, one Python tuple per posting; a
templated page hits hundreds of postings, and building those tuples cost more than ranking
them. A MemoryIndex gives its postings as arrays directly (``MemoryIndex.lookup_hits``); any
other index (RedisIndex) is adapted at its edge by ``hits_from_lookup``; ``hits_of_each`` splits
one lookup of several pages' keys together (one round trip for many pages) into each page's;
``key_hits`` looks up any index.
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
    posting's window number (int64 (n,)); place: each posting's key as its first place among
    the keys asked (int64 (n,)).
    """

    works: list[str]
    revisions: Sequence[str] | None
    work: np.ndarray
    window: np.ndarray
    place: np.ndarray


def hits_from_lookup(found: dict[int, list[tuple[str, int]]],
                     revisions: dict[str, str] | None, keys: Sequence[int]) -> Hits:
    """Hits of an ``Index.lookup`` result ``found`` for the asked ``keys`` (ints, duplicates
    allowed) and, when the index reports them, its ``lookup_revisions`` revisions ({work_id:
    revision})."""
    first: dict[int, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    number: dict[str, int] = {}
    work, window, place = [], [], []
    for key, held in found.items():
        for work_id, at in held:
            work.append(number.setdefault(work_id, len(number)))
            window.append(at)
            place.append(first[key])
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
        out.append(hits_from_lookup({k: found[k] for k in wanted if k in found}, revisions,
                                    keys.tolist()))
    return out


def key_hits(index, keys: list[int] | np.ndarray) -> tuple[np.ndarray, Hits]:
    """(places, hits) of a lookup of distinct ``keys`` (ints, or a uint64 array) in ``index``
    (any ``Index``): the postings as Hits (revisions None unless the index is a MemoryIndex)
    and each posting's key as its place in ``keys`` (``Hits.place``). A MemoryIndex answers
    with arrays (``lookup_hits``); any other index through ``lookup``, adapted."""
    lookup_hits = getattr(index, "lookup_hits", None)
    if lookup_hits is not None:
        hits = lookup_hits(keys)
    else:
        asked = keys.tolist() if isinstance(keys, np.ndarray) else keys
        hits = hits_from_lookup(index.lookup(asked), None, asked)
    return hits.place, hits
