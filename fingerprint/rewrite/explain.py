"""A rewritten match explained for people: its sentence pairs side by side, the words that a
synonym of the same class replaced marked on both sides, the moved sentences numbered."""

from __future__ import annotations

from dataclasses import dataclass

from fingerprint.rewrite.stage import RewriteStage, judge_rewrite


@dataclass(frozen=True)
class ShownPair:
    """One pair as shown: ``n`` (its place in the work, from 1), ``page_n`` (the place of its
    first page sentence among the pairs' page sentences, from 1), ``moved`` (out of the work's
    order on the page), ``score`` (0..1), ``work`` and ``page``: the texts cut into
    (text, synonym) parts, ``synonym`` the other side's word when this word was replaced by
    a synonym of its class (else "")."""

    n: int
    page_n: int
    moved: bool
    score: float
    work: list[tuple[str, str]]
    page: list[tuple[str, str]]


def _parts(text: str, marks: dict[str, str]) -> list[tuple[str, str]]:
    """``text`` cut at the first occurrences, left to right, of the words of ``marks``."""
    parts: list[tuple[str, str]] = []
    at = 0
    while marks:
        hits = [(text.find(w, at), w) for w in marks if text.find(w, at) >= 0]
        if not hits:
            break
        start, word = min(hits, key=lambda h: (h[0], -len(h[1])))
        if start > at:
            parts.append((text[at:start], ""))
        parts.append((word, marks[word]))
        at = start + len(word)
    if at < len(text):
        parts.append((text[at:], ""))
    return parts


def explain(stage: RewriteStage, work_text: str, page_text: str) -> list[ShownPair]:
    """The pairs of a rewritten match in the work's order, every pair the alignment makes
    (template sentences and a share under the threshold included: the reviewer sees them all;
    [] when nothing pairs, e.g. the work's text changed since). ``stage``: the engine's
    RewriteStage (its classes and limits); the texts as matched."""
    work, page = stage.sentences(work_text), stage.sentences(page_text)
    found = judge_rewrite(work, page, stage.limits, stage.config.rewrite_min_tokens, 0.0, 1)
    if found is None:
        return []
    order = {k: n + 1 for n, k in enumerate(sorted({p.page[0] for p in found.pairs}))}
    shown = []
    for pair in found.pairs:
        w = work[pair.work]
        page_words = [wd for k in pair.page for wd in page[k].words]
        by_token = {t: wd for wd, t in page_words if t.startswith("#")}
        work_marks = {wd: by_token[t] for wd, t in w.words
                      if t in by_token and by_token[t] != wd}
        page_marks = {other: wd for wd, other in work_marks.items()}
        texts = "".join(page_text[page[k].start:page[k].end] for k in pair.page)
        shown.append(ShownPair(pair.work + 1, order[pair.page[0]], pair.moved, pair.score,
                               _parts(work_text[w.start:w.end].strip(), work_marks),
                               _parts(texts.strip(), page_marks)))
    return shown
