"""Page store in MongoDB (lib.crawl.pagestore): unique canonical URL, versions kept as evidence."""

import dataclasses

import pymongo
import pytest
from bson import ObjectId
from pymongo import monitoring

from lib.crawl.pagestore import PageStore, sha256


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


@pytest.mark.parametrize("expect_new", [False, True], ids=["plain", "expect_new"])
@pytest.mark.parametrize("texts", [["第一版正文"], ["第一版正文", "第二版正文"]], ids=["new", "changed"])
def test_a_stored_version_comes_back_as_reading_it_would_give_it(store, texts, expect_new):
    """The crawl task matches the Page and PageVersion that ``save`` hands back instead of
    reading them: they must be what a read gives (datetimes aside: MongoDB keeps milliseconds)."""
    for text in texts:
        result = save(store, text, part_of="http://x.cn/book", expect_new=expect_new)
    page, version = result.stored
    read_page, read_version = store.page(result.page_id), store.version(result.version_id)
    untimed = {"fetched_at": None, "checked_at": None, "first_seen": None}
    assert dataclasses.replace(page, **untimed) == dataclasses.replace(read_page, **untimed)
    assert dataclasses.replace(version, fetched_at=None) == dataclasses.replace(
        read_version, fetched_at=None)
    assert (version.text, version.number, page.part_of) == (texts[-1], len(texts), "http://x.cn/book")
    assert save(store, texts[-1]).stored is None  # unchanged: nothing to match


class _Writes(monitoring.CommandListener):
    """The write commands a MongoClient sends (pymongo's command monitoring)."""

    def __init__(self):
        self.names = []

    def started(self, event):
        if event.command_name in ("insert", "update", "findAndModify", "delete"):
            self.names.append(event.command_name)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


def test_a_new_page_expected_new_is_stored_in_two_writes(mongo_db):
    writes = _Writes()
    client = pymongo.MongoClient(mongo_db.client.address[0], mongo_db.client.address[1],
                                 event_listeners=[writes])
    try:
        store = PageStore(client[mongo_db.name])
        store.ensure_indexes()
        save(store, "第一版正文", expect_new=True)
        assert len(writes.names) == 2
        writes.names.clear()
        save(store, "第一版正文", expect_new=False)  # unchanged: the page's fields only
        assert len(writes.names) == 2
    finally:
        client.close()


@pytest.mark.parametrize("text", ["第一版正文", "第二版正文"], ids=["same", "other"])
def test_a_wrong_guess_of_a_new_page_keeps_one_version_per_text(store, text):
    first = save(store, "第一版正文")
    result = save(store, text, expect_new=True)  # the page existed after all
    same = text == "第一版正文"
    assert result.change == ("unchanged" if same else "changed")
    assert store.versions.count_documents({"canonical_url": "http://x.cn/a"}) == (1 if same else 2)
    assert store.get("http://x.cn/a").version_id == result.version_id
    assert [v.page_id for v in store.history(first.page_id)] == [first.page_id] * (1 if same else 2)


@pytest.mark.parametrize("text", ["第一版正文", "第二版正文"], ids=["same", "other"])
def test_a_version_left_without_its_page_is_taken_over(store, text):
    """A worker that died between a new page's two writes left its first version and no page:
    the next save of the URL makes that version the page's first, not a second copy."""
    orphan = store.versions.insert_one({
        "page_id": str(ObjectId()), "canonical_url": "http://x.cn/a",
        "number": 1, "text": "第一版正文", "title": "T",
        "text_hash": sha256("第一版正文"), "fetched_at": None, "scan_id": 1}).inserted_id
    result = save(store, text, expect_new=True)
    page = store.get("http://x.cn/a")
    history = store.history(page.id)
    assert [v.id for v in history][0] == str(orphan)
    assert [v.text_hash for v in history] == [sha256(t) for t in dict.fromkeys(["第一版正文", text])]
    assert store.versions.count_documents({"canonical_url": "http://x.cn/a"}) == len(history)
    assert page.version_id == result.version_id and result.needs_matching
    assert store.version(result.version_id).text == text


@pytest.mark.parametrize("next_text", ["第二版正文", "第三版正文"], ids=["same-text", "newer-text"])
def test_a_changed_version_left_without_its_page_is_taken_over(store, next_text):
    """A worker that died between a changed page's version insert and page update left version
    2 that the page does not point to: the next save adopts it instead of failing on the unique
    index for ever, and stores a third version only for a newer text."""
    text = "第一版正文"
    page_id = save(store, text).page_id
    orphan = store.versions.insert_one({
        "page_id": page_id, "canonical_url": "http://x.cn/a", "number": 2, "text": "第二版正文",
        "title": "T", "text_hash": sha256("第二版正文"), "fetched_at": None,
        "scan_id": 1}).inserted_id
    result = save(store, next_text)
    history = store.history(page_id)
    expected = list(dict.fromkeys([text, "第二版正文", next_text]))
    assert [v.text_hash for v in history] == [sha256(t) for t in expected]
    assert history[1].id == str(orphan)
    page = store.get("http://x.cn/a")
    assert page.version_id == result.version_id == history[-1].id
    assert result.change == ("unchanged" if next_text == "第二版正文" else "changed")
