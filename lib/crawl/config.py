"""Crawler settings: one frozen dataclass holding every limit of the crawl library, with defaults.

Tests, the demo and production differ only in configuration. The library reads no settings
itself: the Django side builds the configuration from ``settings.CRAWLER`` (the environment
variables ``CRAWLER_<NAME>``) with ``CrawlConfig.from_mapping``; tests construct it directly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field


def _default_user_agent(contact_url: str) -> str:
    return f"CopyrightTrackerBot/0.1 (+{contact_url})"


@dataclass(frozen=True)
class CrawlConfig:
    """Limits and identity of the crawler.

    Fields (units in the names): ``user_agent`` sent on every request and matched against
    robots.txt groups as ``robots_agent``; ``connect_timeout`` / ``read_timeout`` in seconds
    (read = the longest silence between two received chunks); ``max_fetch_seconds`` caps the
    whole download (defeats servers that drip one byte per read timeout); ``max_body_bytes``;
    ``max_redirects`` hops followed; ``max_retries`` attempts after the first on timeouts,
    connection errors, 429 and 5xx; ``retry_base_seconds`` and ``retry_max_seconds`` bound the
    exponential backoff; ``robots_ttl_seconds`` how long a robots.txt stays cached in Redis;
    ``robots_process_ttl_seconds`` how long a worker process keeps a policy it read (never
    longer than its Redis entry lives) and ``robots_process_max_origins`` how many origins it
    keeps (parsing robots.txt from Redis for every URL cost a GET and a JSON decode per URL);
    ``allow_addresses`` IP addresses or networks (CIDR) that the SSRF guard lets through
    although they are loopback/private; ``max_url_length`` characters, ``max_path_depth``
    path segments, ``max_segment_repeats`` same segment in one path (trap defence);
    ``default_delay_seconds`` politeness delay per host when the site sets none;
    ``politeness_horizon_seconds`` how far ahead a task may reserve a fetch slot;
    ``scan_stale_seconds`` after which a scan with no task finished is abandoned (the platform
    sets it from settings.SCAN_STUCK_SECONDS).
    Rendering (sites that need a browser, lib.crawl.render): ``chromium_path`` the Chromium
    executable; ``render_timeout_seconds`` for loading a page to its load event;
    ``render_settle_seconds`` at most waited after that for the page's own requests to stop
    (500 ms without any, Playwright's "networkidle"); ``render_max_requests`` and
    ``render_max_bytes`` the requests one page may make and the bytes they may bring in total
    (each also under ``max_body_bytes``); further requests are refused.
    Evidence (lib.crawl.exchange): the raw HTTP exchange of a new or changed page version, of
    at most ``exchange_max_bytes`` body bytes over all hops, is stashed for
    ``exchange_ttl_seconds`` and kept for good when the version matches a work.
    The crawl log (lib.crawl.crawllog): a URL's record of a scan stays ``crawl_log_ttl_seconds``.
    TLS: ``ca_bundle`` a PEM file of root certificates trusted besides certifi's ('' for none).
    The defaults follow common crawler practice (Scrapy: 180 s timeout, 1 GB max size, 20
    redirects; Heritrix: 3 s delay); ours are tighter because pages here are articles.
    """

    contact_url: str = "https://example.org/copyright-tracker/bot"
    user_agent: str = ""
    robots_agent: str = "CopyrightTrackerBot"
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    max_fetch_seconds: float = 60.0
    max_body_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    max_retries: int = 3
    retry_base_seconds: float = 2.0
    retry_max_seconds: float = 300.0
    robots_ttl_seconds: int = 24 * 3600
    robots_process_ttl_seconds: int = 300
    robots_process_max_origins: int = 1024
    allow_addresses: tuple[str, ...] = field(default_factory=tuple)
    max_url_length: int = 2048
    max_path_depth: int = 12
    max_segment_repeats: int = 2
    default_delay_seconds: float = 2.0
    politeness_horizon_seconds: float = 60.0
    scan_stale_seconds: int = 3600
    chromium_path: str = "/usr/bin/chromium"
    render_timeout_seconds: float = 20.0
    render_settle_seconds: float = 5.0
    render_max_requests: int = 100
    render_max_bytes: int = 20 * 1024 * 1024
    exchange_max_bytes: int = 6 * 1024 * 1024
    exchange_ttl_seconds: int = 2 * 24 * 3600
    crawl_log_ttl_seconds: int = 30 * 24 * 3600
    ca_bundle: str = ""

    def __post_init__(self):
        if not self.user_agent:
            object.__setattr__(self, "user_agent", _default_user_agent(self.contact_url))

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> CrawlConfig:
        """Build a configuration from ``values``: field name in upper case (``MAX_BODY_BYTES``)
        -> value, a str (as read from the environment) or a value of the field's type; fields
        not named keep their defaults. Tuple fields take a comma-separated str or a sequence.

        The Django side passes ``settings.CRAWLER`` (filled from the ``CRAWLER_<NAME>``
        environment variables, see crawler.scans.crawl_config); the library reads nothing itself.

        Returns a CrawlConfig. Raises ValueError naming the setting when a name is not a field
        or a value does not convert to the field's type (``MAX_BODY_BYTES=big``).
        """
        fields = {f.name.upper(): f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - fields.keys())
        if unknown:
            raise ValueError(f"unknown crawler setting {', '.join(unknown)}; known: "
                             f"{', '.join(sorted(fields))}")
        return cls(**{fields[name].name: _convert(name, str(fields[name].type), raw)
                      for name, raw in values.items()})


def _convert(name: str, type_name: str, raw):
    try:
        if "tuple" in type_name:
            if isinstance(raw, str):
                return tuple(p.strip() for p in raw.split(",") if p.strip())
            return tuple(raw)
        if type_name == "int":
            return int(raw)
        if type_name == "float":
            return float(raw)
        return str(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"crawler setting {name}: cannot use {raw!r} ({exc})") from exc
