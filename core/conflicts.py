"""Is a text already registered? The engine's view of a new text against the registered works.

The new text is matched as if it were a crawled page: the index names the candidate works
(``Engine.candidates``) and each is aligned and judged alone (``Engine.verify``), not against
the other candidates as ``Engine.match`` does, because ``match`` halves the weight of text that
two candidates share: when two holders have already registered the same text, a third copy
would score 0.5 against each. The measure is ``Match.score``, the larger of the two
containments: the share of the new text found in the work (a chapter re-registered on its own)
or the share of the work found in the new text (a whole novel uploaded after one of its
chapters). Either way, at settings.DUPLICATE_MIN_CONTAINMENT (0.90) or more the two claim the
same text; the 10% leeway absorbs a changed preface, headers and corrected typos.

Where it runs: at upload time (dashboard, ``import_works``, API) against the works already
indexed, for the same-holder warning (``same_holder_duplicate``); and after every ingestion
(``conflict_actions.do_flag_rights_conflicts``, on the ``work_indexed`` signal) for conflicts with other holders' works,
so that of two works uploaded before either was indexed, the one indexed second finds the first.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from .connections import storage_errors
from .engine import get_engine
from .errors import CoreError
from .ingestion import work_text
from .models import RightsHolder, Work

log = logging.getLogger(__name__)


@dataclass
class Overlap:
    """A registered work sharing a text.

    Attributes:
        work: the registered Work.
        containment: the larger containment (0..1), ``Match.score`` of ``Engine.verify``.
        passages: shared passages as ``Passage.to_dict()`` dicts (page = the new text).
    """

    work: Work
    containment: float
    passages: list[dict]


class DuplicateWork(CoreError, ValueError):
    """The holder already registered this text as another work (``overlap``)."""

    def __init__(self, overlap: Overlap) -> None:
        super().__init__(f"the text is {overlap.containment:.0%} the same as work "
                         f"{overlap.work.pk} ({overlap.work.reference})")
        self.overlap = overlap


def overlaps(text: str, exclude: Work | None = None) -> list[Overlap]:
    """Registered works sharing at least settings.DUPLICATE_MIN_CONTAINMENT with ``text``.

    Args:
        text: the new text (str).
        exclude: the work being updated, left out (its own older text is no duplicate).

    Returns:
        Overlaps, largest containment first; [] when the text is too short to match.

    Raises:
        The storage errors of ``connections.storage_errors()`` (MongoDB or Redis down).
    """
    engine = get_engine()
    letters = engine.letters(text)
    if len(letters) < engine.config.min_text_letters:
        return []
    found = {}
    for engine_id, _hits in engine.candidates(letters):
        match = engine.verify(letters, engine_id)
        if match is not None and match.score >= settings.DUPLICATE_MIN_CONTAINMENT:
            found[engine_id] = match
    works = Work.objects.filter(uid__in=list(found)).select_related("holder")
    if exclude is not None:
        works = works.exclude(pk=exclude.pk)
    result = [Overlap(w, found[w.engine_id].score,
                      [p.to_dict() for p in found[w.engine_id].passages]) for w in works]
    return sorted(result, key=lambda o: (-o.containment, o.work.pk))


def same_holder_duplicate(holder: RightsHolder, reference: str, text: str) -> Overlap | None:
    """The holder's registered work (other than ``reference``) that ``text`` duplicates, or
    None; also None, logged, when MongoDB or Redis is unreachable (the upload must not fail for
    a check it can do without)."""
    current = Work.objects.filter(holder=holder, reference=reference.strip()).first()
    try:
        found = overlaps(text, exclude=current)
    except storage_errors() as exc:
        log.warning("duplicate check skipped, storage unreachable: %s", exc)
        return None
    return next((o for o in found if o.work.holder_id == holder.pk), None)


def check_not_duplicate(holder: RightsHolder, reference: str, text: str) -> None:
    """Raise DuplicateWork when ``same_holder_duplicate`` finds one."""
    overlap = same_holder_duplicate(holder, reference, text)
    if overlap is not None:
        raise DuplicateWork(overlap)


def other_holders_overlaps(work_id: int) -> tuple[Work | None, list[Overlap]]:
    """The indexed work ``work_id`` and the overlaps of other holders' works sharing its text
    (``overlaps``), for ``conflict_actions.do_flag_rights_conflicts``.

    Returns:
        (the work, its overlaps with other holders' works); (None, []) when the work or its
        text is gone.

    Raises:
        The storage errors of ``connections.storage_errors()``.
    """
    work = Work.objects.filter(pk=work_id).first()
    text = work_text(work) if work else None
    if text is None:
        return None, []
    return work, [o for o in overlaps(text, exclude=work) if o.work.holder_id != work.holder_id]
