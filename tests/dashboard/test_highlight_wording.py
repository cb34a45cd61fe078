"""Pure helpers: cutting texts at passages, scores in words, web links."""

import pytest
from django.utils import translation

from dashboard.highlight import Segment, SpanError, highlight
from dashboard.wording import describe, percent


def rebuild(segments, text):
    out, pos = [], 0
    for s in segments:
        if s.elided:
            pos += s.elided
        else:
            assert text[pos:pos + len(s.text)] == s.text
            out.append(s.text)
            pos += len(s.text)
    assert pos == len(text)
    return out


def test_whole_text_marks_each_passage_exactly():
    text = "abcdefghijklmnopqrstuvwxyz"
    segments = highlight(text, [(2, 5), (10, 14)])
    assert [s.text for s in segments if s.passages] == ["cde", "klmn"]
    assert [s.passages for s in segments if s.passages] == [(0,), (1,)]
    assert "".join(rebuild(segments, text)) == text


def test_overlapping_passages_split_into_shared_pieces():
    segments = highlight("0123456789", [(1, 6), (4, 8)])
    assert [(s.text, s.passages) for s in segments] == [
        ("0", ()), ("123", (0,)), ("45", (0, 1)), ("67", (1,)), ("89", ())]
    assert segments[1].first_of == (0,) and segments[2].first_of == (1,)


def test_context_elides_far_text_and_keeps_offsets():
    text = "x" * 1000 + "MATCH" + "y" * 1000
    segments = highlight(text, [(1000, 1005)], context=10)
    assert segments[0] == Segment("", elided=990)
    assert "".join(s.text for s in segments) == "x" * 10 + "MATCH" + "y" * 10
    assert segments[-1].elided == 990
    rebuild(segments, text)


@pytest.mark.parametrize("span", [(-1, 3), (5, 2), (0, 11)])
def test_spans_that_do_not_fit_are_refused(span):
    with pytest.raises(SpanError, match="does not fit a text of 10 characters"):
        highlight("0123456789", [span])


def test_percent():
    assert percent(0.623) == "62%"
    assert percent(0.001) == "<1%"
    assert percent(0) == "0%" and percent(1) == "100%"
    with pytest.raises(ValueError):
        percent(1.5)


def test_describe_in_both_languages():
    with translation.override("en"):
        page, work = describe(0.62, 0.08, "X", ["chapter 12"])
    assert page == "62% of the page comes from “chapter 12” of “X”."
    assert work == "8% of the work appears on the page."
    with translation.override("zh-hans"):
        page, work = describe(0.62, 0.08, "西游记", ["第二回"])
    assert page == "网页文字的 62% 来自《西游记》的“第二回”。"
    assert work == "作品的 8% 出现在该网页上。"


@pytest.mark.parametrize("url,href", [
    ("https://a.example/x", "https://a.example/x"), ("HTTP://A.example/", "HTTP://A.example/"),
    ("javascript:alert(1)", ""), ("data:text/html,<b>x</b>", "")])
def test_only_web_urls_become_links(url, href):
    from dashboard.evidence import web_href

    assert web_href(url) == href
