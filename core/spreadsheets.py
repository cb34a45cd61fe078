"""Cells of the CSV and XLSX files the platform writes, safe to open in a spreadsheet and to
print on a terminal."""

from __future__ import annotations

from lib.text.untrusted import printable

# A cell starting with one of these is evaluated as a formula by Excel, LibreOffice and Google
# Sheets (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe(value):
    """Return ``value`` as a cell: a str with its control characters shown as visible escapes
    (``lib.text.untrusted.printable``, newlines and tabs kept: an XLSX cannot hold them,
    a terminal would act on them) and a leading apostrophe if a spreadsheet would evaluate it
    (a title such as ``=HYPERLINK(...)``); any other value unchanged."""
    if not isinstance(value, str):
        return value
    value = printable(value, keep_newlines=True)
    return "'" + value if value.startswith(FORMULA_START) else value
