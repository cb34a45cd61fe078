"""The platforms' registry of this installation (settings.PLATFORM_REGISTRY_PATH, read with
``lib.crawl.platforms``): the platform a case lives on, and the system check that names the
line of an error in the file when Django starts (``manage.py check``, ``runserver``,
``migrate``, `make run`)."""

from __future__ import annotations

import functools

from django.conf import settings
from django.core import checks

from lib.crawl import platforms
from lib.crawl.platforms import Platform, RegistryError


@functools.cache
def _load(path: str, with_demo: bool) -> tuple[Platform, ...]:
    return tuple(platforms.load(path, with_demo))


def registry() -> tuple[Platform, ...]:
    """The platforms of the registry (demo entries when settings.PLATFORM_REGISTRY_DEMO).
    Raises RegistryError: the file cannot be used (the system check says so at start)."""
    return _load(str(settings.PLATFORM_REGISTRY_PATH), settings.PLATFORM_REGISTRY_DEMO)


def platform_of_case(case) -> Platform | None:
    """The platform ``case`` (a Case) lives on: its registered domain or a host of one of its
    pages under a platform's domain; None when none (or the registry cannot be read)."""
    try:
        known = registry()
    except RegistryError:
        return None
    hosts = [case.domain, *case.pages.order_by().values_list("domain", flat=True).distinct()]
    return platforms.platform_of(hosts, list(known))


def check_registry(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Django system check: the registry file reads and validates; else one Error naming
    the file and line (crawler.E010)."""
    try:
        platforms.load(settings.PLATFORM_REGISTRY_PATH, with_demo=True)
    except RegistryError as exc:
        return [checks.Error(f"The platform registry cannot be used: {exc}",
                             hint="Correct the file (TOML, docs/takedown.md) or point "
                                  "TRACKER_PLATFORM_REGISTRY at a good one.",
                             id="crawler.E010")]
    return []
