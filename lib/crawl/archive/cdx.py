"""Asking a CDX index server (the pywb/CDX server API that Common Crawl's index speaks) where
the captures of a domain or URL prefix lie: ``GET <index>?url=<pattern>&matchType=<domain |
prefix>&output=json`` answers one JSON object a line, each with the capture's ``url``,
``timestamp``, ``status``, ``mime``, ``filename`` (the WARC file, relative to the data
server), ``offset`` and ``length`` (bytes of its gzip member in that file). A 404 answer is
"no captures". Requests go through the SSRF-guarded session of lib.crawl.archive.sources.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import requests

from lib.crawl.archive.sources import SourceError


@dataclass(frozen=True)
class Capture:
    """One capture of the index: ``filename`` (relative to the data server), ``offset`` and
    ``length`` (bytes), ``url`` and ``timestamp`` (14 digits) as the index gives them."""

    filename: str
    offset: int
    length: int
    url: str
    timestamp: str


def match_type(pattern: str) -> tuple[str, str]:
    """(url, matchType) for ``pattern``: a bare domain ('example.com': the domain and its
    subdomains) or a URL prefix ('https://example.com/books/': every URL under it)."""
    if "/" in pattern.split("://", 1)[-1] or "://" in pattern:
        return pattern, "prefix"
    return pattern.strip().strip(".").lower(), "domain"


def query(http: requests.Session, index_url: str, pattern: str, *, limit: int,
          timeout: float) -> list[Capture]:
    """The HTML captures with status 200 of ``pattern`` (see ``match_type``) in the index at
    ``index_url``, at most ``limit``, in the index's order. Raises SourceError when the server
    cannot be reached, answers an error other than 404, or answers lines that are not captures."""
    url, kind = match_type(pattern)
    params = {"url": url, "matchType": kind, "output": "json", "limit": str(limit),
              "filter": ["=status:200", "~mime:html"]}
    try:
        response = http.get(index_url, params=params, timeout=timeout)
    except requests.RequestException as exc:
        raise SourceError(f"CDX {index_url}: {exc}") from exc
    if response.status_code == 404:
        return []
    if response.status_code != 200:
        raise SourceError(f"CDX {index_url}: HTTP {response.status_code} for {pattern}")
    captures = []
    for line in response.text.splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            captures.append(Capture(row["filename"], int(row["offset"]), int(row["length"]),
                                    row.get("url", ""), row.get("timestamp", "")))
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceError(f"CDX {index_url}: not a capture line: {line[:200]!r}") from exc
    return captures[:limit]
