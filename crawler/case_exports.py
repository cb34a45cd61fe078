"""The case exporter: the columns of a case, as JSON Lines or CSV (``manage.py cases``).

Cases come annotated by ``crawler.cases.with_page_counts``. CSV cells that a spreadsheet would
run as a formula get a leading apostrophe (``tracker.core.spreadsheets.safe``: work titles come from
uploads, domains from crawled sites); JSON Lines keeps every value as it is.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

from django.utils import timezone

from tracker.core import notes
from tracker.core.spreadsheets import safe

KEYS = ["case_id", "holder", "work_id", "work_reference", "work_title", "domain", "state",
        "state_reason", "pages", "pages_still_up", "opened_at", "state_changed_at",
        "notice_sent_at", "removed_at", "first_scan"]


def _local(value) -> str | None:
    return timezone.localtime(value).isoformat(timespec="seconds") if value else None


def record(case) -> dict:
    """One case (with its work and holder loaded, annotated with page counts) as a JSON-ready
    dict with the ``KEYS``: times ISO 8601 in the current time zone or None; ``state`` its
    code; ``state_reason`` in English words (a coded note put into words, a person's text as
    it is)."""
    work = case.work
    return {
        "case_id": case.pk, "holder": work.holder.name, "work_id": work.pk,
        "work_reference": work.reference, "work_title": work.title, "domain": case.domain,
        "state": case.state, "state_reason": notes.in_english(case.state_reason),
        "pages": case.page_total, "pages_still_up": case.standing_total,
        "opened_at": _local(case.opened_at), "state_changed_at": _local(case.state_changed_at),
        "notice_sent_at": _local(case.notice_sent_at), "removed_at": _local(case.removed_at),
        "first_scan": case.first_scan_id,
    }


def jsonl_lines(cases: Iterable) -> Iterator[str]:
    """One JSON object (``record``) per case, without newline, non-ASCII kept."""
    for case in cases:
        yield json.dumps(record(case), ensure_ascii=False)


def csv_lines(cases: Iterable) -> Iterator[str]:
    """The CSV as lines without line ends: the ``KEYS`` heading row, then one row per case;
    formula-like cells guarded, None as empty cells."""
    for row in [KEYS, *([safe(record(c)[k]) for k in KEYS] for c in cases)]:
        buffer = io.StringIO()
        csv.writer(buffer).writerow(["" if cell is None else cell for cell in row])
        yield buffer.getvalue().rstrip("\r\n")
