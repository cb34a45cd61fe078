"""The crawler app's actions: every change of a target site, scan, match review or whitelisted
domain goes through one ``do_<verb>_<noun>`` function here (the admin, Celery tasks, management
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
from django.utils.translation import gettext as _

from crawler import scans, schedule
from crawler.models import Match, ReviewStatus, ScanRun, ScanStatus, TargetSite, WhitelistedDomain
from tracker.core.errors import ActionError
from tracker.core.models import AuditEvent


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
        locked = Match.objects.select_for_update().select_related("work__holder").get(pk=match.pk)
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
    holder's works again. A new entry is recorded in the audit trail with the acting user.

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
    (``crawler.tasks.launch``); a person's start is recorded in the audit trail.

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
    from crawler.tasks import launch  # the tasks module imports this one

    scan = launch(site, max_pages=max_pages, trigger=trigger)
    if acting_user is not None:
        AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None, target=scan,
                          subject=f"{site} #{scan.pk}", old_state="", new_state=scan.status,
                          reason=scan.note)
    return scan


def do_cancel_scan(scan: ScanRun, acting_user) -> bool:
    """Cancel a running scan: it is closed as 'cancelled' at once and its queued URLs are
    dropped without fetching (``crawler.scans.cancel``). Recorded with the acting user.

    Returns:
        True when the scan was running (and is now being cancelled), False otherwise.
    """
    if scan.status != ScanStatus.RUNNING:
        return False
    if not scans.cancel(scan, note=f"cancelled by {acting_user}"):
        return False
    AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None, target=scan,
                      subject=f"{scan.site} #{scan.pk}", old_state=ScanStatus.RUNNING,
                      new_state=ScanStatus.CANCELLED)
    return True
