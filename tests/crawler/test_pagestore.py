"""Page store in MongoDB (crawler.lib.pagestore): unique canonical URL, versions kept as evidence."""

import dataclasses

import pymongo
import pytest

from crawler.lib.pagestore import PageStore


@pytest.fixture
def store(mongo_db):
    s = PageStore(mongo_db)
    s.ensure_indexes()
    return s


def save(store, text, body=None, scan=1, **kw):
    return store.save(canonical_url="http://x.cn/a", url="http://x.cn/a", final_url="http://x.cn/a",
                      domain="x.cn", site_id=1, scan_id=scan, status=200, outcome="ok", reason="",
                      headers={"content-type": "text/html"}, validators={"etag": '"1"'},
                      body=body if body is not None else text.encode(), text=text, title="T",
                      published=None, encoding="utf-8 (header)",
                      extraction={"method": "trafilatura", "error": None}, links=["http://x.cn/b"], **kw)


def test_new_unchanged_changed_and_versions_kept(store):
    first = save(store, "第一版正文")
    assert first.change == "new" and first.needs_matching
    again = save(store, "第一版正文", body=b"other ads, same text", scan=2)
    assert again.change == "unchanged" and again.version_id == first.version_id
    changed = save(store, "第二版正文", scan=3)
    assert changed.change == "changed" and changed.version_id != first.version_id
    assert store.version(first.version_id).text == "第一版正文"
    assert [v.number for v in store.history(first.page_id)] == [1, 2]
    page = store.get("http://x.cn/a")
    assert page.version_id == changed.version_id and page.versions == 2
    assert store.validators("http://x.cn/a") == {"etag": '"1"'}
    assert store.pages.count_documents({}) == 1


def test_failed_extraction_keeps_the_page_without_a_version(store):
    result = save(store, "")
    assert result.change == "no_text" and result.version_id is None and not result.needs_matching


def test_record_visit_keeps_text(store):
    first = save(store, "正文")
    assert store.record_visit("http://x.cn/a", scan_id=9, outcome="not_modified", status=304)
    page = store.page(first.page_id)
    assert page.last_outcome == "not_modified" and page.scan_id == 9
    assert page.version_id == first.version_id
    assert not store.record_visit("http://x.cn/none", scan_id=9, outcome="timeout", status=None)
    assert store.page("not-an-id") is None


def test_canonical_url_is_unique(store):
    save(store, "正文")
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        store.pages.insert_one({"canonical_url": "http://x.cn/a"})


@pytest.mark.parametrize("texts", [["第一版正文"], ["第一版正文", "第二版正文"]], ids=["new", "changed"])
def test_a_stored_version_comes_back_as_reading_it_would_give_it(store, texts):
    """The crawl task matches the Page and PageVersion that ``save`` hands back instead of
    reading them: they must be what a read gives (datetimes aside: MongoDB keeps milliseconds)."""
    for text in texts:
        result = save(store, text, part_of="http://x.cn/book")
    page, version = result.stored
    read_page, read_version = store.page(result.page_id), store.version(result.version_id)
    untimed = {"fetched_at": None, "checked_at": None, "first_seen": None}
    assert dataclasses.replace(page, **untimed) == dataclasses.replace(read_page, **untimed)
    assert dataclasses.replace(version, fetched_at=None) == dataclasses.replace(
        read_version, fetched_at=None)
    assert (version.text, version.number, page.part_of) == (texts[-1], len(texts), "http://x.cn/book")
    assert save(store, texts[-1]).stored is None  # unchanged: nothing to match
