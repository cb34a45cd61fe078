"""Strings that come from people, pages and files, checked before they are used (Django-free).

- ``ascii_int``: a number written with the ASCII digits 0-9 only. ``str.isdigit`` is true for
  "²", "١" or "１" too, and ``int()`` then fails on some of them (``int("²")``) and reads
  others (``int("１２")`` is 12): ids, sizes and counts from a request, a header or a file name
  are read with this instead.
- ``control_chars``: the control characters of a name (C0 with tab and line breaks, DEL, C1,
  and the Unicode format controls that reorder or hide text), for refusing such names at input.
- ``without_controls``: a name found in a document with its control characters dropped.
- ``printable``: text safe to print on a terminal or store in an XML cell: every control
  character (an ANSI escape sequence's ESC included) shown as a visible ``\\xNN`` escape.
- ``json_text``: a value as JSON that reads back the same, every control character written as
  a ``\\uXXXX`` escape (``json.dumps`` with non-ASCII kept leaves C1 and format controls raw).
"""

from __future__ import annotations

import json
import re

_ASCII_DIGITS = re.compile(r"[0-9]+")
# C0 controls, DEL, C1 controls, and the bidirectional and invisible format controls that make
# a name read differently from what it is.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                      r"\u2066-\u2069\ufff9-\ufffb]")
_LAYOUT = frozenset("\t\n")  # what printable(keep_newlines=True) keeps


def ascii_int(value: str | None) -> int | None:
    """The non-negative int written in ``value`` (str) with ASCII digits only, surrounding
    blanks not allowed; None for None, "" and anything else ("²", "１２", "-1", "1.0", " 7")."""
    if value is None or not _ASCII_DIGITS.fullmatch(value):
        return None
    return int(value)


def control_chars(text: str) -> list[str]:
    """The distinct control characters of ``text`` (str) in order of appearance: C0 controls
    (tab and line breaks included: a name is one line), DEL, C1 controls, and the Unicode
    format controls that reorder or hide text (U+200B-U+200F, U+202A-U+202E, U+2060-U+2064,
    U+2066-U+2069, U+FFF9-U+FFFB). Empty for a clean text."""
    return list(dict.fromkeys(_CONTROL.findall(text or "")))


def without_controls(text: str) -> str:
    """``text`` (str) without the characters ``control_chars`` names, each line break and tab
    made a space (a name found in a document, where they carry no meaning)."""
    return _CONTROL.sub(lambda m: " " if m.group() in _LAYOUT or m.group() == "\r" else "",
                        text)


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` (str) with each character ``control_chars`` names replaced by its visible
    escape (``\\x1b``, ``\\u202e``, ``\\n``), but newline and tab when ``keep_newlines``:
    nothing in it can move a terminal's cursor, change its colours or make an XML writer
    refuse the string. Other characters, CJK included, are kept."""
    def escape(found: re.Match) -> str:
        char = found.group()
        if keep_newlines and char in _LAYOUT:
            return char
        return char.encode("unicode_escape").decode("ascii")
    return _CONTROL.sub(escape, text)


def json_text(value) -> str:
    """``value`` (JSON-serialisable) as one line of JSON with non-ASCII characters kept and
    every character ``control_chars`` names written as a ``\\uXXXX`` escape: the same value
    once parsed, nothing a terminal would act on when printed."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
