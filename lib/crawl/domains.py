"""Registered domains: the part of a host name that one party registered ("example.com" for
"news.example.com", "sina.com.cn" for "novel.sina.com.cn").

Uses the Public Suffix List bundled with ``publicsuffixlist`` (no network fetch; the package
ships a fresh copy of the list with each release). A host that has no registered domain under
the list (an IP address, "localhost", a bare public suffix) is its own registered domain.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from functools import lru_cache

from publicsuffixlist import PublicSuffixList

_LIST = PublicSuffixList()


@lru_cache(maxsize=4096)
def registered_domain(host: str) -> str:
    """The registered domain of ``host`` (str host name or IP address, any case, a trailing dot
    allowed), lower case; the host itself when the Public Suffix List gives none."""
    host = (host or "").strip().strip(".").lower()
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    return _LIST.privatesuffix(host) or host


def site_covering(host: str, sites: Mapping[int, Iterable[str]]) -> int | None:
    """The id of the site whose domains cover ``host`` (str host name), for a page recorded
    without its scan's site.

    ``sites``: {site id: its allowed domains (host names, subdomains included)}. The site with
    the longest domain equal to ``host`` or a parent of it wins (a site of news.example.com
    before one of example.com); when none covers it, the one site whose domains share
    ``host``'s registered domain; None when there is none or several (ties: the lowest id).
    """
    host = (host or "").strip(".").lower()
    best: tuple[int, int] | None = None  # (-length of the covering domain, site id)
    same_registered = set()
    for site_id, domains in sites.items():
        for domain in (d.strip().strip(".").lower() for d in domains):
            if domain and (host == domain or host.endswith("." + domain)):
                candidate = (-len(domain), site_id)
                best = candidate if best is None else min(best, candidate)
            elif domain and registered_domain(domain) == registered_domain(host):
                same_registered.add(site_id)
    if best is not None:
        return best[1]
    return same_registered.pop() if len(same_registered) == 1 else None
