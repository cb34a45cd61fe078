"""Crawled pages in MongoDB: the current state of each canonical URL and every text it ever had.

Two collections:

``pages`` - one document per canonical URL (unique index): ``canonical_url``, ``url`` (as
asked; after redirects ``canonical_url`` is the final URL's canonical form), ``final_url``
(exact URL that answered), ``domain``, ``site_id``, ``scan_id`` (last scan that fetched it),
``status`` (HTTP), ``outcome``, ``reason``, ``headers`` (those that matter), ``validators``
({etag, last_modified} for conditional GET), ``fetched_at`` (last successful download),
``checked_at`` (last visit, including 304s), ``content_hash`` (SHA-256 of the body bytes),
``text_hash``, ``title``, ``published`` (None: the crawler looks for no date), ``encoding``,
``extraction`` ({method, error}),
``version_id`` (current entry in page_versions), ``versions`` (count), ``first_seen``,
``links`` (canonical outlinks of the last download: a 304 gives no body, yet the scan must
still follow the page's links), ``matched_at`` / ``matched_version`` (last matching),
``aliases`` (the canonical URLs that redirected to this page: the next scan finds the page, and
its validators for a conditional GET, under the URL it asks for), ``part_of`` (for one part of
a chapter split over several pages: the canonical URL of its first part, else '';
``lib.crawl.links.chapter_of``).

``page_versions`` - immutable: one document per distinct body text of a page: ``page_id``,
``canonical_url``, ``number`` (1, 2, ...), ``text``, ``title``, ``text_hash``, ``fetched_at``,
``scan_id``; once the version is matched, ``query_keys`` (the packed query keys of its text,
lib.crawl.pagekeys) and ``query_keys_tag`` (their version tag), which let stored pages be searched
for new works without fingerprinting the texts again. A match cites the version it matched, so
evidence stays exactly what was captured even after the page changes or disappears.

Reads return the typed ``Page`` and ``PageVersion`` (never the raw documents), which is what
crosses into matching and the dashboard.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

import pymongo
from bson import Binary, ObjectId

from lib.crawl.pagekeys import QueryKeys


@dataclass(frozen=True)
class Page:
    """The current state of one crawled canonical URL (a ``pages`` document, see the module
    docstring for each field). ``id`` is the document's ObjectId as str; times are aware UTC
    datetimes or None; ``version_id`` the current PageVersion's id or None (no text yet)."""

    id: str
    canonical_url: str
    url: str = ""
    final_url: str = ""
    domain: str = ""
    site_id: int | None = None
    scan_id: int | None = None
    status: int | None = None
    outcome: str = ""
    reason: str = ""
    headers: dict = field(default_factory=dict)
    validators: dict = field(default_factory=dict)
    fetched_at: datetime | None = None
    checked_at: datetime | None = None
    first_seen: datetime | None = None
    content_hash: str | None = None
    text_hash: str | None = None
    title: str | None = None
    published: str | None = None
    encoding: str | None = None
    extraction: dict = field(default_factory=dict)
    version_id: str | None = None
    versions: int = 0
    links: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    matched_at: datetime | None = None
    matched_version: str | None = None
    last_outcome: str = ""
    last_status: int | None = None
    last_reason: str = ""
    part_of: str = ""

    @classmethod
    def from_doc(cls, doc: dict) -> Page:
        """The Page of a ``pages`` document (unknown keys ignored, missing ones defaulted)."""
        return cls(id=str(doc["_id"]), **_known(cls, doc, skip={"id"}))


@dataclass(frozen=True)
class PageVersion:
    """One immutable captured text of a page (a ``page_versions`` document). ``id`` and
    ``page_id``: ObjectIds as str; ``number`` counts from 1; ``text`` is "" in ``history``."""

    id: str
    page_id: str
    canonical_url: str = ""
    number: int = 0
    text: str = ""
    title: str | None = None
    text_hash: str | None = None
    fetched_at: datetime | None = None
    scan_id: int | None = None

    @classmethod
    def from_doc(cls, doc: dict) -> PageVersion:
        """The PageVersion of a ``page_versions`` document."""
        return cls(id=str(doc["_id"]), **_known(cls, doc, skip={"id"}))


