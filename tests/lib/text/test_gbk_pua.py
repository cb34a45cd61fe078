"""GBK-era private-use code points (U+E815-U+E864) become the characters GB 18030 assigns to the
same bytes, in the one normalisation every upload and crawled page goes through."""

from pathlib import Path

from lib.text import extract_file, normalize

DEMO_WORK = Path(__file__).parents[3] / "demo" / "works" / "xiyouji-01-03.txt"


def test_demo_work_private_use_character_becomes_la():
    raw = DEMO_WORK.read_bytes()
    assert "滴\ue82f。".encode() in raw  # the upstream text carries the GBK-era code point
    extracted = extract_file(DEMO_WORK.name, raw)
    assert "师父果有些滴㳠。一行说我不会打市语" in extracted.text
    assert not any(0xE815 <= ord(c) <= 0xE864 for c in extracted.text if c != "\ue816")


def test_mapping_keeps_offsets_and_private_codes_gb18030_leaves_private():
    text = "甲\ue82f乙\ue816丙\ue815"  # FE6A, FE51 (still private in GB 18030-2005), FE50
    assert normalize(text) == "甲㳠乙\ue816丙⺁"
    assert len(normalize(text)) == len(text)
    assert normalize(normalize(text)) == normalize(text)


def test_same_bytes_read_as_gb18030_and_old_pua_text_give_one_text():
    modern = b"\xb5\xce\xfe\x6a".decode("gb18030")  # 滴㳠 as a GB 18030 page sends it
    assert normalize(modern) == normalize("滴\ue82f") == "滴㳠"
