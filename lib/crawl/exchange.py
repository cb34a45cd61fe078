"""The raw HTTP exchange of one fetch, kept so that a page that goes on to match can be archived
as it was received (WARC request and response records, ``lib.evidence.warc``).

``Hop`` is one request and its response: the request line and headers as sent, the status
line and headers as received (order and repeats kept), the body bytes as they came off the
connection after the HTTP/1.1 chunk framing (RFC 9112 7.1) and before any Content-Encoding
was undone, the server's IP address and port, and for HTTPS the certificate it presented
(PEM; the whole chain where the ``ssl`` module can give it, Python 3.13+). An ``Exchange`` is
the list of hops of one fetch, redirects first.

``ExchangeStash`` keeps exchanges in MongoDB (collection ``exchanges``) for a while: a page
version's exchange is stashed when it is stored and expires after ``ttl_seconds`` (a TTL
index) unless ``keep`` is called when the version matches.
"""

from __future__ import annotations

import ssl
import zlib
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from bson.binary import Binary

from lib.crawl.ttl import ensure_ttl_index

# the version of every request sent: http.client, under requests and urllib3, speaks HTTP/1.1 only
REQUEST_PROTOCOL = "HTTP/1.1"
HTTP_VERSIONS = {9: "HTTP/0.9", 10: "HTTP/1.0", 11: "HTTP/1.1", 20: "HTTP/2"}


@dataclass
class Hop:
    """One request and its response. ``started``: UTC time the request was sent; ``request_headers``
    and ``response_headers``: [name, value] pairs in the order sent/received; ``body``: bytes as
    received (Content-Encoding kept); ``body_complete``: False when the body was not read whole
    (a redirect's or an error's body is not read, a limit stopped it); ``peer_ip``/``peer_port``:
    the connected server ('' / 0 when unknown); ``certificates``: PEM strings, leaf first, the
    chain as the server sent it; ``tls``: the TLS session (``lib.crawl.ssrf.tls_session``:
    version, cipher, SNI, validation; {} for plain HTTP);
    ``protocol``: the response's HTTP version; ``request_protocol``: the request's, as sent
    (REQUEST_PROTOCOL)."""

    started: datetime
    method: str
    url: str
    target: str
    request_headers: list[list[str]]
    protocol: str = "HTTP/1.1"
    status: int = 0
    reason: str = ""
    response_headers: list[list[str]] = field(default_factory=list)
    body: bytes = b""
    body_complete: bool = False
    peer_ip: str = ""
    peer_port: int = 0
    certificates: list[str] = field(default_factory=list)
    request_protocol: str = REQUEST_PROTOCOL
    tls: dict = field(default_factory=dict)

    @classmethod
    def of(cls, response, started: datetime) -> Hop:
        """The hop of a requests ``response`` whose body is not read yet (``stream=True``)."""
        raw, request = response.raw, response.request
        host = request.url.split("://", 1)[-1].split("/", 1)[0].split("@")[-1]
        sent = [["Host", host], *([k, v] for k, v in request.headers.items())]
        # set by the SSRF guard's connections (crawler.ssrf)
        peer_ip, peer_port = getattr(raw, "peer", ("", 0))
        certs = [ssl.DER_cert_to_PEM_cert(der) for der in getattr(raw, "peer_certificates", [])]
        tls = getattr(raw, "peer_tls", {})
        return cls(started=started, method=request.method, url=request.url,
                   target=request.path_url, request_headers=sent,
                   protocol=HTTP_VERSIONS.get(raw.version, "HTTP/1.1"), status=raw.status,
                   reason=raw.reason or "", response_headers=[[k, v] for k, v in raw.headers.items()],
                   peer_ip=peer_ip, peer_port=peer_port, certificates=certs, tls=tls,
                   body_complete=raw.headers.get("content-length") == "0")

    def to_doc(self) -> dict:
        """This hop as a MongoDB document (the body as BSON binary)."""
        doc = asdict(self)
        doc["body"] = Binary(self.body)
        return doc

    @classmethod
    def from_doc(cls, doc: dict) -> Hop:
        """The Hop of a document written by ``to_doc``."""
        started = doc["started"]
        if started.tzinfo is None:  # a MongoClient without tz_aware returns naive UTC
            started = started.replace(tzinfo=UTC)
        return cls(**{**doc, "body": bytes(doc["body"]), "started": started})


@dataclass
class Exchange:
    """Every hop of one fetch, in order (redirects first, the final response last)."""

    hops: list[Hop] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Body bytes of all hops."""
        return sum(len(h.body) for h in self.hops)



class ContentDecoder:
    """Undoes a Content-Encoding (gzip, deflate with or without its zlib header; anything else
    passes through unchanged), at most ``limit`` output bytes per call (zip-bomb guard)."""

    def __init__(self, encoding: str):
        encoding = (encoding or "").strip().lower()
        self.encoding = encoding or "identity"
        self._zlib = None
        # deflate: switch to raw deflate (RFC 1951) when the zlib header (RFC 1950) is missing
        self._may_be_raw = encoding == "deflate"
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()

    def decode(self, data: bytes, limit: int) -> bytes:
        """Decoded bytes of ``data`` (at most ``limit`` + 1 of them: more means over the limit).
        Raises zlib.error for a corrupt stream."""
        if self._zlib is None:
            return data
        try:
            out = self._zlib.decompress(data, limit + 1)
        except zlib.error:
            if not self._may_be_raw:
                raise
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._zlib.decompress(data, limit + 1)
        self._may_be_raw = False
        return out


class ExchangeStash:
    """Exchanges kept in MongoDB (``exchanges``), keyed by a str (a page version id, or a
    takedown check's key). Takes a pymongo Database and ``ttl_seconds``: how long an exchange
    not kept survives (MongoDB's TTL monitor removes it within about a minute after that)."""

    def __init__(self, db, ttl_seconds: int):
        self.coll = db["exchanges"]
        self.ttl_seconds = ttl_seconds

    def ensure_indexes(self) -> None:
        """Create the TTL index on ``stashed`` (idempotent; a changed TTL is applied)."""
        ensure_ttl_index(self.coll, "stashed", "stash_ttl", self.ttl_seconds)

    def put(self, key: str, exchange: Exchange) -> None:
        """Stash ``exchange`` under ``key`` (replacing any), expiring after ``ttl_seconds``."""
        self.coll.replace_one({"_id": key}, {"_id": key, "stashed": datetime.now(UTC),
                                             "hops": [h.to_doc() for h in exchange.hops]},
                              upsert=True)

    def keep(self, key: str) -> bool:
        """Make the exchange under ``key`` permanent (no expiry). Returns True when it exists."""
        return self.coll.update_one({"_id": key}, {"$unset": {"stashed": ""}}).matched_count == 1

    def get(self, key: str) -> Exchange | None:
        """The Exchange stashed under ``key``, or None (never stashed, or expired)."""
        doc = self.coll.find_one({"_id": key})
        return Exchange([Hop.from_doc(h) for h in doc["hops"]]) if doc else None
