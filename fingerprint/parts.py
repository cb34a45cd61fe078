"""Works inside works: the registered works a work is part of, and those that are part of it.

A chapter registered alone and inside a whole-novel work, an article and the collection that
holds it: a copy of the part copies both works. The relation is decided when a work is added
(``Engine.add_work``), with the work's own window keys looked up in the index, and kept in the
added work's record (``part_of`` and ``parts``: lists of [work id, letters digest]); at match
time the judging rules count a part and a work holding it, both found in a page, as one text
(``Engine._judge``) and each Match names the other (``Match.part_of``, ``Match.parts``).
The digest of the other work's letters is kept with its id, so that a relation stops holding
once that work is re-added with another text. Design notes: docs/decisions/works-inside-works.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fingerprint.arrays import sorted_distinct
from fingerprint.verify import Alignment, SeedIndex


def letters_digest(letters: str) -> str:
    """A digest (16 hex characters) of a work's letters (``Letters.letters``, a-z): equal for
    equal letters, different (but for a 2**-64 chance) for different ones."""
    return hashlib.blake2b(letters.encode("ascii"), digest_size=8).hexdigest()


def record_digest(record: dict) -> str:
    """The letters digest of a stored work record: its ``digest`` field, or computed from its
    ``letters`` for a record stored before digests were kept."""
    return record.get("digest") or letters_digest(record["letters"])


@dataclass(frozen=True)
class Relations:
    """The works-inside-works relations of one stored work, as (work id, letters digest) pairs
    of the other work: ``part_of``, the works that hold this one; ``parts``, the works this one
    holds."""

    part_of: frozenset[tuple[str, str]] = frozenset()
    parts: frozenset[tuple[str, str]] = frozenset()

    @staticmethod
    def of(record: dict) -> Relations:
        """The relations kept in a stored record (none when it has none)."""
        return Relations(frozenset(map(tuple, record.get("part_of") or ())),
                         frozenset(map(tuple, record.get("parts") or ())))

    def __bool__(self) -> bool:
        return bool(self.part_of or self.parts)


def joined_pairs(works: list[tuple[str, str, Relations]]) -> list[tuple[int, int]]:
    """(i, j) for each pair of ``works`` ((work id, letters digest, Relations) of a page's
    candidates) where work i is part of work j, according to either work's record."""
    if not any(rel for _, _, rel in works):
        return []
    out = []
    for i, (a, da, ra) in enumerate(works):
        for j, (b, db, rb) in enumerate(works):
            if i != j and ((b, db) in ra.part_of or (a, da) in rb.parts):
                out.append((i, j))
    return out


def name_parts(matches: list, work_ids: list[str], joined: list[tuple[int, int]]) -> None:
    """Set ``part_of`` and ``parts`` of each of a page's ``matches`` (fingerprint Match
    objects): the ids of the other reported works that hold it, and of those it holds, sorted.
    ``work_ids``: the page's candidates, as numbered in ``joined`` (``joined_pairs``)."""
    reported = {m.work_id for m in matches}
    for m in matches:
        m.part_of = sorted({work_ids[j] for i, j in joined if work_ids[i] == m.work_id} & reported)
        m.parts = sorted({work_ids[i] for i, j in joined if work_ids[j] == m.work_id} & reported)


def find_relations(work_id: str, codes: np.ndarray, keys: np.ndarray, lookup: Callable,
                   get_record: Callable[[str], dict | None],
                   record_codes: Callable[[dict], np.ndarray],
                   align: Callable[[np.ndarray, SeedIndex], Alignment], seed_k: int,
                   key_share: float, share: float, frame: float, max_works: int
                   ) -> tuple[list[list[str]], list[list[str]]]:
    """(part_of, parts) of a work about to be added, each a list of [work id, letters digest].

    work_id: the work's id (its own old postings are ignored); codes: its letter codes (n,);
    keys: its window keys (uint64, without short-text k-gram keys); lookup: the index's
    ``lookup`` (list of keys -> {key: [(work id, window)]}); get_record: the store's ``get``;
    record_codes: letter codes of a stored record; align: ``fingerprint.verify.align`` with the
    engine's parameters. Work W holds work P when the alignment of P's letters with W covers at
    least ``share`` of P's letters and more than ``frame`` of W's letters lie outside P's
    length (so the two are not the same text, ``fingerprint.same_text``). Candidates, at most
    ``max_works`` each way, most keys first: W may hold this work when it holds at least
    ``key_share`` of its distinct keys; W may be part of it when the keys hit cover at least
    ``key_share`` of W's windows up to the last one hit. Raises the index's and store's errors.
    """
    distinct = sorted_distinct(keys)
    if not len(distinct):
        return [], []
    found = lookup(distinct.tolist())
    own_hits: dict[str, int] = {}  # this work's keys each other work holds
    windows: dict[str, set[int]] = {}  # the other work's windows hit
    for postings in found.values():
        seen = set()
        for other, window in postings:
            if other == work_id:
                continue
            windows.setdefault(other, set()).add(window)
            if other not in seen:
                seen.add(other)
                own_hits[other] = own_hits.get(other, 0) + 1
    holders = sorted((w for w, n in own_hits.items() if n >= key_share * len(distinct)),
                     key=lambda w: (-own_hits[w], w))[:max_works]
    held = sorted((w for w, hit in windows.items() if len(hit) >= key_share * (max(hit) + 1)),
                  key=lambda w: (-len(windows[w]), w))[:max_works]
    part_of, parts = [], []
    own = None
    for other in dict.fromkeys(holders + held):
        record = get_record(other)
        if record is None:
            continue
        other_codes = record_codes(record)
        if other in holders and _holds(codes, other_codes, align, seed_k, share, frame):
            part_of.append([other, record_digest(record)])
        if other in held:
            own = own if own is not None else SeedIndex.build(codes, seed_k)
            if _inside(other_codes, own, align, share, frame):
                parts.append([other, record_digest(record)])
    return part_of, parts


def _holds(part: np.ndarray, whole: np.ndarray, align, seed_k: int, share: float,
           frame: float) -> bool:
    """Whole (letter codes) holds part (letter codes): see ``find_relations``; the whole is
    indexed for the alignment only when it is long enough."""
    return len(part) < (1 - frame) * len(whole) and _inside(
        part, SeedIndex.build(whole, seed_k), align, share, frame)


def _inside(part: np.ndarray, whole: SeedIndex, align, share: float, frame: float) -> bool:
    """The alignment of ``part``'s letter codes with ``whole`` covers ``share`` of them, and
    ``whole`` is longer than the part by more than ``frame`` of its letters."""
    if len(part) >= (1 - frame) * whole.n_letters:
        return False
    return align(part, whole).page_covered >= share * len(part)