@dataclass(frozen=True)
class KeyedVersion:
    """The current version of a page as the stored-page search reads it: ``page_id`` and
    ``version_id`` (str ObjectIds) and the version's stored ``keys`` (QueryKeys, None when the
    version was never matched since keys are kept)."""

    page_id: str
    version_id: str
    keys: QueryKeys | None


def _known(cls, doc: dict, skip: set[str]) -> dict:
    names = {f.name for f in fields(cls)} - skip
    return {key: value for key, value in doc.items() if key in names and value is not None}


@dataclass(frozen=True)
class StoreResult:
    """What ``PageStore.save`` did. ``page_id`` and ``version_id``: str ObjectIds (version_id
    None when the page has no text); ``change``: 'new' (first capture of this URL), 'changed'
    (text differs from the stored version), 'unchanged' (same text) or 'no_text'; ``stored``:
    for 'new' and 'changed', the Page and PageVersion as written (what reading them back would
    give, so that matching the version needs no read), else None."""

    page_id: str
    version_id: str | None
    change: str
    stored: tuple[Page, PageVersion] | None = None

    @property
    def needs_matching(self) -> bool:
        """True when the text is new or changed: only then is the page matched again."""
        return self.change in ("new", "changed")


def sha256(data: bytes | str) -> str:
    """Hex SHA-256 of ``data`` (str is UTF-8 encoded first)."""
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


