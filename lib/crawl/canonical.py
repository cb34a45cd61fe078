"""Canonical URLs and crawler-trap defence.

A canonical URL is the one key a page is stored and de-duplicated under: lower-case scheme and
host, default port dropped, path percent-encoding normalized, fragment dropped, query arguments
sorted, and tracking arguments (``utm_*``, ``spm``, ``from`` ...) removed. The normalization is
w3lib's ``canonicalize_url`` (the one Scrapy uses for its request fingerprints); the tracking list
is ours, from the arguments Chinese portals and ad networks append (Taobao/Alibaba ``spm``,
Baidu ``bd_*``, WeChat ``scene``/``chksm``, Google ``gclid``, Facebook ``fbclid``). Names that
some sites use to select content (``source``, ``src``, ``id``, ``page``) are kept: merging two
pages into one key would hide one of them.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, unquote, urlencode, urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

from lib.crawl.errors import CrawlerError

TRACKING_PARAMS = frozenset(
    {
        "spm", "from", "scm", "share_token", "share_from", "sharer", "ref", "refer", "referer",
        "fbclid", "gclid", "dclid", "msclkid", "yclid", "mc_cid", "mc_eid", "igshid", "_hsenc",
        "_hsmi", "scene", "chksm", "isappinstalled", "wfr", "vd_source", "share_source",
        "share_medium", "tt_from", "_ga",
    }
)
TRACKING_PREFIXES = ("utm_", "bd_", "hmsr", "hmpl", "hmcu", "hmkw", "hmci", "pk_", "mtm_")
SESSION_PARAMS = frozenset(
    {"jsessionid", "phpsessid", "sid", "sessionid", "session_id", "aspsessionid", "cfid", "cftoken"}
)

_SESSION_IN_PATH = re.compile(r";(jsessionid|phpsessid|sid)=[^/?#]*", re.IGNORECASE)
# 2024/05, 2024-5, 2024/05/17 ... : the dates that calendars generate forever
_DATE = re.compile(r"(?<!\d)((?:1[89]|2\d)\d\d)[/-](0?[1-9]|1[0-2])(?!\d)")
_CALENDAR_WORDS = re.compile(r"(?:^|[/_-])(calendar|cal|agenda|events?|date)(?:[/_.-]|$)", re.IGNORECASE)
MIN_YEAR = 1990  # no Chinese news site predates it; earlier dates come from calendar links
_CALENDAR_PARAMS = frozenset({"date", "day", "month", "year", "week", "cal", "calendar", "ym", "d", "m", "y"})


class InvalidURL(CrawlerError, ValueError):
    """A URL that cannot be crawled: not http(s), no host, or unparsable. The message says why."""


# canonical forms kept per process: a site's pages repeat most of their links (menus, lists)
CANONICAL_CACHE_URLS = 65_536  # URLs, about 20 MB at most


def canonical_url(url: str, base: str | None = None) -> str:
    """Return the canonical form of ``url`` (str), resolved against ``base`` when relative.

    Drops the fragment, the default port, tracking and session arguments and ``;jsessionid=``
    path parameters; sorts the remaining query arguments; lower-cases scheme and host; IDN hosts
    become punycode. Raises InvalidURL for non-http(s) schemes, missing hosts and URLs that do
    not parse (for example an out-of-range port). The last CANONICAL_CACHE_URLS results are
    kept (w3lib's canonicalisation is the costliest step of reading a page's links).
    """
    if not isinstance(url, str) or not url.strip():
        raise InvalidURL("empty URL")
    try:
        raw = urljoin(base, url.strip()) if base else url.strip()
    except ValueError as exc:
        raise InvalidURL(f"unparsable URL {url!r}: {exc}") from exc
    return _canonical(raw)


@lru_cache(maxsize=CANONICAL_CACHE_URLS)
def _canonical(url: str) -> str:
    """``canonical_url`` of an absolute ``url`` (a refusal raises InvalidURL and is not kept)."""
    try:
        safe = safe_url_string(url)
        parts = urlsplit(safe)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"unparsable URL {url!r}: {exc}") from exc
    if parts.scheme not in ("http", "https"):
        raise InvalidURL(f"not an http(s) URL: {url!r}")
    if not parts.hostname:
        raise InvalidURL(f"no host in URL: {url!r}")
    host = parts.hostname.rstrip(".").lower()
    default_port = {"http": 80, "https": 443}[parts.scheme]
    netloc = host if port in (None, default_port) else f"{host}:{port}"
    if ":" in host:  # IPv6 literal
        netloc = f"[{host}]" if port in (None, default_port) else f"[{host}]:{port}"
    path = _SESSION_IN_PATH.sub("", parts.path) or "/"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_noise_param(k)]
    )
    return canonicalize_url(urlunsplit((parts.scheme, netloc, path, query, "")))


def _is_noise_param(name: str) -> bool:
    low = name.lower()
    return low in TRACKING_PARAMS or low in SESSION_PARAMS or low.startswith(TRACKING_PREFIXES)


def host_of(url: str) -> str:
    """Return the lower-case host name of ``url`` without port (str; '' when there is none)."""
    return (urlsplit(url).hostname or "").lower()


def origin_of(url: str) -> str:
    """Return ``scheme://host[:port]`` of ``url``: the unit robots.txt and politeness apply to."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"


