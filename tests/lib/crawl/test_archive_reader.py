"""The web-archive library without servers: WARC and WET files written with warcio read with
their offsets, a truncated or corrupt file ending in a Fault at the broken record, a gzip bomb
record cut at the byte limit in bounded memory, record texts as the crawler takes them."""

import io
import tracemalloc

import pytest

from lib.crawl.archive.cdx import match_type
from lib.crawl.archive.reader import ArchiveRecord, Fault, read_records
from lib.crawl.archive.text import record_text
from tests import archive_files
from tests.archive_files import Page, html_page

NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 4
PAGES = [Page("http://a.test/1", NEWS), Page("http://b.test/2", html_page("新闻", NEWS), html=True),
         Page("http://c.test/3", "第二段" + NEWS)]


def read(data: bytes, max_bytes: int = 100_000, **kw) -> list:
    return list(read_records(io.BytesIO(data), max_bytes=max_bytes, **kw))


@pytest.mark.parametrize("compressed", [True, False])
def test_records_come_with_the_offsets_warcio_wrote(tmp_path, compressed):
    path = tmp_path / "a.warc"
    offsets = archive_files.write(path, PAGES, gzip=compressed)
    items = read(path.read_bytes())
    assert [i.kind for i in items] == ["warcinfo", "conversion", "response", "conversion"]
    assert [i.offset for i in items[1:]] == offsets
    assert [i.uri for i in items[1:]] == [p.uri for p in PAGES]
    assert items[2].status == 200 and items[2].content_type.startswith("text/html")
    # reading from an offset (a resumed scan, a CDX capture) gives the same records
    data = path.read_bytes()
    tail = read(data[offsets[1]:], base_offset=offsets[1])
    assert [(i.offset, i.uri) for i in tail] == [(i.offset, i.uri) for i in items[2:]]
    assert read(data[offsets[1]:], base_offset=offsets[1], end_offset=offsets[2])[0].uri == PAGES[1].uri
    assert len(read(data[offsets[1]:], base_offset=offsets[1], end_offset=offsets[2])) == 1


@pytest.mark.parametrize("compressed", [True, False])
def test_a_truncated_file_keeps_the_records_before_the_fault(tmp_path, compressed):
    path = tmp_path / "a.warc"
    offsets = archive_files.write(path, PAGES, gzip=compressed)
    data = path.read_bytes()
    for cut in (len(data) - 5, offsets[2] + 40, (offsets[1] + offsets[2]) // 2):
        items = read(data[:cut])
        *records, fault = items
        assert isinstance(fault, Fault) and "truncated" in fault.reason
        assert all(isinstance(r, ArchiveRecord) for r in records)
        assert fault.offset == max(o for o in offsets if o < cut)
        assert [r.offset for r in records[1:]] == [o for o in offsets if o < fault.offset]


def test_a_corrupt_gzip_member_ends_the_file_with_its_offset(tmp_path):
    path = tmp_path / "a.warc.gz"
    offsets = archive_files.write(path, PAGES)
    data = bytearray(path.read_bytes())
    data[offsets[1] + 30:offsets[1] + 60] = b"x" * 30
    *records, fault = read(bytes(data))
    assert isinstance(fault, Fault) and fault.offset == offsets[1]
    assert [r.uri for r in records[1:]] == [PAGES[0].uri]


@pytest.mark.slow
def test_a_gzip_bomb_record_is_cut_at_the_limit_in_bounded_memory(tmp_path):
    bomb = b"<html><body><p>" + b"a" * 300_000_000 + b"</p></body></html>"
    path = tmp_path / "bomb.warc.gz"
    archive_files.write(path, [PAGES[0], Page("http://bomb.test/", raw=bomb, html=True), PAGES[2]])
    del bomb
    assert path.stat().st_size < 1_000_000
    tracemalloc.start()
    try:
        items = read(path.read_bytes(), max_bytes=256 * 1024)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [i.uri for i in items[1:]] == ["http://a.test/1", "http://bomb.test/", "http://c.test/3"]
    assert items[2].cut and len(items[2].body) == 256 * 1024
    assert not items[1].cut and not items[3].cut
    assert peak < 80_000_000  # not the 300 MB the member inflates to


def test_record_text_is_the_crawlers_text(tmp_path):
    path = tmp_path / "a.warc.gz"
    archive_files.write(path, PAGES)
    items = read(path.read_bytes())
    wet, response = record_text(items[1]), record_text(items[2])
    assert wet.text == NEWS and wet.title is None
    # what the crawl pipeline stores for the same bytes: the article with its heading
    assert response.text == "新闻\n\n" + NEWS and response.title == "新闻"
    assert response.extraction == {"method": "resiliparse", "error": None}
    assert record_text(items[0]) is None  # warcinfo


def test_cdx_patterns():
    assert match_type("Example.com") == ("example.com", "domain")
    assert match_type("https://example.com/books/") == ("https://example.com/books/", "prefix")
    assert match_type("example.com/books/") == ("example.com/books/", "prefix")

