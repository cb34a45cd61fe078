"""Signed webhook POSTs: the signature, the two body formats (JSON, WeCom markdown) and one
delivery attempt behind the crawler's SSRF guard.

Signature: ``X-Tracker-Signature`` = hex HMAC-SHA256(secret, timestamp + "." + body), with
``X-Tracker-Timestamp`` the Unix time in seconds (str) — the scheme of Stripe's and Slack's
webhook signatures, so a receiver can refuse replays of old timestamps. Redirects are never
followed: a 3xx whose Location fails the SSRF guard is refused, any other 3xx is a failure.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import urljoin

import requests

from crawler.scans import crawl_config
from lib.crawl.fetch import transport_outcome
from lib.crawl.outcomes import Outcome
from lib.crawl.ssrf import GuardedAdapter, RefusedAddress, check_url, parse_allow_list

SIGNATURE_HEADER = "X-Tracker-Signature"
TIMESTAMP_HEADER = "X-Tracker-Timestamp"


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """Hex HMAC-SHA256 (64 characters) of ``timestamp + "." + body`` keyed with ``secret``."""
    return hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """True when ``signature`` (hex str) is ``sign(secret, timestamp, body)``; constant time."""
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


def wecom_body(markdown: str) -> dict:
    """A WeCom group-robot markdown message (企业微信群机器人, msgtype "markdown")."""
    return {"msgtype": "markdown", "markdown": {"content": markdown}}


@dataclass(frozen=True)
class Attempt:
    """The result of one POST. ``result``: "sent" (2xx), "retry" (timeout, connection error,
    429 or 5xx: worth trying again), "failed" (4xx, a redirect: not retried) or "refused" (the
    URL or a redirect target fails the SSRF guard); ``http_status`` (int or None) and
    ``error`` (str, '' when sent)."""

    result: str
    http_status: int | None = None
    error: str = ""


def post(url: str, secret: str, payload: dict, timeout: float) -> Attempt:
    """POST ``payload`` as JSON (UTF-8) to ``url``, signed with ``secret``.

    Args:
        url: the endpoint.
        secret: the HMAC key.
        payload: the JSON body.
        timeout: seconds to connect and to wait for the answer.

    Returns:
        An Attempt; never raises for network trouble.
    """
    allow = parse_allow_list(crawl_config().allow_addresses)
    try:
        check_url(url, allow)
    except RefusedAddress as exc:
        return Attempt("refused", error=f"SSRF guard: {exc}")
    body = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    timestamp = str(int(time.time()))
    headers = {"Content-Type": "application/json; charset=utf-8", TIMESTAMP_HEADER: timestamp,
               SIGNATURE_HEADER: sign(secret, timestamp, body)}
    with requests.Session() as session:
        session.trust_env = False  # no proxy: it would hide the real peer from the guard
        adapter = GuardedAdapter(allow)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        try:
            response = session.post(url, data=body, headers=headers, timeout=timeout,
                                    allow_redirects=False)
        except requests.RequestException as exc:
            outcome, reason = transport_outcome(exc)
            if outcome is Outcome.SSRF_REFUSED:
                return Attempt("refused", error=f"SSRF guard: {reason}")
            if outcome is Outcome.INVALID_URL:
                return Attempt("failed", error=reason)
            return Attempt("retry", error=reason)
    status = response.status_code
    if 300 <= status < 400:
        target = urljoin(url, response.headers.get("Location", ""))
        try:
            check_url(target, allow)
        except RefusedAddress as exc:
            return Attempt("refused", status, f"redirect to {target} refused by the SSRF guard: {exc}")
        return Attempt("failed", status, f"redirect to {target} not followed")
    if status == 429 or status >= 500:
        return Attempt("retry", status, f"HTTP {status}: {response.text[:200]}")
    if status >= 400:
        return Attempt("failed", status, f"HTTP {status}: {response.text[:200]}")
    return Attempt("sent", status)
