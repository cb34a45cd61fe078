"""Decoding (lib.text.decode_bytes): header, BOM, meta, detection; GB2312/GBK as GB18030;
Big5 as Big5-HKSCS, else cp950; strict decoding of uploads."""

from pathlib import Path

import pytest

from lib.text import TextError, decode_bytes

FIXTURES = Path(__file__).parents[2] / "crawler" / "fixtures"  # real pages (SOURCES.md there)
# 镕 and 堃 are GBK-only (not in GB2312): a GB2312 codec would lose them
TEXT = "朱镕基总理昨日在北京会见了来访的客人，王堃先生介绍了当地的经济发展情况。" * 4


def test_gbk_page_without_charset_is_detected_as_gb18030():
    body = f"<html><head><title>新闻</title></head><body><p>{TEXT}</p></body></html>".encode("gbk")
    decoded = decode_bytes(body, "text/html")
    assert decoded.source == "detected"
    assert decoded.encoding == "gb18030"
    assert TEXT in decoded.text


def test_real_gb2312_page_without_charset():
    decoded = decode_bytes((FIXTURES / "gb2312_no_charset.html").read_bytes(), None)
    assert decoded.encoding == "gb18030"
    assert "搜狐在线国庆免费大酬宾" in decoded.text


def test_real_big5_page_without_charset():
    decoded = decode_bytes((FIXTURES / "big5_no_charset.html").read_bytes(), "text/html")
    assert decoded.encoding == "big5hkscs"
    assert "台北看守所昨天抽查前總統陳水扁的房舍" in decoded.text


def test_header_gb2312_reads_gbk_only_characters():
    decoded = decode_bytes(TEXT.encode("gb18030"), "text/html; charset=gb2312")
    assert (decoded.encoding, decoded.source) == ("gb18030", "header")
    assert decoded.text == TEXT


def test_meta_charset_used_when_header_has_none():
    body = f'<html><head><meta charset="big5"></head><body>{"繁體中文頁面，測試編碼。" * 3}</body></html>'
    decoded = decode_bytes(body.encode("big5"), "text/html")
    assert decoded.source == "meta"
    assert "繁體中文頁面" in decoded.text


def test_lying_header_is_overruled_by_detection():
    decoded = decode_bytes(f"<p>{TEXT}</p>".encode("gbk"), "text/html; charset=utf-8")
    assert decoded.source == "detected"
    assert TEXT in decoded.text


def test_bom_wins_and_garbage_never_raises():
    assert decode_bytes("\ufeff中文".encode("utf-8"), "text/html; charset=gbk").text == "中文"
    assert decode_bytes(bytes(range(256)) * 4, "text/html; charset=x-unknown").text


def test_big5_decodes_as_big5_hkscs_with_hong_kong_characters():
    text = "香港的茶餐廳，㗎啡好飲。" * 5  # 㗎 is in Big5-HKSCS only
    decoded = decode_bytes(text.encode("big5hkscs"), "text/plain; charset=big5")
    assert (decoded.encoding, decoded.text) == ("big5hkscs", text)


def test_cp950_bytes_that_big5_hkscs_cannot_read_fall_back_to_cp950():
    text = "價格：€100，臺灣製造的產品。" * 5  # the euro sign A3E1 exists in cp950 only
    decoded = decode_bytes(text.encode("cp950"), "text/html; charset=big5")
    assert (decoded.encoding, decoded.text) == ("cp950", text)


def test_utf16_with_bom():
    text = "第一回 灵根育孕源流出\n诗曰：混沌未分天地乱。"
    for codec in ("utf-16-le", "utf-16-be"):
        data = "\ufeff".encode(codec) + text.encode(codec)
        decoded = decode_bytes(data, strict=True)
        assert (decoded.text, decoded.source) == (text, "bom")


@pytest.mark.parametrize("snippet", ["而卯则日出；辰时", "草奇花不谢，青松", "日迸裂，产一石卵"])
def test_short_gbk_snippets_are_not_read_as_korean(snippet):
    # charset-normalizer alone names such snippets cp949 or utf_16_be (../shared notes)
    import charset_normalizer

    data = snippet.encode("gbk")
    assert charset_normalizer.from_bytes(data).best().encoding == "cp949"
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding) == (snippet, "gb18030")


def test_strict_decoding_refuses_what_it_cannot_read():
    with pytest.raises(TextError) as info:
        decode_bytes(bytes(range(0x80, 0x100)) * 3, strict=True)
    assert (info.value.code, info.value.reason) == ("encoding", "unknown")
    with pytest.raises(TextError) as info:
        decode_bytes(b"\xef\xbb\xbf" + "中文".encode("gbk"), strict=True)
    assert (info.value.code, info.value.reason) == ("encoding", "bad_bom")
