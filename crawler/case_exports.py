"""The case exporter: the columns of a case, as JSON Lines or CSV (``manage.py cases``).

Cases come annotated by ``crawler.cases.with_page_counts``. JSON Lines keeps the record's raw
values (state codes, ISO 8601 times with their offset; control characters as JSON escapes).
The CSV is the dashboard's CSV (``crawler.exports.spreadsheet_csv``): a byte-order mark,
headings and states in the active language, times as dates that spreadsheets read in the
active time zone, named in the headings (``crawler.exports.zone_heading``), and cells guarded
by ``tracker.core.spreadsheets.safe`` (a formula starts with an apostrophe, control characters
are shown as escapes: work titles come from uploads, domains from crawled sites).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from django.utils import timezone
from django.utils.translation import gettext_lazy

from crawler.exports import csv_row, sheet_time_text, spreadsheet_csv, zone_heading
from tracker.core import notes
from tracker.core.spreadsheets import safe
from tracker.text.untrusted import json_text

#: (key, heading), in row order.
COLUMNS = [
    ("case_id", gettext_lazy("case id")), ("holder", gettext_lazy("rights holder")),
    ("work_id", gettext_lazy("work id")), ("work_reference", gettext_lazy("work reference")),
    ("work_title", gettext_lazy("work title")),
    ("domain", gettext_lazy("site (registered domain)")), ("state", gettext_lazy("state")),
    ("state_reason", gettext_lazy("reason")), ("pages", gettext_lazy("pages")),
    ("pages_still_up", gettext_lazy("pages still up")), ("opened_at", gettext_lazy("opened")),
    ("state_changed_at", gettext_lazy("state changed")),
    ("notice_sent_at", gettext_lazy("notice sent")), ("removed_at", gettext_lazy("removed")),
    ("first_scan", gettext_lazy("first scan")),
]
KEYS = [key for key, _heading in COLUMNS]
TIMES = ("opened_at", "state_changed_at", "notice_sent_at", "removed_at")


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
    """One JSON object (``record``) per case, without newline, non-ASCII kept, control
    characters as JSON escapes (``json_text``)."""
    for case in cases:
        yield json_text(record(case))


def _cells(case) -> list:
    """A CSV row as the dashboard shows the case: its state and reason in the active language,
    times as ``sheet_time_text``; cells guarded, None as empty."""
    row = record(case)
    row["state"] = case.get_state_display()
    row["state_reason"] = notes.in_words(case.state_reason)
    row.update({key: sheet_time_text(getattr(case, key)) for key in TIMES})
    return [safe("" if row[key] is None else row[key]) for key in KEYS]


def csv_lines(cases: Iterable) -> Iterator[str]:
    """The dashboard's CSV (``spreadsheet_csv``) as lines, each ending in "\\r\\n": the
    headings in the active language (the time columns' naming the zone), then one row per
    case (``_cells``)."""
    heads = [zone_heading(h) if key in TIMES else str(h) for key, h in COLUMNS]
    yield from spreadsheet_csv(chain([csv_row(heads)], (csv_row(_cells(c)) for c in cases)))
