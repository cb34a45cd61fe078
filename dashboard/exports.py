"""The match list as CSV or XLSX (the rows the admin's current filters, search and sort select).

Cells that a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
return) get a leading apostrophe: page titles and URLs come from crawled sites, which anyone
can write (OWASP, "CSV Injection").
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from django.utils import timezone
from django.utils.translation import gettext as _

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def columns() -> list[str]:
    """Column headings in the active language (list of str), in row order."""
    return [_("match id"), _("rights holder"), _("work reference"), _("work title"),
            _("page URL"), _("domain"), _("page title"), _("score"),
            _("share of the page from the work"), _("share of the work on the page"),
            _("passages"), _("first seen"), _("last seen"), _("review status")]


def _local(value) -> str:
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M:%S") if value else ""


def rows(matches: Iterable) -> Iterator[list]:
    """One list of cell values per Match, in ``columns()`` order.

    Scores are floats in 0..1; times are local (settings.TIME_ZONE) "YYYY-MM-DD HH:MM:SS".
    ``matches`` should select_related the work and its holder (one query for all rows).
    """
    for match in matches:
        work = match.work
        yield [match.pk, work.holder.name, work.reference, work.title, match.url, match.domain,
               match.title, round(match.score, 4), round(match.containment_page, 4),
               round(match.containment_work, 4), len(match.passages or []),
               _local(match.first_seen), _local(match.last_seen),
               match.get_review_status_display()]


def safe(value):
    """Return ``value`` with a leading apostrophe if it is a str a spreadsheet would evaluate."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class _Line:
    """A file-like sink for csv.writer that hands back what was written."""

    def write(self, text: str) -> str:
        return text


def csv_chunks(matches: Iterable) -> Iterator[bytes]:
    """The CSV as a stream of UTF-8 byte chunks, one per row, the first with a byte-order mark
    (so Excel reads Chinese) and the heading row; rows are read from ``matches`` lazily."""
    writer = csv.writer(_Line())
    yield ("\ufeff" + writer.writerow(columns())).encode("utf-8")
    for row in rows(matches):
        yield writer.writerow([safe(value) for value in row]).encode("utf-8")


def to_xlsx(matches: Iterable) -> bytes:
    """XLSX bytes (openpyxl): one sheet, bold frozen heading row, URLs as hyperlinks."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = _("matches")[:31]
    sheet.append(columns())
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    url_column = columns().index(_("page URL")) + 1
    for row in rows(matches):
        sheet.append([safe(value) for value in row])
        cell = sheet.cell(row=sheet.max_row, column=url_column)
        if isinstance(cell.value, str) and cell.value.startswith(("http://", "https://")):
            cell.hyperlink = cell.value
    sheet.freeze_panes = "A2"
    for letter, width in zip("ABCDEFGHIJKLMN", (8, 20, 14, 30, 50, 22, 30, 8, 10, 10, 8, 20,
                                                20, 14), strict=True):
        sheet.column_dimensions[letter].width = width
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
