"""Cells of the CSV and XLSX files the platform writes, safe to open in a spreadsheet."""

from __future__ import annotations

# A cell starting with one of these is evaluated as a formula by Excel, LibreOffice and Google
# Sheets (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe(value):
    """Return ``value`` with a leading apostrophe if it is a str a spreadsheet would evaluate
    (a title such as ``=HYPERLINK(...)``); any other value unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value