def in_domains(url: str, domains) -> bool:
    """True when the host of ``url`` equals one of ``domains`` or is a subdomain of one.

    ``domains``: iterable of host names (str, case-insensitive, no scheme). An empty iterable
    allows nothing.
    """
    host = host_of(url)
    return any(host == d or host.endswith("." + d) for d in (x.lower().strip(".") for x in domains))


@dataclass(frozen=True)
class TrapVerdict:
    """Result of ``trap_reason``: ``reason`` is None for a URL that looks safe, else one of
    'url_too_long', 'path_too_deep', 'repeating_segments', 'session_id', 'calendar'."""

    reason: str | None

    def __bool__(self) -> bool:
        return self.reason is not None


def trap_reason(url: str, *, max_url_length: int = 2048, max_path_depth: int = 12,
                max_segment_repeats: int = 2) -> TrapVerdict:
    """Judge whether ``url`` (a canonical URL) belongs to an endless URL space.

    Checks, in order: length above ``max_url_length`` characters; more than ``max_path_depth``
    path segments; one segment occurring more than ``max_segment_repeats`` times (relative-link
    loops such as /a/b/a/b/a/b); a session id left in the query or a 32+ hex-digit path segment;
    a calendar: a date (year-month) before MIN_YEAR or after next year anywhere in the path or
    query, or any date or date argument on a calendar-like path (/calendar/2024/05,
    /events?month=2024-05). Ordinary dated article paths (/2024/05/17/x.html) are not traps. Returns a TrapVerdict. Heuristics after Heritrix's and Scrapy's trap filters.
    """
    if len(url) > max_url_length:
        return TrapVerdict("url_too_long")
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) > max_path_depth:
        return TrapVerdict("path_too_deep")
    counts: dict[str, int] = {}
    for seg in segments:
        counts[seg] = counts.get(seg, 0) + 1
        if counts[seg] > max_segment_repeats:
            return TrapVerdict("repeating_segments")
    params = [k.lower() for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
    if any(p in SESSION_PARAMS for p in params):
        return TrapVerdict("session_id")
    years = [int(m.group(1)) for m in _DATE.finditer(unquote(parts.path + "?" + parts.query))]
    if any(y < MIN_YEAR or y > datetime.date.today().year + 1 for y in years):
        return TrapVerdict("calendar")
    if _CALENDAR_WORDS.search(parts.path) and (years or any(p in _CALENDAR_PARAMS for p in params)):
        return TrapVerdict("calendar")
    return TrapVerdict(None)
