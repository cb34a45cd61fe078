"""Work stores: MemoryWorkStore and MongoWorkStore keep records with their value types, replace,
delete, list; Mongo packs offsets and chunks works above the 16 MB document limit."""

from __future__ import annotations

from array import array

import bson
import numpy as np
import pymongo
import pytest

from fingerprint.store import MemoryWorkStore, MongoWorkStore, StoreUnavailableError, WorkStore
from fingerprint.store import mongo as mongo_module
from lib.runtime.embedded import free_port

TEXT = "滚滚长江东逝水，浪花淘尽英雄。是非成败转头空。"  # 三国演义 opening poem (public domain)


def sample_record(text: str = TEXT) -> dict:
    letters = "ggcjdssl"
    return {
        "text": text,
        "letters": letters,
        "offsets": array("I", range(len(text))),
        "fingerprints": np.arange(12, dtype=np.uint64).reshape(3, 4),
        "windows": list(range(20)),  # long int list: packed, comes back a list
        "short": [1, "x", 2.5],
        "span": (3, 4),
        "meta": {"version": "v1", "chars": len(text), "ok": True, "none": None},
        "raw": b"\x00\xff",
        "ratio": 0.25,
    }


@pytest.fixture(params=["memory", pytest.param("mongo", marks=pytest.mark.services)])
def store(request):
    if request.param == "memory":
        return MemoryWorkStore()
    return MongoWorkStore(request.getfixturevalue("mongo_db"))


def assert_same(record: dict, got: dict) -> None:
    assert got.keys() == record.keys()
    for key, value in record.items():
        if isinstance(value, np.ndarray):
            assert got[key].dtype == value.dtype and np.array_equal(got[key], value)
        elif isinstance(value, tuple):
            assert list(got[key]) == list(value)  # tuples may come back as lists
        else:
            assert type(got[key]) is type(value) and got[key] == value, key


def test_implements_protocol(store):
    assert isinstance(store, WorkStore)


def test_put_get_round_trip_keeps_types(store):
    record = sample_record()
    store.put("w1", record)
    assert_same(record, store.get("w1"))
    assert store.get("missing") is None


def test_replace_delete_ids_count(store):
    store.put("a", {"text": "甲"})
    store.put("b", {"text": "乙"})
    store.put("a", {"text": "丙"})
    assert store.get("a") == {"text": "丙"}
    assert sorted(store.ids()) == ["a", "b"] and store.count() == 2
    assert store.delete("a") is True and store.delete("a") is False
    assert list(store.ids()) == ["b"] and store.count() == 1


def test_revisions_change_with_every_put_only(store):
    assert store.revisions([]) == {} and store.revisions(["missing"]) == {}
    store.put("a", {"text": "甲"})
    store.put("b", {"text": "乙"})
    first = store.revisions(["a", "b", "missing"])
    assert set(first) == {"a", "b"} and all(isinstance(r, str) for r in first.values())
    assert store.revisions(iter(["b", "a"])) == first  # stable while nothing is put
    store.get("a")
    store.put("a", {"text": "甲"})  # the same record again is a new revision
    second = store.revisions(["a", "b"])
    assert second["a"] != first["a"] and second["b"] == first["b"]
    store.delete("a")
    assert store.revisions(["a", "b"]) == {"b": first["b"]}


def test_bad_records_rejected(store):
    with pytest.raises(ValueError, match="work_id"):
        store.put("", {"text": "x"})
    with pytest.raises(TypeError, match="dict"):
        store.put("a", ["not", "a", "dict"])
    if isinstance(store, MongoWorkStore):  # the codec runs at put time
        with pytest.raises(TypeError, match="set"):
            store.put("a", {"text": "x", "bad": {1, 2}})
        assert store.get("a") is None


def test_memory_save_load(tmp_path):
    store = MemoryWorkStore()
    store.put("w1", sample_record())
    store.put("空", {"text": ""})
    store.save(tmp_path / "works")
    loaded = MemoryWorkStore.load(tmp_path / "works")
    assert sorted(loaded.ids()) == ["w1", "空"] and loaded.count() == 2
    assert set(loaded.revisions(["w1", "空", "x"])) == {"w1", "空"}
    assert_same(sample_record(), loaded.get("w1"))
    # saving into the folder it was loaded from: undecoded records are copied as they are
    loaded.put("new", {"text": "新"})
    assert loaded.delete("空") is True
    loaded.save(tmp_path / "works")
    again = MemoryWorkStore.load(tmp_path / "works")
    assert list(again.ids()) == ["w1", "new"]
    assert_same(sample_record(), again.get("w1"))
    assert again.get("new") == {"text": "新"} and again.get("空") is None


