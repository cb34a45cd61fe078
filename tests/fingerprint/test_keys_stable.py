"""The keys of the shipped scheme do not change unnoticed.

Speed work on the fingerprinting (fewer numpy calls, cheaper bookkeeping) must give every work
and page the very same keys: an index built before it must keep matching. The digests below
were taken from the code before such a change; a change of the keys must bump
``fingerprint.version.SCHEME_VERSION`` (old indexes are then refused) and update them.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.letters import EmptyTextError
from fingerprint.store import MemoryWorkStore

from .conftest import FIXTURES

# sha256 of the postings, query keys, postings indexed and stored record (text left out) of
# every text of a fixture file, and of what the index returns for all their query keys
DIGESTS = {
    'judgments': '6b4c09b07b35565a3a7c207ba95f5c61226ccfc7313d678aa4b13721176131fc',
    'peoples_daily': '98684e23d8c42ccc46b096bca044394fce42466f24d9f44fda761dc8ffd0d446',
    'peoples_daily_formula': '2059200ac6cd1f0cd1896ea3c5187b407e8acbbdfb5744922f19bfe4943d2de9',
    'english_answers': 'b63d549b1dd280b4d829e5d6e2348daf83528378ac50b85cc6b350c506dca9d6',
    'hongloumeng_chapters': '8d2c0589f972ba69ea706fe3558c5116a1f52ec9f5eee722d330060599363607',
}


def _texts(value) -> list[str]:
    """Every text of a fixture file: strings under "text" keys, or lists of strings."""
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in ([v] if k == "text" and isinstance(v, str)
                                                      else _texts(v))]
    if isinstance(value, list):
        return [t for v in value for t in ([v] if isinstance(v, str) else _texts(v))]
    return []


def _digest(name: str) -> str:
    texts = _texts(json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8")))
    store = MemoryWorkStore()
    engine = Engine(MemoryIndex(), store)
    digest = hashlib.sha256()
    every: list[int] = []
    for number, text in enumerate(texts):
        letters = engine.letters(text)
        postings = [(int(k), int(w)) for k, w in engine.postings(letters)]
        queries = [int(k) for k in engine.query_keys(letters)]
        every += queries
        added = engine.add_work(f"w{number}", text)
        # the works-inside-works fields (fingerprint.parts) are not keys: left out
        record = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                  for k, v in store.get(f"w{number}").items()
                  if k not in ("text", "digest", "part_of", "parts")}
        digest.update(json.dumps([postings, queries, added, record], sort_keys=True).encode())
    found = sorted((key, sorted(hits)) for key, hits in engine.index.lookup(every).items())
    digest.update(json.dumps(found).encode())
    return digest.hexdigest()


def test_the_keys_of_every_fixture_text_are_those_of_the_shipped_scheme():
    assert {name: _digest(name) for name in DIGESTS} == DIGESTS


def _state(engine: Engine, store: MemoryWorkStore, ids: list[str]) -> list:
    """Every stored record (offsets as lists) and what the index holds for their keys."""
    records = [{k: (v.tolist() if isinstance(v, np.ndarray) else v)
                for k, v in store.get(work_id).items()} for work_id in ids]
    keys = [k for work_id in ids for k in engine.query_keys(engine.letters(store.get(work_id)
                                                                          ["text"]))]
    return [records, sorted((k, sorted(v)) for k, v in engine.index.lookup(keys).items())]


def test_add_works_gives_every_work_the_keys_and_records_of_add_work():
    texts = [t for name in DIGESTS for t in _texts(json.loads(
        (FIXTURES / f"{name}.json").read_text(encoding="utf-8")))]
    # and the edges of a batch: a work under one window (32 letters), one of exactly the
    # short-text limit's length, Latin words, digits only, and an id given twice
    short = texts[0][:60]
    texts += [short, "這是一個" * 150, "Copy paste " * 30, "０１２３４５６７８９" * 5]
    items = [(f"w{i}", t) for i, t in enumerate(texts)] + [("w0", texts[1])]
    one_store, many_store = MemoryWorkStore(), MemoryWorkStore()
    one, many = Engine(MemoryIndex(), one_store), Engine(MemoryIndex(), many_store)
    added_one = [one.add_work(work_id, text) for work_id, text in items]
    added_many = many.add_works(items)
    assert added_many == added_one
    ids = list(dict.fromkeys(work_id for work_id, _ in items))
    assert _state(many, many_store, ids) == _state(one, one_store, ids)


def test_add_works_checks_every_work_before_storing_any():
    store = MemoryWorkStore()
    engine = Engine(MemoryIndex(), store)
    with pytest.raises(EmptyTextError):
        engine.add_works([("a", "这是一段足够长的文字" * 10), ("b", "太短")])
    assert list(store.ids()) == [] and not engine.has_work("a")
