"""Short texts (150-500 characters): winnowed k-gram keys and what the engine finds."""

from __future__ import annotations

import numpy as np
import pytest

from fingerprint import Engine, EngineConfig
from fingerprint.index import MemoryIndex
from fingerprint.letters import to_letters
from fingerprint.shortdoc import SHORT_KEY_BIT, short_keys
from fingerprint.store import MemoryWorkStore
from fingerprint.windows import kgram_codes, local_minima, mix


def test_short_keys_are_the_k_grams_at_the_selected_positions(daily):
    codes = to_letters(daily["short"][0]).codes
    g5 = kgram_codes(codes, 5)
    hashes = mix(g5)
    work = short_keys(g5, 5, local_minima(hashes, 3), 10)
    page = short_keys(g5, 5, local_minima(hashes, 9), 10)
    assert len(work) > 20 and 0 < len(page) < len(work)
    assert np.all(work & SHORT_KEY_BIT)
    assert set(page.tolist()) <= set(work.tolist())
    grams = kgram_codes(codes, 10)
    assert set((work & ~SHORT_KEY_BIT).tolist()) <= set(grams.tolist())
    assert len(short_keys(kgram_codes(codes[:9], 5), 5, np.array([0, 3]), 10)) == 0
    with pytest.raises(ValueError):
        short_keys(g5, 5, np.array([0]), 11)


def _engine_with_short_works(daily) -> Engine:
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())
    for i, text in enumerate(daily["short"]):
        engine.add_work(f"short-{i}", text)
    return engine


def test_short_works_are_found_in_pages_after_edits(daily, edits):
    engine = _engine_with_short_works(daily)
    for i, text in enumerate(daily["short"]):
        for page in (edits.site(text), edits.substitute(text, 0.03),
                     edits.traditional(edits.homophones(text, 0.05))):
            found = [m.work_id for m in engine.match(page)]
            assert f"short-{i}" in found, (i, page)


def test_short_texts_on_the_same_topic_do_not_match_each_other(daily):
    # short-3/4/5 are the three "三忌" paragraphs of one article: same topic, same wording style
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())
    engine.add_work("short-3", daily["short"][3])
    assert engine.match(daily["short"][4]) == []
    assert engine.match(daily["short"][5]) == []


def test_pages_below_min_text_letters_get_no_match(daily):
    engine = _engine_with_short_works(daily)
    text = daily["short"][1]
    tiny = text[:30]
    assert len(to_letters(tiny)) < EngineConfig().min_text_letters
    assert engine.match(tiny) == []
    # the same characters in a long enough page are found
    assert engine.match(text[:120])[0].work_id == "short-1"
