"""The crawler app's actions: every change of a target site, scan, match review, whitelisted
domain or site proposal goes through one ``do_<verb>_<noun>`` function here (the admin, Celery tasks, management
commands and the dashboard call these, never the models' writers directly).

Each action is atomic where it writes the database, records the acting person in the audit trail
(``tracker.core.models.AuditEvent``) when a person acted, and queues its follow-up Celery tasks
only once its transaction commits.

Review: new -> confirmed infringement / false positive / licensed (which whitelists the page's
domain for the work's holder), always with a reason; a decision may be revised later, again
with a reason, and the trail keeps both.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from crawler import cases, domain_moves, scans, schedule
from crawler.lib.canonical import InvalidURL, canonical_url, host_of, origin_of
from crawler.lib.ssrf import RefusedAddress, check_url, parse_allow_list
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    Match,
    ProposalStatus,
    ReviewStatus,
    ScanRun,
    ScanStatus,
    SiteProposal,
    TargetSite,
    WhitelistedDomain,
)
from crawler.tasks import launch
from tracker.core import notes
from tracker.core.errors import ActionError
from tracker.core.models import AuditEvent
from tracker.core.models.audit import CHECK_REQUESTED, DISCOVERY_REQUESTED
from tracker.core.queueing import queue_after_commit


def review_choices() -> list[tuple[str, str]]:
    """The decisions a reviewer can take: ``[(value, label)]`` of ReviewStatus."""
    return [(value, label) for value, label in ReviewStatus.choices]


def do_review_match(match: Match, decision: str, reason: str, acting_user) -> AuditEvent:
    """Set ``match``'s review status to ``decision`` and record who, when and why.

    Args:
        match: a Match the user may see (the caller has checked the scope).
        decision: one of the ReviewStatus values; "licensed" also whitelists the page's domain
            for the work's holder (``do_whitelist_domain``).
        reason: why (required, stripped).
        acting_user: the deciding user.

    Returns:
        The AuditEvent recorded (kind "review").

    Raises:
        ActionError: empty reason, unknown decision, or the match already has that status.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ActionError(_("Give a reason for the decision."))
    if decision not in ReviewStatus.values:
        raise ActionError(_("Unknown review status: %(status)s") % {"status": decision})
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=match.pk)
        if locked.review_status == decision:
            raise ActionError(_("The match is already “%(status)s”.") % {
                "status": locked.get_review_status_display()})
        old = locked.review_status
        locked.review_status = decision
        locked.save(update_fields=["review_status"])
        if decision == ReviewStatus.LICENSED:
            do_whitelist_domain(locked.work.holder, locked.domain, acting_user, reason)
        event = AuditEvent.record(kind=AuditEvent.Kind.REVIEW, user=acting_user,
                                  holder=locked.work.holder, target=locked, subject=locked.url,
                                  old_state=old, new_state=decision, reason=reason)
    match.review_status = decision
    return event


def do_review_matches(matches, decision: str, reason: str, acting_user) -> tuple[int, list[str]]:
    """Apply one decision to several matches, each in its own transaction
    (``do_review_match``).

    Returns:
        ``(number changed, [messages for the matches skipped and why])``.

    Raises:
        ActionError: empty reason or unknown decision (nothing is changed then).
    """
    if not (reason or "").strip():
        raise ActionError(_("Give a reason for the decision."))
    if decision not in ReviewStatus.values:
        raise ActionError(_("Unknown review status: %(status)s") % {"status": decision})
    changed, skipped = 0, []
    for match in matches:
        try:
            do_review_match(match, decision, reason, acting_user)
            changed += 1
        except ActionError as exc:
            skipped.append(f"#{match.pk}: {exc}")
    return changed, skipped


def do_whitelist_domain(holder, domain: str, acting_user, reason: str = "") -> WhitelistedDomain:
    """Whitelist ``domain`` for ``holder`` (idempotent): its pages never become matches of the
    holder's works again, and its open cases are dismissed with that reason
    (``crawler.cases.do_dismiss_whitelisted_cases``). A new entry is recorded in the audit
    trail with the acting user.

    Args:
        holder: the RightsHolder.
        domain: a host name (lower-cased, stripped of dots at either end when saved).
        acting_user: the user who decided, or None.
        reason: the note kept with the entry (first 500 characters) and in the trail.

    Returns:
        The whitelist entry (created or existing).
    """
    with transaction.atomic():
        entry, created = WhitelistedDomain.objects.get_or_create(
            holder=holder, domain=domain.strip().strip(".").lower(),
            defaults={"note": reason[:500]})
        if created:
            AuditEvent.record(kind=AuditEvent.Kind.WHITELIST, user=acting_user, holder=holder,
                              target=entry, subject=entry.domain, old_state="",
                              new_state="whitelisted", reason=reason)
            cases.do_dismiss_whitelisted_cases(entry, acting_user)
    return entry


