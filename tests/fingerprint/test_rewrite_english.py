"""The rewrite stage on English: stems of content words as tokens, full stops as sentence ends,
and a revised English answer reported as rewritten while the other answers are not. Texts:
the answers of tests/fingerprint/fixtures/engine/english_answers.json; revisions made here by
a generator of the test's own (words moved inside each sentence, words dropped, sentences
swapped), which no letter window survives."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fingerprint import Engine, EngineConfig
from fingerprint.index import MemoryIndex
from fingerprint.rewrite import AlignLimits, default_classes, judge_rewrite
from fingerprint.rewrite.english import english_token
from fingerprint.store import MemoryWorkStore
from tests.examples import examples

FIXTURES = Path(__file__).parent / "fixtures" / "engine"
CONFIG = EngineConfig()
LIMITS = AlignLimits(CONFIG.rewrite_pair_score, CONFIG.rewrite_min_shared,
                     CONFIG.rewrite_max_unit_ratio, CONFIG.rewrite_max_token_sentences)


@pytest.fixture(scope="module")
def answers() -> list[str]:
    return [a["text"] for a in json.loads((FIXTURES / "english_answers.json").read_text("utf-8"))]


def revise(text: str, rng: random.Random, drop: float, move: float) -> str:
    """Each sentence's words rotated by a random amount (clauses moved) with ``drop`` of them
    deleted, and ``move`` of the adjacent sentence pairs swapped."""
    sentences = re.split(r"(?<=\.)\s+", text.strip())
    out = []
    for sentence in sentences:
        words = [w for w in sentence.rstrip(".").split() if rng.random() >= drop]
        turn = rng.randrange(len(words)) if words else 0
        out.append(" ".join(words[turn:] + words[:turn]) + ".")
    for i in range(0, len(out) - 1, 2):
        if rng.random() < move:
            out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def verdict(work: str, page: str):
    classes = default_classes()
    return judge_rewrite(classes.sentences(work), classes.sentences(page), LIMITS,
                         CONFIG.rewrite_min_tokens, CONFIG.rewrite_min_share,
                         CONFIG.rewrite_min_pairs)


def test_english_tokens_are_stems_of_content_words():
    assert english_token("Returns") == english_token("returned") == "~return"
    assert [english_token(w) for w in ("the", "is", "of", "x", "42", "3rd", "naïve", " ")] == \
        [None] * 8
    sentences = default_classes().sentences("The value is returned by the call. It is 3.5 "
                                            "times faster, e.g. here. Next one")
    assert [sorted(s.tokens) for s in sentences] == [
        ["~call", "~return", "~valu"], ["~faster", "~time"], ["~next", "~one"]]


@settings(max_examples=examples(20), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 5), st.integers(0, 2**32), st.floats(0.0, 0.2), st.floats(0.0, 1.0))
def test_an_english_revision_aligns_back_to_its_text(answers, which, seed, drop, move):
    # up to a fifth of the words dropped: 0 misses in 7,200 tries; at 0.3, 10 in 1,800 (a
    # sentence that loses a third of its stems falls under the pair score)
    found = verdict(answers[which], revise(answers[which], random.Random(seed), drop, move))
    assert found is not None and found.score >= 0.5


@settings(max_examples=examples(20), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 5), st.integers(0, 5), st.integers(0, 2**32))
def test_other_english_answers_do_not_align(answers, a, b, seed):
    if a != b:
        assert verdict(answers[a], revise(answers[b], random.Random(seed), 0.2, 0.5)) is None


def test_a_revised_answer_is_reported_rewritten_and_no_other(answers):
    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig(), rewrite_index=MemoryIndex())
    for n, text in enumerate(answers):
        engine.add_work(f"en-{n}", text)
    page = "Related posts | Home | About\n" + revise(answers[2], random.Random(7), 0.2, 1.0)
    first_only = Engine(engine.index, engine.store, EngineConfig(rewrite_stage=False))
    assert first_only.match(page) == []  # the letters no longer align
    assert [(m.work_id, m.kind) for m in engine.match(page)] == [("en-2", "rewritten")]
