"""One HTTP fetch with every limit enforced and the reason of any failure recorded.

``Fetcher.fetch`` makes one attempt (redirects followed by hand so that each hop passes the SSRF
guard, loop detection and the caller's ``check_hop``: the pipeline's admission checks of scope,
traps, robots.txt and the seen-set) and returns a ``FetchResult``; it never raises for network or HTTP
trouble and never sleeps. Whether and when to try again is ``retry_delay``'s answer, which the
Celery task turns into a re-queue with a countdown, so no worker waits on a slow host.
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import tempfile
import time
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin

import certifi
import requests
import urllib3

from lib.crawl.canonical import InvalidURL, canonical_url
from lib.crawl.config import CrawlConfig
from lib.crawl.exchange import ContentDecoder, Exchange, Hop
from lib.crawl.outcomes import Outcome
from lib.crawl.ssrf import GuardedAdapter, RefusedAddress, check_url, parse_allow_list
from lib.runtime.backoff import backoff_delay
from lib.text.untrusted import ascii_int

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain"})
XML_TYPES = frozenset({"application/xml", "text/xml", "application/rss+xml", "application/atom+xml"})
KEPT_HEADERS = ("content-type", "content-length", "content-language", "etag", "last-modified",
                "date", "server", "location", "retry-after", "x-robots-tag")
_CHUNK_BYTES = 64 * 1024
# how a hop's tls["validation"] begins when its invalid certificate was accepted (a site's setting)
INVALID_ACCEPTED = "invalid, accepted by the target site's setting"

# check_hop(canonical target URL) -> None to follow the redirect, or (Outcome, reason) to stop
HopCheck = Callable[[str], "tuple[Outcome, str] | None"]


@dataclass
class FetchResult:
    """What one fetch produced.

    ``url``: the URL asked for; ``final_url``: the URL that answered (after redirects);
    ``outcome``: an Outcome; ``reason``: human-readable detail (str, '' on success); ``status``:
    last HTTP status (int or None when no response); ``headers``: the KEPT_HEADERS present, keys
    lower-case; ``body``: the decoded-transfer body (bytes; empty unless outcome is ok);
    ``kind``: 'html', 'text' or 'xml' by content type; ``redirects``: URLs of each hop followed;
    ``retry_after``: seconds the server asked us to wait (float or None); ``elapsed``: seconds;
    ``exchange``: every request and response of the fetch as sent and received (Exchange).
    """

    url: str
    final_url: str
    outcome: Outcome
    reason: str = ""
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    kind: str = ""
    redirects: list[str] = field(default_factory=list)
    retry_after: float | None = None
    elapsed: float = 0.0
    exchange: Exchange = field(default_factory=Exchange)

    @property
    def validators(self) -> dict[str, str]:
        """The conditional-GET validators the server sent: {'etag': ..., 'last_modified': ...}."""
        out = {}
        if self.headers.get("etag"):
            out["etag"] = self.headers["etag"]
        if self.headers.get("last-modified"):
            out["last_modified"] = self.headers["last-modified"]
        return out


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (RFC 9110 10.2.3: delay-seconds or HTTP-date).

    Returns a float >= 0, or None when the header is absent or unparsable.
    """
    if not value:
        return None
    value = value.strip()
    if ascii_int(value) is not None:
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def retry_delay(result: FetchResult, attempt: int, config: CrawlConfig) -> float | None:
    """Seconds to wait before attempt number ``attempt + 1``, or None to give up.

    ``attempt`` counts from 0 (the first try). Retries only retryable outcomes, at most
    ``config.max_retries`` times. The wait is the server's Retry-After when given (giving up if it
    exceeds ``retry_max_seconds``: we must not come back sooner), else exponential backoff
    from ``retry_base_seconds``, capped at ``retry_max_seconds`` (``lib.runtime.backoff.backoff_delay``).
    """
    if not result.outcome.retryable or attempt >= config.max_retries:
        return None
    if result.retry_after is not None:
        return result.retry_after if result.retry_after <= config.retry_max_seconds else None
    return backoff_delay(attempt, config.retry_base_seconds, config.retry_max_seconds)


