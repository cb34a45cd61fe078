"""Crawler settings: one frozen dataclass, read from Django settings or the environment.

Every limit the crawler enforces lives here so that tests, the demo and production differ only
in configuration. ``CrawlConfig.load()`` takes, for each field, Django's ``settings.CRAWLER[NAME]``
when Django is configured, else the environment variable ``CRAWLER_<NAME>``, else the default.
"""

from __future__ import annotations

import dataclasses
import os
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
    ``allow_addresses`` IP addresses or networks (CIDR) that the SSRF guard lets through
    although they are loopback/private; ``max_url_length`` characters, ``max_path_depth``
    path segments, ``max_segment_repeats`` same segment in one path (trap defence);
    ``default_delay_seconds`` politeness delay per host when the site sets none;
    ``politeness_horizon_seconds`` how far ahead a task may reserve a fetch slot.
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
    allow_addresses: tuple[str, ...] = field(default_factory=tuple)
    max_url_length: int = 2048
    max_path_depth: int = 12
    max_segment_repeats: int = 2
    default_delay_seconds: float = 2.0
    politeness_horizon_seconds: float = 60.0

    def __post_init__(self):
        if not self.user_agent:
            object.__setattr__(self, "user_agent", _default_user_agent(self.contact_url))

    def with_(self, **changes) -> CrawlConfig:
        """Return a copy with ``changes`` applied (dataclasses.replace; unknown names raise TypeError)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def load(cls) -> CrawlConfig:
        """Build the configuration from Django settings, the environment and the defaults.

        Returns a CrawlConfig. Raises ValueError naming the setting when a value does not
        convert to the field's type (for example ``CRAWLER_MAX_BODY_BYTES=big``).
        """
        overrides = _django_overrides()
        values = {}
        for f in dataclasses.fields(cls):
            name = f.name.upper()
            raw = overrides.get(name, os.environ.get(f"CRAWLER_{name}"))
            if raw is None:
                continue
            values[f.name] = _convert(f.name, f.type, raw)
        return cls(**values)


def _django_overrides() -> dict:
    try:
        from django.conf import settings

        if settings.configured:
            return dict(getattr(settings, "CRAWLER", {}) or {})
    except ImportError:
        pass
    return {}


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
        raise ValueError(f"crawler setting {name.upper()}: cannot use {raw!r} ({exc})") from exc
