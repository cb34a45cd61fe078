"""Strings from people, pages and files: numbers read with ASCII digits only (``"²".isdigit()``
is true and ``int("²")`` fails), control characters found in names, and text made safe to print
on a terminal or write in a spreadsheet cell."""

from __future__ import annotations

import pytest

from lib.crawl.fetch import parse_retry_after
from lib.crawl.links import chapter_part
from lib.text.untrusted import ascii_int, control_chars, printable


@pytest.mark.parametrize("value", ["²", "１２", "٣", "-1", "+1", "1.0", " 7", "7\n", "", None])
def test_only_ascii_digits_are_a_number(value):
    assert ascii_int(value) is None


def test_ascii_digits_are_read():
    assert (ascii_int("0"), ascii_int("007"), ascii_int("12345678901234567890")) == \
        (0, 7, 12345678901234567890)


def test_a_page_or_a_server_writing_other_digits_is_not_a_crash():
    # a hostile page's link and a hostile server's header, as the crawler reads them
    assert chapter_part("http://x.test/book/1.html?page=²") == ("http://x.test/book/1.html?page=²", 1)
    assert chapter_part("http://x.test/book/1.html?page=3") == ("http://x.test/book/1.html", 3)
    assert parse_retry_after("²") is None
    assert parse_retry_after("5") == 5.0


def test_control_characters_of_a_name():
    assert control_chars("示例出版社 Demo Press") == []
    assert control_chars("a\x1b[31mred\x1b[0m\x07\u202eb\x85") == ["\x1b", "\x07", "\u202e", "\x85"]
    assert control_chars("line one\nline two\ttab") == ["\n", "\t"]  # a name is one line


def test_printable_shows_every_control_as_a_visible_escape():
    shown = printable("出版社\x1b[2J\x07\u202e\nnext")
    assert shown == "出版社\\x1b[2J\\x07\\u202e\\nnext"
    assert printable("a\nb\tc\rd", keep_newlines=True) == "a\nb\tc\\rd"
    assert not control_chars(shown) and "\n" not in shown