def do_save_site(site: TargetSite, acting_user, changed: list[str] | None = None,
                 timing: schedule.Timing | None = None) -> TargetSite:
    """Create or update target site ``site`` (an unsaved or changed instance) and record it.

    Its beat task follows the saved site (``crawler.schedule``'s signals); ``timing`` sets
    when it runs.

    Args:
        site: the TargetSite with the wanted values.
        acting_user: the user who made the change, or None (a command, the demo).
        changed: names of the fields changed, for the trail ("created" for a new site).
        timing: the new schedule ("daily at 03:00", ...), or None to keep the current one;
            the trail records it as its crontab ("minute hour day-of-week", time zone).

    Returns:
        The saved site.
    """
    with transaction.atomic():
        new = site.pk is None
        site.save()
        reason = ", ".join(changed or [])
        if timing is not None:
            schedule.apply(site, timing)
            tab = timing.crontab()
            reason += (f"; crontab {tab['minute']} {tab['hour']} * * {tab['day_of_week']} "
                       f"{settings.TIME_ZONE}")
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None, target=site,
                          subject=site.name, old_state="" if new else "saved",
                          new_state="created" if new else "changed", reason=reason)
    return site


def do_set_site_enabled(site: TargetSite, enabled: bool, acting_user) -> TargetSite:
    """Enable or disable the scheduled scans of ``site`` and record who did it."""
    site.enabled = enabled
    return do_save_site(site, acting_user, ["enabled"])


def do_start_scan(site: TargetSite, *, acting_user=None, trigger: str = "command",
                  max_pages: int | None = None) -> ScanRun:
    """Start a scan of ``site`` and send its start URLs to the workers
    (``crawler.tasks.launch``) once the ScanRun row is committed; a person's start is recorded
    in the audit trail in the same transaction.

    Args:
        site: the TargetSite.
        acting_user: the user who asked for it, or None (schedule, command, demo).
        trigger: 'schedule', 'command', 'admin' or 'demo'.
        max_pages: this run's page limit instead of the site's.

    Returns:
        The ScanRun: 'running', 'skipped' (another scan of the site runs) or 'finished' at once
        (no crawlable start URL).

    Raises:
        ValueError: max_pages < 1.
    """
    with transaction.atomic():
        scan = launch(site, max_pages=max_pages, trigger=trigger)
        if acting_user is not None:
            AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None,
                              target=scan, subject=f"{site} #{scan.pk}", old_state="",
                              new_state=scan.status, reason=scan.note)
    return scan


def do_check_site(site: TargetSite, acting_user) -> int:
    """Queue a takedown check now (``crawler.check_matches``) of every confirmed match of
    ``site``: recorded for it, or on a host its allowed domains cover (subdomains included),
    whichever recorded it; recorded in the audit trail with the acting user.

    Returns:
        The number of matches queued for checking.

    Raises:
        ActionError: the site has no confirmed match to check.
    """
    hosts = [d.strip().strip(".").lower() for d in site.allowed_domains if d.strip().strip(".")]
    covered = Q(site=site)
    for host in hosts:
        covered |= Q(domain=host) | Q(domain__endswith="." + host)
    ids = list(Match.objects.filter(covered, review_status=ReviewStatus.CONFIRMED)
               .order_by("pk").values_list("pk", flat=True))
    if not ids:
        raise ActionError(_("%(site)s has no confirmed match to check.") % {"site": site})
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None, target=site,
                          subject=str(site), old_state="", new_state=CHECK_REQUESTED,
                          reason=notes.coded("site_check", gettext_noop(
                              "takedown check of %(count)s confirmed matches"), count=len(ids)))
        queue_after_commit("crawler.check_matches", ids)
    return len(ids)


def do_discover_sites(acting_user) -> None:
    """Queue a discovery pass now (``crawler.discover_sites``, as beat does daily), recorded in
    the audit trail with the acting user. Returns None."""
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                          subject="", old_state="", new_state=DISCOVERY_REQUESTED)
        queue_after_commit("crawler.discover_sites")


