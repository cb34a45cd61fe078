"""洗稿 (rewritten copies) of two strengths, made by generators that share nothing with the
engine's rewrite stage (it maps words to HIT Cilin classes; none of these reads Cilin).

Each edit is ``edit(text, rng, kit) -> str`` as in ``bench.edits``. Word swaps draw from
``cnsyn``'s ``sim_words.txt`` (45,860 lines of a head word and the words similar to it, a
thesaurus built from other sources than Cilin; read as a file, the package is not imported),
words cut by jieba. The generators:

- ``synonyms``: a share of the *synonym-bearing* words (words that have an entry) replaced by
  one of their similar words, then a share of the adjacent sentence pairs swapped;
- ``function_words``: function words (的, 了, 就, 都, 也, 便, 又, ...) deleted or inserted
  before a verb-like word, clauses of a sentence reordered (its last clause moved first), and
  a share of the adjacent sentence pairs swapped (no word is replaced by a synonym);
- ``mixed``: both, and long sentences split at a comma into two.

Strengths: light = a fifth (20%) of the synonym-bearing words swapped and a fifth of the
sentence pairs swapped (``rewrite_light_syn``, ``rewrite_light_func``); heavy = half of the
words and half of the sentence pairs, long sentences (``SPLIT_CHARS``) split
(``rewrite_heavy_syn``, ``rewrite_heavy_mix``). Every rewritten page is wrapped in a portal's
header and footer (``bench.edits.header_footer``), like a crawled page.
"""

from __future__ import annotations

import importlib.util
import random
import re
from functools import cache
from pathlib import Path

from bench.edits import _SENTENCE, EditKit, header_footer

SPLIT_CHARS = 24  # a sentence at least this long is split at an inner comma (heavy)
FUNCTION_WORDS = ("的", "了", "就", "都", "也", "便", "又", "却", "还", "才", "已经", "竟然",
                  "其实", "于是", "然后", "只是", "正是", "果然")
_HAN_WORD = re.compile(r"^[\u4e00-\u9fff]{2,}$")
_COMMA = re.compile(r"[，,]")


@cache
def similar_words() -> dict[str, tuple[str, ...]]:
    """Word -> its similar words (Han words of 2+ characters), from cnsyn's sim_words.txt.

    Raises:
        ModuleNotFoundError: cnsyn is not installed (``pip install -e '.[dev]'``).
    """
    spec = importlib.util.find_spec("cnsyn")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("cnsyn is not installed (pip install -e '.[dev]')")
    path = Path(spec.origin).parent / "chinese_dictionary" / "sim_words.txt"
    table: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        words = [w for w in line.split() if _HAN_WORD.match(w)]
        for w in words:
            table.setdefault(w, []).extend(o for o in words if o != w)
    return {w: tuple(dict.fromkeys(others)) for w, others in table.items() if others}


def _words(text: str) -> list[str]:
    import jieba

    return jieba.lcut(text, HMM=False)


def swap_synonyms(text: str, rate: float, rng: random.Random) -> str:
    """``rate`` of the synonym-bearing words of ``text`` replaced by a similar word."""
    table = similar_words()
    words = _words(text)
    bearing = [i for i, w in enumerate(words) if w in table]
    for i in rng.sample(bearing, round(rate * len(bearing))):
        words[i] = rng.choice(table[words[i]])
    return "".join(words)


def _sentences(text: str) -> list[str]:
    return [m.group() for m in _SENTENCE.finditer(text) if m.group()]


def swap_pairs(text: str, rate: float, rng: random.Random) -> str:
    """``rate`` of the non-overlapping adjacent sentence pairs swapped (line ends stay)."""
    pieces = _sentences(text)
    for i in range(0, len(pieces) - 1, 2):
        a, b = pieces[i], pieces[i + 1]
        if rng.random() < rate and not a.endswith("\n") and not b.endswith("\n"):
            pieces[i], pieces[i + 1] = b, a
    return "".join(pieces)


def split_long(text: str, rng: random.Random) -> str:
    """Every sentence of at least ``SPLIT_CHARS`` characters with an inner comma cut in two
    there (the comma becomes 。)."""
    out = []
    for piece in _sentences(text):
        commas = [m.start() for m in _COMMA.finditer(piece) if 4 < m.start() < len(piece) - 4]
        if len(piece) >= SPLIT_CHARS and commas:
            at = rng.choice(commas)
            piece = piece[:at] + "。" + piece[at + 1:]
        out.append(piece)
    return "".join(out)


def function_words(text: str, rate: float, rng: random.Random) -> str:
    """Function words: ``rate`` of those present deleted, and as many inserted before other
    words of two characters or more; then ``rate`` of the sentences with two clauses or more
    get their last clause moved first."""
    words = _words(text)
    present = [i for i, w in enumerate(words) if w in FUNCTION_WORDS]
    for i in rng.sample(present, round(rate * len(present))):
        words[i] = ""
    hosts = [i for i, w in enumerate(words) if _HAN_WORD.match(w)]
    for i in rng.sample(hosts, min(len(hosts), round(rate * len(present)))):
        words[i] = rng.choice(FUNCTION_WORDS) + words[i]
    out = []
    for piece in _sentences("".join(words)):
        body = piece.rstrip("。！？!?；;…\n”’」』\"")
        end = piece[len(body):]
        clauses = _COMMA.split(body)
        if len(clauses) >= 2 and all(clauses) and rng.random() < rate:
            clauses = [clauses[-1], *clauses[:-1]]
            piece = "，".join(clauses) + end
        out.append(piece)
    return "".join(out)


def rewrite_synonyms(text: str, rng: random.Random, kit: EditKit, rate: float) -> str:
    """The ``synonyms`` generator at ``rate`` (heavy from 0.5 on: long sentences split)."""
    text = swap_pairs(swap_synonyms(text, rate, rng), rate, rng)
    return header_footer(split_long(text, rng) if rate >= 0.5 else text, rng, kit)


def rewrite_function_words(text: str, rng: random.Random, kit: EditKit, rate: float) -> str:
    """The ``function_words`` generator at ``rate``."""
    return header_footer(swap_pairs(function_words(text, rate, rng), rate, rng), rng, kit)


def rewrite_mixed(text: str, rng: random.Random, kit: EditKit, rate: float) -> str:
    """The ``mixed`` generator at ``rate``: synonyms, function words, clauses, pairs, splits."""
    text = function_words(swap_synonyms(text, rate, rng), rate, rng)
    return header_footer(split_long(swap_pairs(text, rate, rng), rng), rng, kit)


REWRITE_EDITS = {
    "rewrite_light_syn": lambda text, rng, kit: rewrite_synonyms(text, rng, kit, 0.2),
    "rewrite_light_func": lambda text, rng, kit: rewrite_function_words(text, rng, kit, 0.2),
    "rewrite_heavy_syn": lambda text, rng, kit: rewrite_synonyms(text, rng, kit, 0.5),
    "rewrite_heavy_mix": lambda text, rng, kit: rewrite_mixed(text, rng, kit, 0.5),
}
"""Edit name -> 洗稿 edit, light then heavy (the benchmark table's columns)."""

REWRITE_COLUMNS = {"rewrite_light_syn": "洗稿 light syn", "rewrite_light_func": "洗稿 light func",
                   "rewrite_heavy_syn": "洗稿 heavy syn", "rewrite_heavy_mix": "洗稿 heavy mix"}
