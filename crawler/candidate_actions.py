"""Candidate sites found by discovery: discovery asked for now, a candidate promoted to a
target site or dismissed, and a site moved to the domain a candidate says it moved to
(``crawler.domain_moves``). Atomic and audited."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from core import notes
from core.errors import ActionError
from core.models import AuditEvent
from core.models.audit import DISCOVERY_REQUESTED
from core.queueing import queue_after_commit
from crawler import domain_moves, schedule
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    TargetSite,
)
from crawler.review_actions import do_whitelist_domain
from crawler.site_actions import do_save_site
from lib.crawl.canonical import origin_of


def do_discover_sites(acting_user) -> None:
    """Queue a discovery pass now (``crawler.discover_sites``, as beat does daily), recorded in
    the audit trail with the acting user. Returns None."""
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                          subject="", old_state="", new_state=DISCOVERY_REQUESTED)
        queue_after_commit("crawler.discover_sites")


def do_promote_candidate(candidate: CandidateSite, acting_user) -> TargetSite:
    """Make a candidate site a target site (crawler.discovery): a TargetSite named after its
    domain, starting at the root of the origin of its first linked page and at the pages the
    sample read, limited to that domain, saved through ``do_save_site`` (scheduled, audited); the candidate becomes
    'promoted' and is never proposed again. Recorded with the acting user.

    Returns:
        The new TargetSite.

    A candidate proposed as the new domain of a target site (``moved_from``) is promoted by
    ``do_move_site`` instead, which carries the old site's settings over.

    Raises:
        ActionError: the candidate was already promoted or dismissed.
    """
    if candidate.moved_from_id is not None:
        return do_move_site(candidate, acting_user)
    with transaction.atomic():
        candidate = _locked_candidate(candidate)
        start = origin_of(candidate.sample_urls[0]) if candidate.sample_urls else f"https://{candidate.domain}"
        name = _candidate_site_name(candidate)
        start_urls = list(dict.fromkeys([start + "/", *candidate.sample_urls[:settings.DISCOVERY_SAMPLE_PAGES]]))
        site = do_save_site(TargetSite(name=name, start_urls=start_urls,
                                       allowed_domains=[candidate.domain],
                                       notes=_found_by_discovery(candidate)), acting_user)
        old = candidate.status
        candidate.status, candidate.target_site = CandidateStatus.PROMOTED, site
        candidate.save(update_fields=["status", "target_site"])
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                          target=candidate, subject=candidate.domain, old_state=old,
                          new_state=CandidateStatus.PROMOTED, reason=f"target site #{site.pk}")
    return site


def _found_by_discovery(candidate: CandidateSite) -> str:
    """The promoted site's note: "Found by discovery: 2 links from 1 page." (the source pages
    are those kept in ``linked_from``)."""
    links = ngettext("%(n)d link", "%(n)d links", candidate.link_count) % {
        "n": candidate.link_count}
    pages = ngettext("%(n)d page", "%(n)d pages", len(candidate.linked_from)) % {
        "n": len(candidate.linked_from)}
    return _("Found by discovery: %(links)s from %(pages)s.") % {"links": links, "pages": pages}


def do_dismiss_candidate(candidate: CandidateSite, acting_user, reason: str = "") -> CandidateSite:
    """Dismiss a candidate site: it stays 'dismissed' and discovery never proposes it again.
    Recorded with the acting user and ``reason``.

    Raises:
        ActionError: the candidate was already made a target site.
    """
    with transaction.atomic():
        candidate = CandidateSite.objects.select_for_update().get(pk=candidate.pk)
        if candidate.status == CandidateStatus.PROMOTED:
            raise ActionError(_("%(domain)s is a target site already.") % {"domain": candidate.domain})
        old = candidate.status
        candidate.status = CandidateStatus.DISMISSED
        if reason:
            candidate.note = reason
        candidate.save(update_fields=["status", "note"])
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                          target=candidate, subject=candidate.domain, old_state=old,
                          new_state=CandidateStatus.DISMISSED, reason=reason)
    return candidate


def _locked_candidate(candidate: CandidateSite) -> CandidateSite:
    """``candidate`` read again and locked for the transaction; ActionError when it was
    already promoted or dismissed."""
    locked = CandidateSite.objects.select_for_update().get(pk=candidate.pk)
    if locked.status in (CandidateStatus.PROMOTED, CandidateStatus.DISMISSED):
        raise ActionError(_("%(domain)s was already %(status)s.") % {
            "domain": locked.domain, "status": locked.get_status_display()})
    return locked


def _candidate_site_name(candidate: CandidateSite) -> str:
    """The name of the target site made of ``candidate``: its domain, with its id when a site
    has that name already."""
    if TargetSite.objects.filter(name=candidate.domain).exists():
        return f"{candidate.domain} (#{candidate.pk})"
    return candidate.domain


def do_move_site(candidate: CandidateSite, acting_user) -> TargetSite:
    """Promote a candidate proposed as the new domain of a target site
    (``crawler.domain_moves``): a new TargetSite on its domain (``do_save_site``, audited) with
    the old site's settings (every per-site field: path patterns, depth, page limit, politeness
    delay, browser, enabled; its schedule), its start URLs at the same paths on the new origin
    and the candidate's host among its allowed domains (``domain_moves.moved_site``); each
    whitelist entry on the old domain gets one on the new (``do_whitelist_domain``, audited).
    The candidate becomes 'promoted', recorded with the acting user. The old site, its matches
    and its cases stay as they are.

    Returns:
        The new TargetSite.

    Raises:
        ActionError: the candidate was already promoted or dismissed, or the site it moved from
            is gone.
    """
    with transaction.atomic():
        candidate = _locked_candidate(candidate)
        old = candidate.moved_from
        if old is None:
            raise ActionError(_("The site %(domain)s moved from no longer exists.") % {
                "domain": candidate.domain})
        moved = _("Moved from %(site)s (%(domains)s).") % {
            "site": old.name, "domains": ", ".join(old.allowed_domains)}
        site = domain_moves.moved_site(candidate, _candidate_site_name(candidate),
                                       f"{moved}\n{old.notes}".strip()[:2000])
        timing = schedule.read(old)
        site = do_save_site(site, acting_user, ["created", f"moved from {old.name} (#{old.pk})"],
                            timing=timing)
        if timing is None:  # a superuser's schedule that is no daily, weekly or hourly timing
            task, were = site.periodic_task, old.periodic_task
            task.crontab_id, task.interval_id = were.crontab_id, were.interval_id
            task.save(update_fields=["crontab", "interval"])
        for holder, domain in domain_moves.carried_whitelist(candidate):
            do_whitelist_domain(holder, domain, acting_user, moved)
        status = candidate.status
        candidate.status, candidate.target_site = CandidateStatus.PROMOTED, site
        candidate.save(update_fields=["status", "target_site"])
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                          target=candidate, subject=candidate.domain, old_state=status,
                          new_state=CandidateStatus.PROMOTED, reason=notes.coded(
                              "site_moved_promoted", gettext_noop(
                                  "moved from %(old)s: target site #%(site)s"),
                              old=old.name, site=site.pk))
    return site
