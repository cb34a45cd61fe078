"""The one match exporter: the columns of a match, as JSON Lines, CSV or XLSX.

Used by the dashboard's match-list exports (what the list shows in the reader's language:
translated headings, yes/no, scores in %; CSV with a byte-order mark so Excel reads Chinese,
times as "YYYY-MM-DD HH:MM:SS" that spreadsheets read as dates; XLSX with number and date
cells; the headings of time columns name the time zone, ``zone_heading``) and by
``manage.py matches`` (column keys as headings, raw values). ``spreadsheet_csv`` writes the
dashboard's CSV of any table (the case list's too, ``crawler.case_exports``). The chapter column
and the passages come from ``core.chapters.attribute``, like everywhere else.

Cells that a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
return) get a leading apostrophe in CSV and XLSX, and control characters are shown as visible
escapes (``core.spreadsheets.safe``): page titles and URLs come from crawled sites,
which anyone can write (OWASP, "CSV Injection"). JSON Lines is not for spreadsheets and keeps
every value (control characters written as JSON escapes, ``lib.text.untrusted.json_text``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.chapters import attribute, passages_from_json
from core.spreadsheets import safe
from crawler.provenance import found_by, way_names
from lib.text.untrusted import json_text

#: (key, heading, XLSX column width in characters), in row order.
COLUMNS = [
    ("match_id", gettext_lazy("match id"), 8),
    ("holder", gettext_lazy("rights holder"), 20),
    ("work_reference", gettext_lazy("work reference"), 14),
    ("work_title", gettext_lazy("work title"), 30),
    ("url", gettext_lazy("page URL"), 50),
    ("domain", gettext_lazy("domain"), 22),
    ("page_title", gettext_lazy("page title"), 30),
    ("chapter", gettext_lazy("chapter"), 30),
    ("score", gettext_lazy("score"), 8),
    ("kind", gettext_lazy("kind of match"), 14),
    ("same_text", gettext_lazy("same text as"), 20),
    ("part_of_works", gettext_lazy("part of works"), 20),
    ("part_works", gettext_lazy("works inside it"), 20),
    ("containment_page", gettext_lazy("share of the page from the work"), 10),
    ("containment_work", gettext_lazy("share of the work on the page"), 10),
    ("passage_count", gettext_lazy("passages"), 8),
    ("first_seen", gettext_lazy("first seen"), 26),
    ("last_seen", gettext_lazy("last seen"), 26),
    ("still_matching", gettext_lazy("still matching"), 8),
    ("review_status", gettext_lazy("review status"), 14),
    ("work_id", gettext_lazy("work id"), 8),
    ("page_id", gettext_lazy("page id"), 26),
    ("version_id", gettext_lazy("page version id"), 26),
    ("passages", gettext_lazy("passage offsets"), 40),
    ("found_by", gettext_lazy("found by"), 30),
]
KEYS = [key for key, _heading, _width in COLUMNS]
SCORES = ("score", "containment_page", "containment_work")
#: the registered works a match's page copies too, as ``crawler.models.Match`` holds them
RELATED = ("same_text", "part_of_works", "part_works")
TIMES = ("first_seen", "last_seen")


def headings(translated: bool = True) -> list[str]:
    """Column headings in row order: in the active language (a time column's naming the
    time zone, ``zone_heading``), or the record keys."""
    if not translated:
        return list(KEYS)
    return [zone_heading(heading) if key in TIMES else str(heading)
            for key, heading, _width in COLUMNS]


def zone_heading(heading) -> str:
    """``heading`` (str or lazy) of a column of local times, naming the active time zone and,
    when it keeps one offset all year, that offset: "first seen (Asia/Shanghai, UTC+08:00)"."""
    zone = timezone.get_current_timezone()
    year = timezone.now().year
    offsets = {datetime(year, month, 1, tzinfo=zone).strftime("%z") for month in (1, 7)}
    name = timezone.get_current_timezone_name()
    if len(offsets) == 1:
        (offset,) = offsets
        name = f"{name}, UTC{offset[:3]}:{offset[3:]}"
    return f"{heading} ({name})"


def sheet_time(value) -> datetime | None:
    """Aware datetime ``value`` as a spreadsheet's date cell holds it: the active time zone's
    local time, naive (the zone is in the heading, ``zone_heading``); None for None."""
    return timezone.localtime(value).replace(tzinfo=None) if value else None


def sheet_time_text(value) -> str:
    """``sheet_time`` as CSV text, "YYYY-MM-DD HH:MM:SS", which spreadsheets read as a date;
    "" for None."""
    return f"{sheet_time(value):%Y-%m-%d %H:%M:%S}" if value else ""


def _local(value) -> str:
    return timezone.localtime(value).isoformat(timespec="seconds") if value else ""


def record(match, translated: bool = False) -> dict:
    """One match (a crawler Match with its work and holder loaded) as a JSON-ready dict with
    the ``KEYS``: scores are floats in 0..1 (4 decimals); times ISO 8601 in the current time
    zone with its offset; ``passages`` a list of offset dicts (characters) cut at the work's
    chapter boundaries, ``chapter`` the titles they cover ("; "-separated); ``review_status``
    and ``kind`` (copy, rewritten) their codes, or their labels in the active language when
    ``translated``; ``found_by`` each way the page was found (scan, web search, web archive:
    ``crawler.provenance.found_by``); ``same_text``, ``part_of_works`` and ``part_works`` the
    other registered works the page copies too (``related_works``).

    Raises:
        ValueError: the match's stored passages are malformed.
    """
    work = match.work
    found = attribute(work.sections or [], passages_from_json(match.passages))
    return {
        "match_id": match.pk, "holder": work.holder.name, "work_reference": work.reference,
        "work_title": work.title, "url": match.url, "domain": match.domain,
        "page_title": match.title, "chapter": found.label, "score": round(match.score, 4),
        "kind": match.get_kind_display() if translated else match.kind,
        "containment_page": round(match.containment_page, 4),
        "containment_work": round(match.containment_work, 4),
        "passage_count": len(found.passages), "first_seen": _local(match.first_seen),
        "last_seen": _local(match.last_seen), "still_matching": match.still_matching,
        "review_status": (match.get_review_status_display() if translated
                          else match.review_status),
        "work_id": work.pk, "page_id": match.page_id, "version_id": match.version_id,
        "passages": [p.to_dict() for p in found.passages], "found_by": found_by(match),
        **{key: related_works(match, getattr(match, key)) for key in RELATED},
    }


def related_works(match, work_pks: list[int]) -> dict:
    """The registered works ``work_pks`` (the match's ``same_text``, ``part_of_works`` or
    ``part_works``) as an export names them, as the evidence view does
    (``Match.related_works``): ``works``, the references (else titles) of those of the match's
    rights holder, sorted; ``other_holders``, how many belong to other holders."""
    own, others = match.related_works(work_pks)
    return {"works": sorted(w.reference or w.title for w in own), "other_holders": others}


def related_cell(related: dict) -> str:
    """``related_works`` as one cell in the active language: "XYJ-2, XYJ-3", then how many
    works of other rights holders, "" when none."""
    parts = [", ".join(related["works"])] if related["works"] else []
    if related["other_holders"]:
        n = related["other_holders"]
        parts.append(ngettext("%(n)s of another rights holder (a rights conflict)",
                              "%(n)s of other rights holders (a rights conflict)", n) % {"n": n})
    return "; ".join(parts)


def _cells(match, translated: bool) -> list:
    """A CSV row: with ``translated``, as the match list shows it (scores in %, "still
    matching" as yes/no in the active language, times as ``sheet_time_text``); otherwise
    ``record``'s values."""
    row = record(match, translated)
    row["passages"] = json.dumps(row["passages"])
    row["found_by"] = (", ".join(way_names(row["found_by"])) if translated
                       else json.dumps(row["found_by"], ensure_ascii=False))
    row.update({key: related_cell(row[key]) if translated
                else json.dumps(row[key], ensure_ascii=False) for key in RELATED})
    if translated:
        row["still_matching"] = _("Yes") if row["still_matching"] else _("No")
        row.update({key: f"{row[key]:.0%}" for key in SCORES})
        row.update({key: sheet_time_text(getattr(match, key)) for key in TIMES})
    return [safe(row[key]) for key in KEYS]


def _typed_cells(match) -> list:
    """An XLSX row as the list shows it, typed: scores as numbers (shown in % by the column's
    format), first and last seen as date cells in the active time zone, yes/no translated."""
    row = record(match, translated=True)
    row["passages"] = json.dumps(row["passages"])
    row["found_by"] = ", ".join(way_names(row["found_by"]))
    row.update({key: related_cell(row[key]) for key in RELATED})
    row["still_matching"] = _("Yes") if row["still_matching"] else _("No")
    for key in TIMES:  # a spreadsheet's date cell has no zone: the local time, as on screen
        row[key] = sheet_time(getattr(match, key))
    return [safe(row[key]) for key in KEYS]


def jsonl_lines(matches: Iterable) -> Iterator[str]:
    """One JSON object (``record``) per match, without newline, non-ASCII kept."""
    for match in matches:
        yield json_text(record(match))


class _Line:
    """A file-like sink for csv.writer that hands back what was written."""

    def write(self, text: str) -> str:
        return text


_WRITER = csv.writer(_Line())


def csv_row(cells: list) -> str:
    """One CSV line (ending in "\r\n") of ``cells``, as csv.writer writes them."""
    return _WRITER.writerow(cells)


def csv_lines(matches: Iterable, translated: bool = True) -> Iterator[str]:
    """The CSV as lines (each ending in "\\r\\n"): the heading row, then one row per match read
    lazily from ``matches`` (``translated``: headings and cells as the match list shows them in
    the active language; otherwise keys and ``record``'s values); formula-like cells guarded,
    passages as JSON."""
    yield csv_row(headings(translated))
    for match in matches:
        yield csv_row(_cells(match, translated))


def spreadsheet_csv(lines: Iterable[str]) -> Iterator[str]:
    """The dashboard's CSV of a table: ``lines`` (CSV lines in the active language, cells
    guarded), the first with a byte-order mark (so Excel reads Chinese as UTF-8)."""
    for i, line in enumerate(lines):
        yield ("\ufeff" if i == 0 else "") + line


def csv_chunks(matches: Iterable) -> Iterator[bytes]:
    """The dashboard's CSV download: ``spreadsheet_csv`` of ``csv_lines`` (translated) as
    UTF-8 byte chunks."""
    for line in spreadsheet_csv(csv_lines(matches)):
        yield line.encode("utf-8")


def to_xlsx(matches: Iterable) -> bytes:
    """XLSX bytes of the match list (``table_xlsx``): translated headings, rows as the match
    list shows them with typed cells (``_typed_cells``: scores formatted 0%, times as date
    cells in the active time zone), URLs as hyperlinks."""
    formats = {key: "0%" for key in SCORES} | {key: "yyyy-mm-dd hh:mm:ss" for key in TIMES}
    return table_xlsx(_("matches"), COLUMNS, headings(), (_typed_cells(m) for m in matches),
                      formats, link_key="url")


def table_xlsx(title: str, columns: list, heads: list[str], rows: Iterable[list],
               formats: dict[str, str], link_key: str | None = None) -> bytes:
    """XLSX bytes (openpyxl) of one table: one sheet named ``title`` (cut to 31 characters),
    a bold frozen heading row ``heads``, then ``rows`` (cells already guarded by ``safe``).

    Args:
        columns: (key, heading, width in characters) per column, in row order.
        formats: number format by column key (e.g. "yyyy-mm-dd hh:mm:ss" for date cells).
        link_key: the column whose http(s) cells become hyperlinks, or None.
    """
    # Imported here for start-up cost: openpyxl loads only when a spreadsheet is made.
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    keys = [column[0] for column in columns]
    book = Workbook()
    sheet = book.active
    sheet.title = str(title)[:31]
    sheet.append(heads)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    numbered = {keys.index(key) + 1: number_format for key, number_format in formats.items()}
    link_column = keys.index(link_key) + 1 if link_key else None
    for row in rows:
        sheet.append(row)
        for column, number_format in numbered.items():
            sheet.cell(row=sheet.max_row, column=column).number_format = number_format
        if link_column:
            cell = sheet.cell(row=sheet.max_row, column=link_column)
            if isinstance(cell.value, str) and cell.value.startswith(("http://", "https://")):
                cell.hyperlink = cell.value
    sheet.freeze_panes = "A2"
    for number, (_key, _heading, width) in enumerate(columns, start=1):
        sheet.column_dimensions[get_column_letter(number)].width = width
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
