"""Site proposals: a rights holder asks for a site to be scanned (its URL checked first),
staff approve it (a target site is made) or reject it with a reason. Atomic and audited."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import ActionError
from core.models import AuditEvent
from crawler import scans
from crawler.models import (
    ProposalStatus,
    SiteProposal,
    TargetSite,
)
from crawler.site_actions import do_save_site
from lib.crawl.canonical import InvalidURL, canonical_url, host_of
from lib.crawl.ssrf import RefusedAddress, check_url, parse_allow_list


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
