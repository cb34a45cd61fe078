"""Opening an archive file, or a byte range of it, for reading: a local path or an HTTP(S) URL.

URLs are fetched with HTTP Range requests through the crawl library's SSRF guard
(lib.crawl.ssrf.GuardedAdapter with the crawl configuration's ``allow_addresses``): an
archive URL that resolves to a loopback or private address is refused unless allowed, as a
crawled page would be. A server that ignores the Range header is refused for a range that does
not start at 0 (reading from the start to skip gigabytes is not done silently).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import requests

from lib.crawl.config import CrawlConfig
from lib.crawl.errors import CrawlerError
from lib.crawl.ssrf import GuardedAdapter, RefusedAddress, check_url, parse_allow_list
from lib.text.untrusted import ascii_int

_TOTAL = re.compile(r"/(\d+)\s*$")


class SourceError(CrawlerError):
    """An archive source that cannot be opened or sized: a missing file, a refused address, an
    HTTP error or a server without range support. The message says which (English)."""


def is_url(source: str) -> bool:
    """True when ``source`` is an http(s) URL, False for a local path."""
    return source.lower().startswith(("http://", "https://"))


def identity(source: str) -> str:
    """The identity of an archive file, the same however it is named: an URL as given, a local
    path as its absolute real path. Offsets within one identity name one record for good."""
    return source if is_url(source) else os.path.realpath(source)


class GuardedSession(requests.Session):
    """A requests.Session whose every request is checked by the SSRF guard before it is sent
    (the host's addresses, ``lib.crawl.ssrf.check_url``) and when it connects
    (GuardedAdapter); ``allow``: the networks let through although private or loopback."""

    def __init__(self, allow: tuple):
        super().__init__()
        self.allow = allow

    def request(self, method, url, *args, **kwargs):
        try:
            check_url(url, self.allow)
        except RefusedAddress as exc:
            raise SourceError(f"{url}: {exc}") from exc
        return super().request(method, url, *args, **kwargs)


def session(config: CrawlConfig) -> GuardedSession:
    """A GuardedSession with the SSRF allow-list of ``config`` (its ``allow_addresses``), the
    crawler's User-Agent and no proxies from the environment. Its requests raise SourceError
    for a refused address."""
    allow = parse_allow_list(config.allow_addresses)
    s = GuardedSession(allow)
    s.trust_env = False
    adapter = GuardedAdapter(allow, max_retries=0)
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    s.headers.update({"User-Agent": config.user_agent, "Accept-Encoding": "identity"})
    return s


def size_of(source: str, http: requests.Session, timeout: float) -> int:
    """The size in bytes of the archive file ``source``. Raises SourceError."""
    if not is_url(source):
        try:
            return os.path.getsize(source)
        except OSError as exc:
            raise SourceError(f"cannot read {source}: {exc.strerror or exc}") from exc
    with _get(http, source, "bytes=0-0", timeout) as response:
        match = _TOTAL.search(response.headers.get("content-range", ""))
        if response.status_code == 206 and match:
            return int(match.group(1))
        length = ascii_int(response.headers.get("content-length"))
        if response.status_code == 200 and length is not None:
            return length
    raise SourceError(f"{source}: the server tells no size (no Content-Range or Content-Length)")


@contextmanager
def open_range(source: str, http: requests.Session, start: int, end: int | None,
               timeout: float) -> Iterator[BinaryIO]:
    """A binary stream of ``source`` from byte ``start`` to ``end`` (exclusive; None: to the
    end of the file), closed on exit. ``timeout``: seconds for connecting and between two
    received chunks. Raises SourceError (on entry) for a missing file, a refused address, an
    HTTP error or a server that ignores a range not starting at 0."""
    if not is_url(source):
        try:
            handle = open(source, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise SourceError(f"cannot read {source}: {exc.strerror or exc}") from exc
        with handle:
            handle.seek(start)
            yield handle
        return
    wanted = f"bytes={start}-{'' if end is None else end - 1}"
    with _get(http, source, wanted, timeout) as response:
        if response.status_code == 200 and start > 0:
            raise SourceError(f"{source}: the server ignores Range requests")
        response.raw.decode_content = False
        yield response.raw


@contextmanager
def _get(http: requests.Session, url: str, wanted: str, timeout: float):
    try:
        response = http.get(url, headers={"Range": wanted}, stream=True, timeout=timeout,
                            allow_redirects=False)
    except requests.RequestException as exc:
        raise SourceError(f"{url}: {exc}") from exc
    try:
        if response.status_code not in (200, 206):
            raise SourceError(f"{url}: HTTP {response.status_code} for {wanted}")
        yield response
    finally:
        response.close()
