"""Character-level comparison of a matched passage: what the page changed, inserted or deleted
against the work, with the edits that keep the sound or the character told apart.

The diff is Myers' algorithm as implemented by Google's diff-match-patch (Myers, "An O(ND)
difference algorithm and its variations", Algorithmica 1986), on the original characters, not
on pinyin letters. A character replaced by the same character in the other script
(simplified/traditional, OpenCC's tables) is "other_script"; one replaced by a character read
with the same pinyin (tones ignored, pypinyin) is "same_pinyin"; any other is "changed".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from diff_match_patch import diff_match_patch
from django.conf import settings

SAME, CHANGED, INSERTED, DELETED = "same", "changed", "inserted", "deleted"
OTHER_SCRIPT, SAME_PINYIN = "other_script", "same_pinyin"


@dataclass(frozen=True)
class Edit:
    """A run of characters with one kind of edit.

    Attributes:
        kind: SAME, CHANGED, INSERTED (on the page only), DELETED (in the work only),
            OTHER_SCRIPT or SAME_PINYIN.
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
        edits: runs covering the page passage and the work passage in order.
        similarity: 1 - (the diff's edit distance, diff-match-patch's ``diff_levenshtein``,
            / the longer passage's length in characters), at least 0; edits of script or
            sound count as changes.
    """

    edits: tuple[Edit, ...]
    similarity: float

    def counts(self) -> dict[str, int]:
        """Characters per edit kind (page characters; the work's for DELETED)."""
        out: dict[str, int] = {}
        for edit in self.edits:
            out[edit.kind] = out.get(edit.kind, 0) + len(edit.page or edit.work)
        return out


@lru_cache(maxsize=1)
def _converters():
    import opencc

    return opencc.OpenCC("t2s"), opencc.OpenCC("s2t")


@lru_cache(maxsize=65536)
def _sound(character: str) -> str:
    from pypinyin import Style, pinyin

    readings = pinyin(character, style=Style.NORMAL, heteronym=False, errors="ignore")
    return readings[0][0] if readings and readings[0] else ""


def _kind_of(page: str, work: str) -> str:
    """OTHER_SCRIPT, SAME_PINYIN or CHANGED for one character of the page replacing one of
    the work."""
    t2s, s2t = _converters()
    if t2s.convert(page) == t2s.convert(work) or s2t.convert(page) == s2t.convert(work):
        return OTHER_SCRIPT
    sound = _sound(page)
    return SAME_PINYIN if sound and sound == _sound(work) else CHANGED


def _append(edits: list[Edit], kind: str, page: str, work: str) -> None:
    if edits and edits[-1].kind == kind:
        last = edits.pop()
        edits.append(Edit(kind, last.page + page, last.work + work))
    else:
        edits.append(Edit(kind, page, work))


def _replaced(edits: list[Edit], deleted: str, inserted: str) -> None:
    """Pair the characters of a replaced stretch one by one; the longer side's rest is an
    insertion or a deletion."""
    for page_char, work_char in zip(inserted, deleted, strict=False):
        _append(edits, _kind_of(page_char, work_char), page_char, work_char)
    paired = min(len(deleted), len(inserted))
    if len(inserted) > paired:
        _append(edits, INSERTED, inserted[paired:], "")
    if len(deleted) > paired:
        _append(edits, DELETED, "", deleted[paired:])


def compare(page: str, work: str) -> Comparison:
    """Compare a passage as it stands on the page with the work's passage.

    Args:
        page: the page's passage (characters).
        work: the work's passage (characters).

    Returns:
        The Comparison; joining its edits' ``page`` gives ``page`` and their ``work`` gives
        ``work``. A passage pair that takes longer than settings.EVIDENCE_DIFF_TIMEOUT_SECONDS
        to diff gets a coarser, still exact, set of edits.
    """
    differ = diff_match_patch()
    differ.Diff_Timeout = settings.EVIDENCE_DIFF_TIMEOUT_SECONDS
    diffs = differ.diff_main(work, page, False)
    edits: list[Edit] = []
    deleted = inserted = ""
    for op, text in [*diffs, (0, "")]:
        if op == differ.DIFF_DELETE:
            deleted += text
        elif op == differ.DIFF_INSERT:
            inserted += text
        else:
            _replaced(edits, deleted, inserted)
            deleted = inserted = ""
            if text:
                _append(edits, SAME, text, text)
    longest = max(len(page), len(work))
    distance = differ.diff_levenshtein(diffs)
    return Comparison(tuple(edits), max(0.0, 1.0 - distance / longest) if longest else 1.0)
