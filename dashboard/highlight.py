"""Cut a stored text into segments for the evidence view: matched passages marked, the rest plain,
long unmatched stretches optionally left out.

Offsets are Python ``str`` indices (characters, end exclusive), as the engine's ``Passage``
gives them (docs/engine-api.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.errors import DashboardError


class SpanError(DashboardError, ValueError):
    """A passage's offsets do not fit the text (negative, reversed, or past its end)."""


@dataclass(frozen=True)
class Segment:
    """One piece of a text as shown.

    Attributes:
        text: the characters of the piece ("" for an elided piece).
        passages: indices (into the spans given) of the passages covering every character of
            the piece, ascending; empty for unmatched text.
        elided: for a left-out stretch, its length in characters (``text`` is then ""); else 0.
        first_of: passages whose first shown piece this is (the anchor for next/previous).
    """

    text: str
    passages: tuple[int, ...] = ()
    elided: int = 0
    first_of: tuple[int, ...] = ()


def _check(text: str, spans: Sequence[tuple[int, int]]) -> None:
    for i, (start, end) in enumerate(spans):
        if start < 0 or end < start or end > len(text):
            raise SpanError(f"passage {i + 1} ({start}-{end}) does not fit a text of "
                            f"{len(text)} characters")


def _kept(length: int, spans: Sequence[tuple[int, int]], context: int | None):
    """Merged (start, end) ranges of the text to show: all of it, or spans +- context."""
    if context is None:
        return [(0, length)]
    ranges = sorted((max(0, s - context), min(length, e + context)) for s, e in spans)
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [tuple(r) for r in merged]


def highlight(text: str, spans: Sequence[tuple[int, int]],
              context: int | None = None) -> list[Segment]:
    """Split ``text`` at the passages' edges.

    Args:
        text: the stored page text or work text.
        spans: ``(start, end)`` character offsets of each passage in ``text``, in passage
            order; spans may overlap (a page may repeat a work's sentence).
        context: None to keep the whole text; else keep only this many characters on each side
            of every span and replace the rest by elided segments (a novel of a million
            characters is not sent to the browser to show three passages).

    Returns:
        Segments in text order whose ``text`` joined with the elided lengths rebuilds ``text``.
        The segment where passage i starts has i in ``first_of``.

    Raises:
        SpanError: a span is negative, reversed, or ends past the text.
    """
    _check(text, spans)
    segments: list[Segment] = []
    started: set[int] = set()
    position = 0
    for keep_start, keep_end in _kept(len(text), spans, context):
        if keep_start > position:
            segments.append(Segment("", elided=keep_start - position))
        cuts = {keep_start, keep_end}
        cuts.update(x for s, e in spans for x in (s, e) if keep_start <= x <= keep_end)
        edges = sorted(cuts)
        for a, b in zip(edges, edges[1:], strict=False):
            covering = tuple(i for i, (s, e) in enumerate(spans) if s <= a and b <= e and s < e)
            first = tuple(i for i in covering if i not in started)
            started.update(first)
            segments.append(Segment(text[a:b], covering, first_of=first))
        position = keep_end
    if position < len(text):
        segments.append(Segment("", elided=len(text) - position))
    return segments
