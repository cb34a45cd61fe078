"""Registered domains: the part of a host name that one party registered ("example.com" for
"news.example.com", "sina.com.cn" for "novel.sina.com.cn").

Uses the Public Suffix List bundled with ``publicsuffixlist`` (no network fetch; the package
ships a fresh copy of the list with each release). A host that has no registered domain under
the list (an IP address, "localhost", a bare public suffix) is its own registered domain.
"""

from __future__ import annotations

import ipaddress
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
