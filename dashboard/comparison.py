"""Character-level comparison of a matched passage: what the page changed, inserted or deleted
against the work, with the edits that keep the sound or the character told apart.

Both passages are first folded character by character: white space to one space, NFKC
(full-width digits, Latin letters and punctuation to their ordinary forms) and then OpenCC's
traditional-to-simplified character table, each kept only when it gives one character, so
position i of a folded passage is character i of the original and the marks fall back on the
original characters as they are. White space is layout: its edits are not marked.
The folded passages are aligned by the Levenshtein edit operations of RapidFuzz (bit-parallel,
in a band doubled until it holds the distance: time grows with length × distance, not with
length squared). An aligned pair that differs only before folding is "other_width" (NFKC alone
makes them equal) or "other_script"; a substitution read with the same pinyin (tones ignored,
pypinyin) is "same_pinyin"; any other is "changed".
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import opencc
from django.conf import settings
from rapidfuzz.distance import Levenshtein

SAME, CHANGED, INSERTED, DELETED = "same", "changed", "inserted", "deleted"
OTHER_SCRIPT, OTHER_WIDTH, SAME_PINYIN = "other_script", "other_width", "same_pinyin"


@dataclass(frozen=True)
class Edit:
    """A run of characters with one kind of edit.

    Attributes:
        kind: SAME, CHANGED, INSERTED (on the page only), DELETED (in the work only),
            OTHER_SCRIPT, OTHER_WIDTH or SAME_PINYIN.
        page: the run's characters on the page ("" for DELETED).
        work: the run's characters in the work ("" for INSERTED).
    """

    kind: str
    page: str
    work: str


@dataclass(frozen=True)
class Comparison:
    """A passage compared: its edits in text order and its similarity.

    Attributes:
        edits: runs covering the page passage and the work passage in order; () when the
            passage was not compared (``similarity`` is None).
        similarity: 1 - (characters changed, of the same pinyin, inserted or deleted / the
            longer passage's length in characters), in 0..1: a character in the other script
            or width is the same character, white space is layout. None when the
            passages are too long and too different to align within
            settings.EVIDENCE_DIFF_MAX_CELLS.
    """

    edits: tuple[Edit, ...]
    similarity: float | None

    def counts(self) -> dict[str, int]:
        """Characters per edit kind (page characters; the work's for DELETED)."""
        out: dict[str, int] = {}
        for edit in self.edits:
            out[edit.kind] = out.get(edit.kind, 0) + len(edit.page or edit.work)
        return out


@lru_cache(maxsize=1)
def _converters():
    return opencc.OpenCC("t2s"), opencc.OpenCC("s2t")


@lru_cache(maxsize=65536)
def _fold(character: str) -> str:
    """One character in its NFKC, simplified form (white space: " "); the character itself
    where either step would give more or fewer than one character."""
    if character.isspace():
        return " "
    width = unicodedata.normalize("NFKC", character)
    if len(width) != 1:
        return character
    script = _converters()[0].convert(width)
    return script if len(script) == 1 else width


def folded(text: str) -> str:
    """``text`` folded character by character (``_fold``): same length, same positions."""
    return "".join(map(_fold, text))


@lru_cache(maxsize=65536)
def _sound(character: str) -> str:
    # late: pypinyin's dictionaries take 0.4 s to import, which only a comparison needs
    from pypinyin import Style, pinyin

    readings = pinyin(character, style=Style.NORMAL, heteronym=False, errors="ignore")
    return readings[0][0] if readings and readings[0] else ""


def _variant(page: str, work: str) -> str:
    """SAME, OTHER_WIDTH or OTHER_SCRIPT for two characters that fold to the same one."""
    if page == work or page.isspace():
        return SAME
    if unicodedata.normalize("NFKC", page) == unicodedata.normalize("NFKC", work):
        return OTHER_WIDTH
    return OTHER_SCRIPT


def _substitution(page: str, work: str) -> str:
    """OTHER_SCRIPT (OpenCC's simplified-to-traditional table pairs them), SAME_PINYIN or
    CHANGED for a page character replacing a work character that folds differently."""
    s2t = _converters()[1]
    if s2t.convert(work) == page or s2t.convert(page) == work:
        return OTHER_SCRIPT
    sound = _sound(page)
    return SAME_PINYIN if sound and sound == _sound(work) else CHANGED


def _append(edits: list[Edit], kind: str, page: str, work: str) -> None:
    if edits and edits[-1].kind == kind:
        last = edits.pop()
        edits.append(Edit(kind, last.page + page, last.work + work))
    else:
        edits.append(Edit(kind, page, work))


def compare(page: str, work: str) -> Comparison:
    """Compare a passage as it stands on the page with the work's passage.

    Args:
        page: the page's passage (characters).
        work: the work's passage (characters).

    Returns:
        The Comparison; joining its edits' ``page`` gives ``page`` and their ``work`` gives
        ``work``. A pair whose longer passage × edit distance exceeds
        settings.EVIDENCE_DIFF_MAX_CELLS is not aligned: no edits, similarity None.
    """
    longest = max(len(page), len(work))
    if not longest:
        return Comparison((), 1.0)
    folded_page, folded_work = folded(page), folded(work)
    bound = settings.EVIDENCE_DIFF_MAX_CELLS // longest
    distance = Levenshtein.distance(folded_work, folded_page, score_cutoff=bound,
                                    score_hint=min(bound, 64))
    if distance > bound:
        return Comparison((), None)
    edits: list[Edit] = []
    for op in Levenshtein.opcodes(folded_work, folded_page, score_hint=max(distance, 1)):
        work_part, page_part = work[op.src_start:op.src_end], page[op.dest_start:op.dest_end]
        if (page_part + work_part).isspace():
            _append(edits, SAME, page_part, work_part)
        elif op.tag == "insert":
            _append(edits, INSERTED, page_part, "")
        elif op.tag == "delete":
            _append(edits, DELETED, "", work_part)
        else:
            kind_of = _variant if op.tag == "equal" else _substitution
            for page_char, work_char in zip(page_part, work_part, strict=True):
                _append(edits, kind_of(page_char, work_char), page_char, work_char)
    counts = Comparison(tuple(edits), None).counts()
    different = sum(counts.get(kind, 0) for kind in (CHANGED, SAME_PINYIN, INSERTED, DELETED))
    return Comparison(tuple(edits), 1.0 - different / longest)
