"""The per-URL record of a scan: which URL got which outcome, and why, in MongoDB ``crawl_log``.

One document per (scan_id, canonical URL): ``scan_id``, ``url``, ``outcome`` (Outcome value),
``reason``, ``status`` (HTTP or None), ``attempts`` (retries included), ``depth``, ``at``, for a
rendered page ``refused``: [{url, reason}] of the requests of the page that were refused, and for
a URL whose fetch ended at a redirect it did not follow ``location``: that redirect's target.
The scan's counters say how many; this says which, for the dashboard and for debugging a site.
A record goes ``ttl_seconds`` after its ``at`` (a TTL index): the log grows by every URL visited.
"""

from __future__ import annotations

from datetime import UTC, datetime

from lib.crawl.ttl import ensure_ttl_index


class CrawlLog:
    """``crawl_log`` collection of a pymongo Database; ``ttl_seconds``: how long a record
    stays after it was last written."""

    def __init__(self, db, ttl_seconds: int):
        self.coll = db["crawl_log"]
        self.ttl_seconds = ttl_seconds

    def ensure_indexes(self) -> None:
        """Unique (scan_id, url); outcome for the per-scan error lists; the TTL on ``at``.
        Idempotent (a changed TTL is applied)."""
        self.coll.create_index([("scan_id", 1), ("url", 1)], unique=True)
        self.coll.create_index([("scan_id", 1), ("outcome", 1)])
        ensure_ttl_index(self.coll, "at", "crawl_log_ttl", self.ttl_seconds)

    def record(self, scan_id, url: str, outcome: str, *, reason: str = "", status: int | None = None,
               attempts: int = 1, depth: int = 0, refused: list[dict] | None = None,
               location: str | None = None) -> None:
        """Record the final ``outcome`` (str) of ``url`` (canonical, str) in scan ``scan_id``,
        with ``refused`` ([{"url", "reason"}], the rendered page's refused requests) when any,
        and ``location`` (str: the target of the redirect the fetch stopped at, whose status is
        ``status``) when given; a second record for the same pair replaces the first."""
        fields: dict[str, object] = {"outcome": outcome, "reason": reason, "status": status, "attempts": attempts,
                                     "depth": depth, "at": datetime.now(UTC)}
        if refused:
            fields["refused"] = refused
        if location:
            fields["location"] = location
        self.coll.update_one({"scan_id": scan_id, "url": url}, {"$set": fields}, upsert=True)

    def entries(self, scan_id, outcome: str | None = None) -> list[dict]:
        """The records of one scan (list of dicts, by URL), optionally of one ``outcome`` only."""
        query = {"scan_id": scan_id} | ({"outcome": outcome} if outcome else {})
        return list(self.coll.find(query, {"_id": 0}).sort("url", 1))
