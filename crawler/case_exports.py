"""The case exporter: the columns of a case, as JSON Lines, CSV or XLSX (``manage.py cases``
and the case list's exports, ``dashboard.case_admin``).

Cases come annotated by ``crawler.cases.with_page_counts``. JSON Lines keeps the record's raw
values (state codes, ISO 8601 times with their offset; control characters as JSON escapes).
The CSV is the dashboard's CSV (``crawler.exports.spreadsheet_csv``): a byte-order mark,
headings and states in the active language, times as dates that spreadsheets read in the
active time zone, named in the headings (``crawler.exports.zone_heading``), and cells guarded
by ``core.spreadsheets.safe`` (a formula starts with an apostrophe, control characters
are shown as escapes: work titles come from uploads, domains from crawled sites). The XLSX
holds the same rows with times as date cells (the zone in the headings).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core import notes
from core.spreadsheets import safe
from crawler.exports import (
    csv_row,
    sheet_time,
    sheet_time_text,
    spreadsheet_csv,
    table_xlsx,
    zone_heading,
)
from lib.text.untrusted import json_text

#: (key, heading, XLSX column width in characters), in row order.
COLUMNS = [
    ("case_id", gettext_lazy("case id"), 8), ("holder", gettext_lazy("rights holder"), 20),
    ("work_id", gettext_lazy("work id"), 8),
    ("work_reference", gettext_lazy("work reference"), 14),
    ("work_title", gettext_lazy("work title"), 30),
    ("domain", gettext_lazy("site (registered domain)"), 24),
    ("state", gettext_lazy("state"), 12), ("state_reason", gettext_lazy("reason"), 30),
    ("pages", gettext_lazy("pages"), 8), ("pages_still_up", gettext_lazy("pages still up"), 8),
    ("opened_at", gettext_lazy("opened"), 20),
    ("state_changed_at", gettext_lazy("state changed"), 20),
    ("notice_sent_at", gettext_lazy("notice sent"), 20),
    ("removed_at", gettext_lazy("removed"), 20), ("first_scan", gettext_lazy("first scan"), 8),
]
KEYS = [key for key, _heading, _width in COLUMNS]
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


def _shown(case) -> dict:
    """``record`` as the case list shows it: state and reason in the active language."""
    row = record(case)
    row["state"] = case.get_state_display()
    row["state_reason"] = notes.in_words(case.state_reason)
    return row


def _cells(case) -> list:
    """A CSV row as the dashboard shows the case (``_shown``), times as ``sheet_time_text``;
    cells guarded, None as empty."""
    row = _shown(case)
    row.update({key: sheet_time_text(getattr(case, key)) for key in TIMES})
    return [safe("" if row[key] is None else row[key]) for key in KEYS]


def _typed_cells(case) -> list:
    """An XLSX row as the list shows the case (``_shown``), times as date cells in the active
    time zone (``sheet_time``); cells guarded."""
    row = _shown(case)
    row.update({key: sheet_time(getattr(case, key)) for key in TIMES})
    return [safe(row[key]) for key in KEYS]


def headings() -> list[str]:
    """The column headings in the active language, the time columns' naming the zone."""
    return [zone_heading(h) if key in TIMES else str(h) for key, h, _width in COLUMNS]


def csv_lines(cases: Iterable) -> Iterator[str]:
    """The dashboard's CSV (``spreadsheet_csv``) as lines, each ending in "\\r\\n": the
    headings in the active language (``headings``), then one row per case (``_cells``)."""
    yield from spreadsheet_csv(chain([csv_row(headings())], (csv_row(_cells(c)) for c in cases)))


def csv_chunks(cases: Iterable) -> Iterator[bytes]:
    """``csv_lines`` as UTF-8 byte chunks: the case list's CSV download."""
    for line in csv_lines(cases):
        yield line.encode("utf-8")


def to_xlsx(cases: Iterable) -> bytes:
    """XLSX bytes of the case list (``crawler.exports.table_xlsx``): headings as ``headings``,
    rows typed (``_typed_cells``: times as date cells in the active time zone)."""
    formats = {key: "yyyy-mm-dd hh:mm:ss" for key in TIMES}
    return table_xlsx(_("cases"), COLUMNS, headings(), (_typed_cells(c) for c in cases), formats)
