"""Body extraction (lib.text.extract_document) on a real news page and on failure cases."""

from pathlib import Path

from lib.text import extract_document as extract
from lib.text import normalize as normalize_text

# The demo site's byte-for-byte copy of a GeneralNewsExtractor test page (demo/site/SOURCES.md).
NEWS_PAGE = Path(__file__).parents[3] / "demo" / "site" / "news" / "cjddsb-1.html"


def test_real_news_page_gives_body_title_and_date():
    page = NEWS_PAGE.read_text(encoding="utf-8")
    result = extract(page, "html", "http://www.cjddsb.com/a.html")
    assert result.ok and result.method == "resiliparse"
    assert result.title.startswith("常德市金融系统积极开展")
    assert result.date == "2019-09-23"
    assert "金融知识" in result.text
    assert "<div" not in result.text


def test_page_without_body_text_is_a_recorded_failure():
    result = extract("<html><head><title>空</title></head><body><div></div></body></html>")
    assert not result.ok and result.error == "no_text" and result.text == ""
    assert extract("   ").error == "empty_document"


def test_plain_text_is_taken_as_is_normalized():
    result = extract("第一段\u3000\u3000文字，足够长的一段正文内容。\r\n\r\n\r\n第二段文字，同样足够长。", "text")
    assert result.method == "plain" and result.ok
    assert result.text == "第一段 文字，足够长的一段正文内容。\n\n第二段文字，同样足够长。"


def test_normalize_keeps_paragraph_breaks():
    assert normalize_text("  a  b \n\n\n c\xa0 d ") == "a b\n\nc d"
