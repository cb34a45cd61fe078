"""Private-use code points left in text by old GBK converters, mapped to the characters
GB 18030 assigns to the same bytes.

GBK's user-defined row FE50-FEA0 (80 double-byte codes, 0x7F skipped) was mapped by GBK-era
tables (Microsoft CP936, GB 18030-2000) one to one onto U+E815-U+E864 of the Private Use Area.
GB 18030-2005 gives 66 of those codes real characters (CJK radicals, CJK Extension A, e.g.
FE6A = 㳠 U+3CE0); text converted with an old table still carries the private-use code point
(U+E82F for 㳠, as in 西游记 chapter 2, "师父果有些滴㳠"), which no font draws and which has no
pinyin. The table is derived from Python's ``gb18030`` codec (GB 18030-2005), not typed in;
the 14 codes the standard still leaves private (FE51 ...) stay as they are.
"""

from __future__ import annotations

PUA_FIRST = 0xE815  # GBK FE50
_TRAIL_BYTES = [b for b in range(0x50, 0xA1) if b != 0x7F]  # FE50-FE7E, FE80-FEA0


def _is_private(char: str) -> bool:
    return 0xE000 <= ord(char) <= 0xF8FF


def _table() -> dict[int, str]:
    table = {}
    for offset, trail in enumerate(_TRAIL_BYTES):
        char = bytes([0xFE, trail]).decode("gb18030")
        if not _is_private(char):
            table[PUA_FIRST + offset] = char
    return table


#: ``str.translate`` table: private-use code point (int) -> the GB 18030-2005 character (str).
GBK_PUA_TO_UNICODE: dict[int, str] = _table()


def map_gbk_private_use(text: str) -> str:
    """Replace the GBK-era private-use code points of ``text`` by their GB 18030-2005
    characters (one character for one: offsets do not move). Returns the new str."""
    return text.translate(GBK_PUA_TO_UNICODE)