def test_memory_load_missing_or_corrupt(tmp_path):
    with pytest.raises(FileNotFoundError, match="no work store"):
        MemoryWorkStore.load(tmp_path / "none")
    store = MemoryWorkStore()
    store.put("w1", sample_record())
    store.save(tmp_path)
    data = (tmp_path / "works.bson").read_bytes()
    (tmp_path / "works.bson").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt"):
        MemoryWorkStore.load(tmp_path)


def test_mongo_document_is_compact(mongo_db):
    """A chapter's text and letters are zlib-compressed, its offset map stored as compressed
    differences: the document is a small share of the 8 bytes per character it took before."""
    store = MongoWorkStore(mongo_db, collection="fp")
    text = varied_text(4800, seed=1)  # a short chapter
    record = {"text": text, "letters": "a" * len(text), "offsets": array("I", range(len(text))),
              "windows": np.arange(300, dtype=np.uint32)}
    store.put("ch", record)
    raw = mongo_db["fp"].find_one({"_id": "ch"})
    offsets = raw["record"]["offsets"]
    assert offsets["__packed__"] == "array" and offsets["delta"] and len(offsets["data"]) < 100
    assert raw["record"]["text"]["__packed__"] == "zstr"
    assert len(bson.encode(raw)) < 0.4 * len(text) * 8
    assert mongo_db["fp_chunks"].count_documents({}) == 0
    assert_same(record, store.get("ch"))


def test_records_written_before_compression_still_read(mongo_db):
    """Documents of the earlier encoding (plain str, uncompressed packed arrays) decode as
    before."""
    text = TEXT * 200
    mongo_db["works_fp"].insert_one({"_id": "old", "gen": bson.ObjectId(), "chunked": False,
                                     "record": {"text": text, "offsets": {
                                         "__packed__": "array", "type": "I",
                                         "data": array("I", range(len(text))).tobytes()}}})
    got = MongoWorkStore(mongo_db).get("old")
    assert got["text"] == text and got["offsets"] == array("I", range(len(text)))


def varied_text(chars: int, seed: int) -> str:
    """``chars`` characters drawn from 6,000 Han characters: text zlib cannot shrink much."""
    rng = np.random.default_rng(seed)
    return "".join(map(chr, rng.integers(0x4E00, 0x4E00 + 6000, chars).tolist()))


def test_mongo_chunks_a_novel_above_16_mb(mongo_db):
    store = MongoWorkStore(mongo_db)
    text = varied_text(6_000_000, seed=2)  # 18 MB of UTF-8, still about 10 MB compressed
    record = {"text": text, "letters": "x" * len(text), "offsets": array("I", range(len(text))),
              "version": "v1"}
    store.put("novel", record)
    main = mongo_db["works_fp"].find_one({"_id": "novel"})
    assert len(bson.encode(main)) < mongo_module.INLINE_MAX * 3
    assert mongo_db["works_fp_chunks"].count_documents({"work": "novel"}) >= 2
    got = store.get("novel")
    assert got["text"] == text and got["offsets"] == record["offsets"]
    assert got["letters"] == record["letters"] and got["version"] == "v1"
    store.put("novel", {"text": "短"})  # replacing with a small record drops the old chunks
    assert mongo_db["works_fp_chunks"].count_documents({}) == 0
    assert store.get("novel") == {"text": "短"}
    store.put("novel", record)
    assert store.delete("novel") is True
    assert mongo_db["works_fp_chunks"].count_documents({}) == 0


def test_mongo_missing_chunks_is_an_error(mongo_db):
    store = MongoWorkStore(mongo_db)
    store.put("big", {"text": varied_text(600_000, seed=3)})  # about 1.2 MB compressed
    mongo_db["works_fp_chunks"].delete_many({})
    with pytest.raises(ValueError, match="chunks missing"):
        store.get("big")


def test_mongo_down_gives_connection_error():
    client = pymongo.MongoClient(f"mongodb://127.0.0.1:{free_port()}",
                                 serverSelectionTimeoutMS=300)
    store = MongoWorkStore(client["x"])
    with pytest.raises(StoreUnavailableError, match="unreachable"):
        store.put("a", {"text": "x"})
    with pytest.raises(ConnectionError):
        store.get("a")
