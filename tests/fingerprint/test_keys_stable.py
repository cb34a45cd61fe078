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
    'judgments': '44fa8983bd8db7a427f209fc86f00fd448b47a789f65cd7bf27b87234f669abc',
    'peoples_daily': 'a101d14a1eca24abe83b32741f8b281ceca408006d5f2f824582cdaf975298ee',
    'peoples_daily_formula': 'd85977ee4e555280ff3a3d7ed3232ecafaa409d3dc6af6e0d104c257889d1148',
    'english_answers': 'baa2bbb80eb484aeb8fdb13256b0d820ecc691e47d2ecbd4b55c8b632547521f',
    'hongloumeng_chapters': '41bf8d26803f3e54c96163fc96265ec30547e4363fdcc1bdd2721dff2e65c6fc',
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