class PageStore:
    """Pages and their versions in a pymongo Database (``pages`` and ``page_versions``)."""

    def __init__(self, db):
        self.pages = db["pages"]
        self.versions = db["page_versions"]

    def ensure_indexes(self) -> None:
        """Create the indexes (idempotent): unique canonical_url; (page_id, number) unique;
        (canonical_url, number) unique, which finds a first version left without its page
        (``save``); site_id, scan_id and domain for the dashboard's filters."""
        self.pages.create_index("canonical_url", unique=True)
        self.pages.create_index([("site_id", 1), ("checked_at", -1)])
        self.pages.create_index("scan_id")
        self.pages.create_index("domain")
        self.pages.create_index("aliases")
        self.versions.create_index([("page_id", 1), ("number", 1)], unique=True)
        self.versions.create_index([("canonical_url", 1), ("number", 1)], unique=True)

    def get(self, canonical_url: str) -> Page | None:
        """The Page stored under ``canonical_url``, or None."""
        doc = self.pages.find_one({"canonical_url": canonical_url})
        return Page.from_doc(doc) if doc else None

    def lookup(self, url: str) -> Page | None:
        """The Page stored under canonical ``url``, else the page that ``url`` last redirected
        to (``url`` in its ``aliases``), else None."""
        docs = list(self.pages.find({"$or": [{"canonical_url": url}, {"aliases": url}]}).limit(2))
        docs.sort(key=lambda d: d["canonical_url"] != url)
        return Page.from_doc(docs[0]) if docs else None

    def page(self, page_id: str) -> Page | None:
        """The Page with id ``page_id`` (str ObjectId) or None (also for a malformed id)."""
        doc = self.pages.find_one({"_id": ObjectId(page_id)}) if ObjectId.is_valid(page_id) else None
        return Page.from_doc(doc) if doc else None

    def outlinks(self, page_ids: list[str], site_ids: list) -> Iterator[tuple[str, list[str]]]:
        """(canonical URL, canonical outlinks) of every stored page whose id (str ObjectId) is in
        ``page_ids`` or whose ``site_id`` is in ``site_ids``."""
        ids = [ObjectId(i) for i in page_ids if ObjectId.is_valid(i)]
        query = {"$or": [{"_id": {"$in": ids}}, {"site_id": {"$in": list(site_ids)}}]}
        for doc in self.pages.find(query, {"canonical_url": 1, "links": 1}):
            yield doc["canonical_url"], doc.get("links") or []

    def site_pages(self, site_id, limit: int) -> list[Page]:
        """Up to ``limit`` pages of target site ``site_id`` that have a current text version,
        the last visited first (their ``title`` and ``version_id`` are what a comparison needs;
        ``texts`` reads the versions' texts)."""
        query = {"site_id": site_id, "version_id": {"$ne": None}}
        return [Page.from_doc(doc) for doc in
                self.pages.find(query, {"links": 0}).sort("checked_at", -1).limit(limit)]

    def version(self, version_id: str) -> PageVersion | None:
        """The immutable PageVersion ``version_id`` (str ObjectId) or None."""
        doc = (self.versions.find_one({"_id": ObjectId(version_id)})
               if ObjectId.is_valid(version_id) else None)
        return PageVersion.from_doc(doc) if doc else None

    def count_current(self) -> int:
        """Number of pages that have a current text version."""
        return self.pages.count_documents({"version_id": {"$ne": None}})

    def iter_current_keys(self, batch: int = 2000) -> Iterator[list[KeyedVersion]]:
        """Every page's current version with its stored query keys and without its text, in
        lists of up to ``batch`` KeyedVersion (one find of pages and one $in find of versions
        each, both projected to the fields needed)."""
        chunk: list[tuple[str, str]] = []
        for doc in self.pages.find({"version_id": {"$ne": None}}, {"version_id": 1},
                                   batch_size=batch):
            if ObjectId.is_valid(doc["version_id"]):
                chunk.append((str(doc["_id"]), doc["version_id"]))
            if len(chunk) >= batch:
                yield self._keyed(chunk)
                chunk = []
        if chunk:
            yield self._keyed(chunk)

    def _keyed(self, chunk: list[tuple[str, str]]) -> list[KeyedVersion]:
        found = {str(d["_id"]): d for d in self.versions.find(
            {"_id": {"$in": [ObjectId(v) for _, v in chunk]}},
            {"query_keys": 1, "query_keys_tag": 1})}
        out = []
        for page_id, version_id in chunk:
            doc = found.get(version_id)
            if doc is None:
                continue
            keys = (QueryKeys(bytes(doc["query_keys"]), doc["query_keys_tag"])
                    if doc.get("query_keys") is not None and doc.get("query_keys_tag") else None)
            out.append(KeyedVersion(page_id, version_id, keys))
        return out

    def texts(self, version_ids: list[str]) -> dict[str, str]:
        """{version_id: text} of the stored versions among ``version_ids`` (str ObjectIds)."""
        ids = [ObjectId(v) for v in version_ids if ObjectId.is_valid(v)]
        return {str(d["_id"]): d.get("text") or ""
                for d in self.versions.find({"_id": {"$in": ids}}, {"text": 1})}

    def save_keys(self, keys_by_version: dict[str, QueryKeys]) -> None:
        """Keep the query keys of versions: ``keys_by_version`` maps version ids (str
        ObjectIds) to their QueryKeys (``query_keys``, ``query_keys_tag``; one bulk write)."""
        if keys_by_version:
            self.versions.bulk_write([
                pymongo.UpdateOne({"_id": ObjectId(v)}, {"$set": {
                    "query_keys": Binary(k.data), "query_keys_tag": k.tag}})
                for v, k in keys_by_version.items()], ordered=False)

    def history(self, page_id: str) -> list[PageVersion]:
        """All versions of a page, oldest first, without their text (``text`` is "")."""
        return [PageVersion.from_doc(doc) for doc in self.versions.find(
            {"page_id": page_id}, {"text": 0, "query_keys": 0}).sort("number", 1)]

    def validators(self, canonical_url: str) -> dict[str, str]:
        """Stored conditional-GET validators of a URL: {'etag'?, 'last_modified'?} (maybe empty)."""
        doc = self.pages.find_one({"canonical_url": canonical_url}, {"validators": 1})
        return dict(doc.get("validators") or {}) if doc else {}

    def mark_matched(self, page_id: str, version_id: str, keys: QueryKeys | None = None) -> None:
        """Note that version ``version_id`` of page ``page_id`` was matched now (``matched_at``,
        ``matched_version``): an unchanged page is matched again only when works were indexed
        after that time. ``keys``: the version's QueryKeys, kept with it (``save_keys``)."""
        self.pages.update_one({"_id": ObjectId(page_id)},
                              {"$set": {"matched_at": _now(), "matched_version": version_id}})
        if keys is not None:
            self.save_keys({version_id: keys})

    def record_visit(self, canonical_url: str, *, scan_id, outcome: str, status: int | None,
                     reason: str = "") -> bool:
        """Note a visit that brought no new content (304, or a failed re-fetch) on a stored page.

        Returns True when the page existed. The stored text, validators and versions are kept.
        """
        res = self.pages.update_one(
            {"canonical_url": canonical_url},
            {"$set": {"checked_at": _now(), "scan_id": scan_id, "last_outcome": outcome,
                      "last_status": status, "last_reason": reason}})
        return res.matched_count == 1

    def save(self, *, canonical_url: str, url: str, final_url: str, domain: str, site_id, scan_id,
             status: int | None, outcome: str, reason: str, headers: dict, validators: dict,
             body: bytes, text: str, title: str | None, published: str | None, encoding: str,
             extraction: dict, links: list[str], part_of: str = "",
             expect_new: bool = False) -> StoreResult:
        """Store a downloaded page and, when its text is new, a new version.

        ``body``: raw bytes (only hashed, not stored); ``text``: extracted body text ('' when
        extraction failed); ``links``: canonical outlinks (list of str); ``part_of``: the chapter
        page's canonical URL when this page is one of its parts, else ''; ``expect_new``: True
        when the caller found no page under ``canonical_url`` (a new page with text is then
        stored in 2 MongoDB operations instead of 3; a wrong guess costs one or two more).
        Returns StoreResult. Concurrent saves of one URL are safe: the unique indexes make the
        loser retry against the winner's document.
        """
        now = _now()
        text_hash = sha256(text) if text else None
        fields = {"url": url, "final_url": final_url, "domain": domain, "site_id": site_id,
                  "scan_id": scan_id, "status": status, "outcome": outcome, "reason": reason,
                  "headers": headers, "validators": validators, "fetched_at": now,
                  "checked_at": now, "content_hash": sha256(body), "title": title,
                  "published": published, "encoding": encoding, "extraction": extraction,
                  "links": links, "part_of": part_of,
                  "last_outcome": outcome, "last_status": status, "last_reason": reason}
        for _ in range(3):
            try:
                first = (self._save_new(canonical_url, fields, text, text_hash, now)
                         if expect_new and text else None)
                return first or self._save(canonical_url, fields, text, text_hash, now)
            except pymongo.errors.DuplicateKeyError:
                continue
        raise RuntimeError(f"could not store {canonical_url}: repeated concurrent updates")

    def _save_new(self, canonical_url, fields, text, text_hash, now) -> StoreResult | None:
        """Store a page's first version, then the page pointing to it: no page ever points to a
        missing version. A version left without its page (its worker died between the two
        writes) is taken over by the next save of the URL, so a page still has one version per
        text. Returns None when the page existed after all: ``_save`` stores it then."""
        fresh = {"_id": ObjectId(), "page_id": str(ObjectId()), "canonical_url": canonical_url,
                 "number": 1, "text": text, "title": fields["title"], "text_hash": text_hash,
                 "fetched_at": now, "scan_id": fields["scan_id"]}
        try:
            self.versions.insert_one(fresh)
            version = fresh
        except pymongo.errors.DuplicateKeyError:  # (canonical_url, 1) is taken
            version = self.versions.find_one({"canonical_url": canonical_url, "number": 1},
                                             {"text": 0, "query_keys": 0})
            if version is None:
                return None
        ours = version["_id"] == fresh["_id"]
        page = {"_id": ObjectId(version["page_id"]), "canonical_url": canonical_url,
                "first_seen": now, **fields, "text_hash": version["text_hash"],
                "version_id": str(version["_id"]), "versions": 1}
        update: dict = {"$setOnInsert": page}
        if fields["url"] != canonical_url:
            update["$addToSet"] = {"aliases": fields["url"]}
            page = {**page, "aliases": [fields["url"]]}
        try:
            inserted = self.pages.update_one({"canonical_url": canonical_url}, update,
                                             upsert=True).upserted_id is not None
        except pymongo.errors.DuplicateKeyError:
            inserted = False  # a concurrent save inserted the page first
        if not inserted:
            if ours:  # nothing points to it
                self.versions.delete_one({"_id": fresh["_id"]})
            return None
        if version["text_hash"] != text_hash:  # took over an older text: this one is version 2
            return None
        stored = (Page.from_doc(page), PageVersion.from_doc({**version, "text": text}))
        return StoreResult(stored[0].id, stored[1].id, "new", stored)

    def _save(self, canonical_url, fields, text, text_hash, now) -> StoreResult:
        update = {"$setOnInsert": {"canonical_url": canonical_url, "first_seen": now, "versions": 0,
                                   "version_id": None, "text_hash": None}}
        if fields["url"] != canonical_url:
            update["$addToSet"] = {"aliases": fields["url"]}
        # the document after the upsert: a new page comes back in the same round trip
        page = self.pages.find_one_and_update({"canonical_url": canonical_url}, update, upsert=True,
                                              return_document=pymongo.ReturnDocument.AFTER)
        page_id = str(page["_id"])
        if not text:
            self.pages.update_one({"_id": page["_id"]}, {"$set": fields})
            return StoreResult(page_id, page.get("version_id"), "no_text")
        if page.get("text_hash") == text_hash:
            self.pages.update_one({"_id": page["_id"]}, {"$set": fields})
            return StoreResult(page_id, page["version_id"], "unchanged")
        number = int(page.get("versions") or 0) + 1
        version = {"page_id": page_id, "canonical_url": canonical_url, "number": number,
                   "text": text, "title": fields["title"], "text_hash": text_hash,
                   "fetched_at": now, "scan_id": fields["scan_id"]}
        try:
            version_id = str(self.versions.insert_one(version).inserted_id)
        except pymongo.errors.DuplicateKeyError:
            self._adopt_version(page, number)
            raise  # ``save`` tries again against the page as it now stands
        changes = {**fields, "text_hash": text_hash, "version_id": version_id, "versions": number}
        self.pages.update_one({"_id": page["_id"]}, {"$set": changes})
        stored = (Page.from_doc({**page, **changes}),
                  PageVersion.from_doc({**version, "_id": version_id}))
        return StoreResult(page_id, version_id, "new" if number == 1 else "changed", stored)

    def _adopt_version(self, page: dict, number: int) -> None:
        """Point ``page`` at its stored version ``number`` when the page was never updated to
        it: its worker died between ``_save``'s version insert and page update. A save still
        between those two writes sets the same version fields itself, so this changes nothing
        for it. Without this, every later save of the page would fail on the unique index."""
        orphan = self.versions.find_one({"page_id": str(page["_id"]), "number": number},
                                        {"text_hash": 1})
        if orphan is not None:
            self.pages.update_one({"_id": page["_id"], "versions": number - 1}, {"$set": {
                "text_hash": orphan["text_hash"], "version_id": str(orphan["_id"]),
                "versions": number}})


def _now() -> datetime:
    return datetime.now(UTC)
