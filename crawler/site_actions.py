"""Target sites: saved, enabled or paused, and their takedown checks asked for now. Atomic,
audited, follow-ups queued on commit (as every ``do_<verb>_<noun>``)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import notes
from core.errors import ActionError
from core.models import AuditEvent
from core.models.audit import CHECK_REQUESTED
from core.queueing import queue_after_commit
from crawler import schedule
from crawler.models import (
    Match,
    ReviewStatus,
    TargetSite,
)


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
