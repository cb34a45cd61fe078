"""Finding and registering target sites (shared by the management commands and the demo)."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from crawler.models import TargetSite
from crawler.site_actions import do_save_site
from lib.crawl.canonical import InvalidURL, canonical_url
from lib.crawl.errors import CrawlerError
from lib.text.untrusted import ascii_int


class SiteNotFound(CrawlerError, LookupError):
    """No registered site answers to the given id, name or start URL; the message says which."""


def find_site(ref: str) -> TargetSite:
    """The TargetSite whose id, name or one of whose start URLs is ``ref`` (str).

    Raises SiteNotFound, naming ``ref``, when none does.
    """
    ref = ref.strip()
    if ascii_int(ref) is not None:
        site = TargetSite.objects.filter(pk=ascii_int(ref)).first()
        if site:
            return site
    site = TargetSite.objects.filter(name=ref).first()
    if site:
        return site
    try:
        wanted = canonical_url(ref)
    except InvalidURL:
        wanted = None
    if wanted:
        for site in TargetSite.objects.all():
            if wanted in {_canonical_or_none(u) for u in site.start_urls}:
                return site
    raise SiteNotFound(f"no target site with id, name or start URL {ref!r}")


def _canonical_or_none(url: str) -> str | None:
    try:
        return canonical_url(url)
    except InvalidURL:
        return None


def register_site(name: str, start_urls: list[str], *, allowed_domains: list[str] | None = None,
                  delay_seconds: float | None = None, update: bool = False, **fields) -> tuple[TargetSite, bool]:
    """Create (or with ``update``, create or update) the site ``name``.

    ``start_urls``: list of str; ``allowed_domains`` default to the start URLs' hosts;
    ``delay_seconds``: politeness delay (site default when None); ``fields``: other TargetSite
    fields (max_pages, max_depth, path_patterns, enabled). Returns (site, created). Raises
    ValidationError with every problem found (bad URL, bad pattern, a name already taken
    without ``update``); nothing is saved then. Saved through ``crawler.site_actions.do_save_site``
    (recorded in the audit trail, no acting person: a command or the demo).
    """
    site = TargetSite.objects.filter(name=name).first()
    if site and not update:
        raise ValidationError(f"a target site named {name!r} exists already (id {site.pk})")
    created = site is None
    site = site or TargetSite(name=name)
    site.start_urls = list(start_urls)
    site.allowed_domains = [d.strip().lower() for d in (allowed_domains or [])]
    if delay_seconds is not None:
        site.delay_seconds = delay_seconds
    for key, value in fields.items():
        setattr(site, key, value)
    if not site.start_urls:
        raise ValidationError("at least one start URL is needed")
    site.full_clean(exclude=["allowed_domains"] if not site.allowed_domains else None)
    do_save_site(site, None, ["start_urls", "allowed_domains", *fields] if not created else None)
    return site, created