def do_cancel_scan(scan: ScanRun, acting_user) -> bool:
    """Cancel a running scan: it is closed as 'cancelled' at once and its queued URLs are
    dropped without fetching (``crawler.scans.cancel``). Recorded with the acting user.

    Returns:
        True when the scan was running (and is now being cancelled), False otherwise.
    """
    if scan.status != ScanStatus.RUNNING:
        return False
    note = notes.coded("scan_cancelled", gettext_noop("cancelled by %(user)s"),
                       user=str(acting_user))
    with transaction.atomic():
        if not scans.cancel(scan, note=note):
            return False
        AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None, target=scan,
                          subject=f"{scan.site} #{scan.pk}", old_state=ScanStatus.RUNNING,
                          new_state=ScanStatus.CANCELLED, reason=note)
    return True


def check_site_url(url: str) -> str:
    """Return ``url`` canonical, after the crawler's URL rules and SSRF guard (with its allow list).

    Raises:
        ActionError: not an http(s) URL, or its host is unresolvable or forbidden.
    """
    try:
        url = canonical_url((url or "").strip())
        check_url(url, parse_allow_list(scans.crawl_config().allow_addresses))
    except InvalidURL as exc:
        raise ActionError(_("Not a web address the crawler can visit: %(error)s") % {
            "error": exc}) from exc
    except RefusedAddress as exc:
        raise ActionError(_("This address may not be scanned (%(reason)s).") % {
            "reason": exc.reason}) from exc
    return url


def do_propose_site(holder, url: str, reason: str, acting_user) -> SiteProposal:
    """Record ``holder``'s proposal that the platform scan ``url``, and why.

    Args:
        holder: the proposing RightsHolder (the caller checked the user belongs to it).
        url: the site's start URL (str); checked by ``_checked_url``.
        reason: why (required).
        acting_user: the proposing user.

    Returns:
        The new SiteProposal ("proposed").

    Raises:
        ActionError: no reason, or a URL the crawler refuses.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ActionError(_("Say why this site should be scanned."))
    url = check_site_url(url)
    with transaction.atomic():
        proposal = SiteProposal.objects.create(holder=holder, proposed_by=acting_user, url=url,
                                               reason=reason)
        AuditEvent.record(kind=AuditEvent.Kind.PROPOSAL, user=acting_user, holder=holder,
                          target=proposal, subject=url, old_state="",
                          new_state=ProposalStatus.PROPOSED, reason=reason)
    return proposal


def _decide(proposal: SiteProposal, status: str, reason: str, acting_user,
            site: TargetSite | None = None) -> SiteProposal:
    proposal.status, proposal.decision_reason, proposal.site = status, reason, site
    proposal.decided_by, proposal.decided_at = acting_user, timezone.now()
    proposal.save()
    AuditEvent.record(kind=AuditEvent.Kind.PROPOSAL, user=acting_user, holder=proposal.holder,
                      target=proposal, subject=proposal.url,
                      old_state=ProposalStatus.PROPOSED, new_state=status, reason=reason)
    return proposal


def _locked_open(proposal: SiteProposal) -> SiteProposal:
    locked = SiteProposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.status != ProposalStatus.PROPOSED:
        raise ActionError(_("This proposal was already decided (%(status)s).") % {
            "status": locked.get_status_display()})
    return locked


def do_approve_site_proposal(proposal: SiteProposal, acting_user, reason: str = ""
                             ) -> SiteProposal:
    """Approve ``proposal``: create its TargetSite (``do_save_site``, named by the URL's host,
    daily scans) and record the decision.

    Returns:
        The proposal, "approved", with ``site`` set.

    Raises:
        ActionError: already decided, or the URL is refused now (its host's addresses changed).
    """
    url = check_site_url(proposal.url)
    with transaction.atomic():
        locked = _locked_open(proposal)
        name = host_of(url)
        if TargetSite.objects.filter(name=name).exists():
            name = f"{name} ({_('proposal')} {locked.pk})"
        site = do_save_site(TargetSite(name=name, start_urls=[url],
                                       notes=f"{locked.holder.name}: {locked.reason}"[:2000]),
                            acting_user, ["created"])
        return _decide(locked, ProposalStatus.APPROVED, (reason or "").strip(), acting_user,
                       site)


def do_reject_site_proposal(proposal: SiteProposal, acting_user, reason: str) -> SiteProposal:
    """Reject ``proposal`` with ``reason`` (required, shown to the holder) and record it.

    Raises:
        ActionError: no reason, or already decided.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ActionError(_("Say why the proposal is rejected."))
    with transaction.atomic():
        return _decide(_locked_open(proposal), ProposalStatus.REJECTED, reason, acting_user)


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
