"""Decoding (crawler.decode): header, BOM, meta, detection; GB2312/GBK as GB18030; Big5."""

from pathlib import Path

from crawler.decode import decode_body

FIXTURES = Path(__file__).parent / "fixtures"
# 镕 and 堃 are GBK-only (not in GB2312): a GB2312 codec would lose them
TEXT = "朱镕基总理昨日在北京会见了来访的客人，王堃先生介绍了当地的经济发展情况。" * 4


def test_gbk_page_without_charset_is_detected_as_gb18030():
    body = f"<html><head><title>新闻</title></head><body><p>{TEXT}</p></body></html>".encode("gbk")
    decoded = decode_body(body, "text/html")
    assert decoded.source == "detected"
    assert decoded.encoding == "gb18030"
    assert TEXT in decoded.text


def test_real_gb2312_page_without_charset():
    decoded = decode_body((FIXTURES / "gb2312_no_charset.html").read_bytes(), None)
    assert decoded.encoding == "gb18030"
    assert "搜狐在线国庆免费大酬宾" in decoded.text


def test_real_big5_page_without_charset():
    decoded = decode_body((FIXTURES / "big5_no_charset.html").read_bytes(), "text/html")
    assert decoded.encoding.startswith("big5") or decoded.encoding == "cp950"
    assert "台北看守所昨天抽查前總統陳水扁的房舍" in decoded.text


def test_header_gb2312_reads_gbk_only_characters():
    decoded = decode_body(TEXT.encode("gb18030"), "text/html; charset=gb2312")
    assert (decoded.encoding, decoded.source) == ("gb18030", "header")
    assert decoded.text == TEXT


def test_meta_charset_used_when_header_has_none():
    body = f'<html><head><meta charset="big5"></head><body>{"繁體中文頁面，測試編碼。" * 3}</body></html>'
    decoded = decode_body(body.encode("big5"), "text/html")
    assert decoded.source == "meta"
    assert "繁體中文頁面" in decoded.text


def test_lying_header_is_overruled_by_detection():
    decoded = decode_body(f"<p>{TEXT}</p>".encode("gbk"), "text/html; charset=utf-8")
    assert decoded.source == "detected"
    assert TEXT in decoded.text


def test_bom_wins_and_garbage_never_raises():
    assert decode_body("\ufeff中文".encode("utf-8"), "text/html; charset=gbk").text == "中文"
    assert decode_body(bytes(range(256)) * 4, "text/html; charset=x-unknown").text
