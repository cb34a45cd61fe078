"""The page extractor (lib.text.extract_document, resiliparse and lxml) on hostile markup:
the crawler's and the demo site's real pages cut at random points, hypothesis-generated tag
soup, huge and deeply nested DOMs, and bytes in a wrong or broken encoding. It must return an
Extracted (text, or a recorded error), never raise, and keep text that is there."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.crawl.links import html_links, next_part_links
from lib.text import decode_bytes, extract_document
from lib.text.html import parse_html
from tests.examples import examples

ROOT = Path(__file__).parents[2]
PAGES = sorted((ROOT / "demo" / "site").rglob("*.html")) + \
    sorted((ROOT / "tests" / "crawler" / "fixtures").glob("*.html"))
BODY = "东胜神洲海外有一国土，名曰傲来国。国近大海，海中有一座名山，唤为花果山。"
TAGS = ["div", "p", "span", "table", "tr", "td", "ul", "li", "a", "script", "style", "b",
        "article", "nav", "footer", "br", "img", "iframe", "svg", "template", "noscript"]


def _extract(document: str, url: str = "http://127.0.0.1/a.html"):
    """Extraction, links and next parts of ``document`` as the crawler runs them."""
    parsed = parse_html(document)
    result = extract_document(parsed, "html", url, with_author=False)
    assert isinstance(html_links(parsed, url), list)
    assert isinstance(next_part_links(parsed, url), list)
    assert result.ok or result.error in ("no_text", "empty_document") or \
        result.error.startswith("parse_error")
    return result


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.sampled_from(PAGES), cut=st.floats(0, 1), junk=st.binary(max_size=64))
def test_real_pages_cut_anywhere_with_junk_bytes(page, cut, junk):
    data = page.read_bytes()
    data = data[:int(len(data) * cut)] + junk
    _extract(decode_bytes(data, None).text)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.one_of(
    st.sampled_from(TAGS).map(lambda t: f"<{t}>"), st.sampled_from(TAGS).map(lambda t: f"</{t}>"),
    st.sampled_from(["<", ">", "&", "&#0;", "&#x110000;", "<!--", "-->", "<![CDATA[", "\x00",
                     "<a href='javascript:x'>", "<a href='http://[::1'>", "<base href='::'>",
                     '<meta charset="gb2312">', "\ud800".encode("utf-8", "surrogatepass")
                     .decode("utf-8", "replace")]),
    st.text(max_size=30)), max_size=80))
def test_tag_soup_never_raises(parts):
    _extract("".join(parts))


def test_body_text_survives_unclosed_and_misnested_tags():
    soup = f"<html><body><div><p><b>{BODY}<p><i>{BODY}</b></i><table><td>{BODY}</div>"
    assert _extract(soup).text.count("傲来国") == 3


@pytest.mark.slow
def test_deep_nesting_keeps_the_text():
    depth = 20_000
    page = "<html><body>" + "<div>" * depth + BODY + "</div>" * depth + "</body></html>"
    assert "花果山" in _extract(page).text


def test_huge_dom_is_extracted():
    rows = "".join(f"<tr><td>{i}</td><td><a href='/p{i}.html'>链接{i}</a></td></tr>"
                   for i in range(50_000))
    page = f"<html><body><table>{rows}</table><article><p>{BODY}</p></article></body></html>"
    result = _extract(page)
    assert result.ok
    assert len(html_links(parse_html(page), "http://127.0.0.1/")) == 50_000


def test_wrong_encoding_declared_is_read_by_the_detector():
    page = f"<html><head><meta charset='utf-8'></head><body><p>{BODY}</p></body></html>"
    decoded = decode_bytes(page.encode("gb18030"), "text/html; charset=utf-8")
    assert "傲来国" in _extract(decoded.text).text