def media_type(content_type: str | None) -> str:
    """The media type of a Content-Type header value, lower-case, without parameters ('' if none)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def kind_of(content_type: str | None) -> str | None:
    """'html', 'text' or 'xml' for a Content-Type the crawler reads, None for any other type.

    A missing Content-Type counts as HTML (servers often omit it; decoding sniffs the bytes).
    """
    mt = media_type(content_type)
    if not mt or mt in HTML_TYPES:
        return "html"
    if mt in TEXT_TYPES:
        return "text"
    if mt in XML_TYPES or mt.endswith("+xml"):
        return "xml"
    return None


def trust_store(extra: str) -> str | bool:
    """What requests verifies TLS servers against: True (certifi's roots) when ``extra`` is
    '', else the path of a PEM file holding certifi's roots and those of the file ``extra``
    (written once per content in the temporary folder). Raises ValueError naming ``extra``
    when it cannot be read or holds no certificate."""
    if not extra:
        return True
    try:
        added = Path(extra).read_bytes()
    except OSError as exc:
        raise ValueError(f"CRAWLER_CA_BUNDLE {extra}: cannot be read: {exc}") from exc
    if b"-----BEGIN CERTIFICATE-----" not in added:
        raise ValueError(f"CRAWLER_CA_BUNDLE {extra}: no PEM certificate in it")
    bundle = Path(certifi.where()).read_bytes() + b"\n" + added
    path = Path(tempfile.gettempdir()) / f"crawler-ca-{hashlib.sha256(bundle).hexdigest()[:16]}.pem"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(bundle)
        partial.replace(path)
    return str(path)


def _conditional_headers(etag: str | None, last_modified: str | None) -> dict[str, str]:
    """The request headers of stored validators: If-None-Match, If-Modified-Since."""
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    return headers


def _redirect_target(current: str, response, seen: set[str], hops: list[str]
                     ) -> tuple[str, tuple[Outcome, str] | None]:
    """The target of redirect ``response`` to a request of ``current``, appended to ``hops``,
    and None to follow it, or (Outcome, reason) when the target is no valid URL or one already
    requested in this fetch (``seen``: canonical URLs)."""
    target = urljoin(current, response.headers["location"])
    hops.append(target)
    try:
        key = canonical_url(target)
    except InvalidURL as exc:
        return target, (Outcome.INVALID_URL, f"redirect: {exc}")
    if key in seen:
        return target, (Outcome.REDIRECT_LOOP, f"redirect back to {target}")
    return target, None


class Fetcher:
    """HTTP client for the crawler: one requests.Session with the SSRF-guarded adapter.

    Takes a CrawlConfig. Safe to reuse for many fetches in one process (connection pooling);
    not shared between threads.
    """

    def __init__(self, config: CrawlConfig):
        self.config = config
        self._allow = parse_allow_list(config.allow_addresses)
        self.session = requests.Session()
        self.session.trust_env = False  # no proxies from the environment: they would hide the peer
        self.session.verify = trust_store(config.ca_bundle)
        adapter = GuardedAdapter(self._allow, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers.update({
            "User-Agent": config.user_agent,
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/xml;q=0.8,*/*;q=0.1",
            "Accept-Language": "zh-CN,zh;q=0.9,zh-TW;q=0.8,en;q=0.5",
            "Accept-Encoding": "gzip, deflate",
        })

    def refusal(self, url: str) -> str:
        """Why the SSRF guard would refuse to fetch ``url`` (its host's address), or "" when it
        may be fetched. Resolves the host (DNS)."""
        try:
            check_url(url, self._allow)
        except RefusedAddress as exc:
            return str(exc)
        return ""

    def close(self) -> None:
        """Close pooled connections."""
        self.session.close()

    def fetch(self, url: str, *, etag: str | None = None, last_modified: str | None = None,
              kinds: frozenset[str] = frozenset({"html", "text", "xml"}),
              check_hop: HopCheck | None = None,
              accept_invalid_certificate: bool = False) -> FetchResult:
        """Fetch ``url`` once, following up to ``config.max_redirects`` redirects by hand.

        ``etag`` / ``last_modified``: stored validators, sent as If-None-Match /
        If-Modified-Since (a 304 gives outcome not_modified). ``kinds``: the body kinds accepted
        (see ``kind_of``); others give content_type without reading the body. ``check_hop``:
        called with the canonical URL of every redirect target after the loop and SSRF checks
        and before any request to it; it returns None to follow the hop or (Outcome, reason) to
        stop there, and the fetch then ends with that outcome and the redirect's status (the
        target is never requested; ``final_url`` is the refused target, as for an SSRF refusal).
        ``accept_invalid_certificate`` (a target site's setting): a TLS certificate that does not
        validate is accepted, and the hop's ``tls["validation"]`` records why it is invalid.
        Returns a FetchResult; does not raise for network, HTTP or limit failures.
        """
        started = time.monotonic()
        headers = _conditional_headers(etag, last_modified)
        current, status, exchange = url, None, Exchange()
        seen: set[str] = set()
        hops: list[str] = []

        def done(outcome, reason="", **kw):
            return FetchResult(url=url, final_url=current, outcome=outcome, reason=reason,
                               redirects=hops, elapsed=time.monotonic() - started,
                               exchange=exchange, **kw)

        for _ in range(self.config.max_redirects + 1):
            try:
                refusal = self._check_hop(current, seen, check_hop if hops else None)
                if refusal is not None:
                    return done(refusal[0], refusal[1], status=status)
                sent_at = datetime.now(UTC)
                response, tls_error = self._get(current, headers, accept_invalid_certificate)
            except InvalidURL as exc:
                return done(Outcome.INVALID_URL, str(exc))
            except RefusedAddress as exc:
                return done(Outcome.SSRF_REFUSED, str(exc))
            except requests.RequestException as exc:
                return done(*transport_outcome(exc))
            with response:
                hop = Hop.of(response, sent_at)
                if tls_error:
                    hop.tls = {**hop.tls, "validation": f"{INVALID_ACCEPTED}: {tls_error}"}
                exchange.hops.append(hop)
                kept = {k: response.headers[k] for k in KEPT_HEADERS if k in response.headers}
                status = response.status_code
                if response.is_redirect:
                    target, stop = _redirect_target(current, response, seen, hops)
                    if stop is not None:
                        return done(*stop, status=status)
                    current = target
                    continue
                return self._answer(response, hop, status, kept, kinds, started, done)
        return done(Outcome.TOO_MANY_REDIRECTS, f"more than {self.config.max_redirects} redirects")

    def _check_hop(self, url: str, seen: set[str], check_hop: HopCheck | None
                   ) -> tuple[Outcome, str] | None:
        """The checks before ``url`` is requested: its canonical form added to ``seen``, its
        host's address allowed by the SSRF guard, then ``check_hop`` (a redirect target's;
        None for the URL asked for). Returns check_hop's refusal or None; raises InvalidURL,
        RefusedAddress."""
        key = canonical_url(url)
        seen.add(key)
        check_url(url, self._allow)
        return check_hop(key) if check_hop is not None else None

    def _get(self, url: str, headers: dict, accept_invalid: bool):
        """GET ``url`` (streamed, no redirects): (response, '') or, when its certificate does
        not validate and ``accept_invalid``, (the response got without validation, why the
        certificate is invalid). Raises what requests raises."""
        timeout = (self.config.connect_timeout, self.config.read_timeout)
        try:
            return self.session.get(url, headers=headers, stream=True, allow_redirects=False,
                                    timeout=timeout), ""
        except requests.exceptions.SSLError as exc:
            if not accept_invalid:
                raise
            error = transport_outcome(exc)[1]
        with warnings.catch_warnings():  # urllib3 warns of every unverified request
            warnings.simplefilter("ignore", urllib3.exceptions.InsecureRequestWarning)
            return self.session.get(url, headers=headers, stream=True, allow_redirects=False,
                                    timeout=timeout, verify=False), error

    def _answer(self, response, hop, status, kept, kinds, started, done) -> FetchResult:
        retry_after = parse_retry_after(kept.get("retry-after"))
        if status == 304:
            return done(Outcome.NOT_MODIFIED, status=status, headers=kept)
        if status == 429:
            return done(Outcome.RATE_LIMITED, "HTTP 429", status=status, headers=kept,
                        retry_after=retry_after)
        if status >= 500:
            return done(Outcome.SERVER_ERROR, f"HTTP {status}", status=status, headers=kept,
                        retry_after=retry_after)
        if status >= 400 or status < 200:
            return done(Outcome.CLIENT_ERROR, f"HTTP {status}", status=status, headers=kept)
        kind = kind_of(kept.get("content-type"))
        if kind not in kinds:
            return done(Outcome.CONTENT_TYPE, f"content type {media_type(kept.get('content-type'))!r}",
                        status=status, headers=kept)
        limit = self.config.max_body_bytes
        declared = kept.get("content-length", "")
        if (ascii_int(declared) or 0) > limit:
            return done(Outcome.TOO_LARGE, f"Content-Length {declared} > {limit} bytes",
                        status=status, headers=kept)
        body, failure = read_body(response, limit, started + self.config.max_fetch_seconds,
                                  self.config.max_fetch_seconds, hop)
        if failure is not None:
            return done(*failure, status=status, headers=kept)
        return done(Outcome.OK, status=status, headers=kept, body=body, kind=kind)


def read_body(response: requests.Response, limit: int, deadline: float,
              max_seconds: float, hop: Hop | None = None) -> tuple[bytes, tuple[Outcome, str] | None]:
    """Read a streamed response's body (decoded from its Content-Encoding) within the limits.

    ``limit``: decoded bytes at most; ``deadline``: time.monotonic() value by which the whole
    body must have arrived (``max_seconds``, the limit it stands for, goes into the reason);
    ``hop``: when given, the bytes as received (still encoded) are kept in ``hop.body`` and
    ``hop.body_complete`` tells whether they are all of them. Returns ``(body bytes, None)``,
    or ``(b"", (Outcome.TOO_LARGE | TIMEOUT | a transport outcome, reason))``. Does not raise
    for transport errors.
    """
    body, received = bytearray(), bytearray()
    decoder = ContentDecoder(response.headers.get("content-encoding", ""))
    try:
        # read1: at most one socket read per call, so a dripping server meets the deadline
        while chunk := response.raw.read1(_CHUNK_BYTES, decode_content=False):
            received += chunk
            body += decoder.decode(chunk, limit - len(body))
            if len(body) > limit:
                return b"", (Outcome.TOO_LARGE, f"body over {limit} bytes")
            if time.monotonic() > deadline:
                return b"", (Outcome.TIMEOUT, f"download over {max_seconds} s")
    except (requests.RequestException, urllib3.exceptions.HTTPError) as exc:
        return b"", transport_outcome(exc)
    except zlib.error as exc:
        return b"", (Outcome.CONNECTION_ERROR, f"corrupt {decoder.encoding} body: {exc}")
    finally:
        if hop is not None:
            hop.body = bytes(received)
    if hop is not None:
        hop.body_complete = True
    return bytes(body), None


def transport_outcome(exc: Exception) -> tuple[Outcome, str]:
    """Classify a requests or urllib3 exception raised by a request (the crawler's fetches and the
    alert webhooks): returns (Outcome, reason str). SSRF refusals raised inside the connection
    surface as ConnectionError and are unwrapped here."""
    refused = _find_cause(exc, RefusedAddress)
    if refused is not None:
        return Outcome.SSRF_REFUSED, str(refused)
    # urllib3 NewConnectionError subclasses ConnectTimeoutError: requests.Timeout already tells them apart
    if isinstance(exc, requests.Timeout) or _find_cause(exc, urllib3.exceptions.ReadTimeoutError):
        return Outcome.TIMEOUT, f"timeout: {exc}"
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                        requests.exceptions.InvalidSchema)):
        return Outcome.INVALID_URL, str(exc)
    return Outcome.CONNECTION_ERROR, f"{type(exc).__name__}: {exc}"


def _find_cause(exc: BaseException, kind: type) -> BaseException | None:
    """The first exception of type ``kind`` in ``exc``'s chain (cause, context, urllib3's
    ``reason``, exception arguments), or None."""
    seen, stack = set(), [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, kind):
            return e
        linked = [e.__cause__, e.__context__, getattr(e, "reason", None), *e.args]
        stack.extend(x for x in linked if isinstance(x, BaseException))
    return None
