"""Cases: opening them as pages are matched, and the moves the platform makes by itself.

``open_case`` finds or opens the case of a matched page (worker-side bookkeeping, called by
``crawler.matching`` when it records a page). The automatic moves are actions like any other,
each atomic and audited (kind "case", no acting person unless one caused it):

- ``do_dismiss_whitelisted_cases``: a whitelisted domain dismisses its open cases, with that reason;
- ``do_note_notice_sent``: a notice citing a case's pages was sent -> notice sent;
- ``do_note_case_check``: a takedown check changed a page: no page left standing -> removed, a
  page found again after its notice -> still up, a removed page back -> reopened;
- ``do_note_page_found``: a page of a removed case's work found on its site again -> reopened.

A person's decisions (confirm, dismiss, reopen) are in ``crawler.case_actions``.
``found_cases`` names the cases a scan or a stored-page search opened or grew (``Finding``),
which the alerts tell of.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent
from crawler.models import Case, CaseState, CheckOutcome, Match, SiteContact, WhitelistedDomain
from lib.crawl.domains import registered_domain

#: The states a case may be dismissed from by a whitelist entry, or moved to "notice sent" from.
DISMISSABLE = (CaseState.NEW, CaseState.CONFIRMED, CaseState.REOPENED, CaseState.STILL_UP,
               CaseState.NOTICE_SENT)
NOTICEABLE = (CaseState.NEW, CaseState.CONFIRMED, CaseState.REOPENED, CaseState.STILL_UP)


def with_page_counts(queryset: QuerySet) -> QuerySet:
    """``queryset`` (of Case) annotated ``page_total`` (int, its pages) and
    ``standing_total`` (int, those still matching). Subqueries, not joins: a caller may still
    group the rows (``values(...).annotate(Count("pk"))``) and count cases, not pages."""
    pages = Match.objects.filter(case=OuterRef("pk")).order_by().values("case")
    return queryset.annotate(
        page_total=Coalesce(Subquery(pages.annotate(n=Count("pk")).values("n")), 0),
        standing_total=Coalesce(Subquery(pages.filter(still_matching=True)
                                         .annotate(n=Count("pk")).values("n")), 0))


def move(case: Case, new_state: str, acting_user, reason: str = "", **dates) -> AuditEvent:
    """Move ``case`` (locked by the caller's transaction or not) to ``new_state`` with
    ``reason`` (str: a coded note or a person's text), set the date fields in ``dates``
    (field name -> datetime) and append the move to the audit trail. Call inside
    ``transaction.atomic``. Returns the AuditEvent."""
    old = case.state
    now = timezone.now()
    case.state, case.state_reason, case.state_changed_at = new_state, reason, now
    for name, value in dates.items():
        setattr(case, name, value)
    case.save(update_fields=["state", "state_reason", "state_changed_at", *dates])
    return AuditEvent.record(kind=AuditEvent.Kind.CASE, user=acting_user,
                             holder=case.work.holder, target=case, subject=str(case),
                             old_state=old, new_state=new_state, reason=reason)


def _locked(case_id: int) -> Case:
    return Case.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=case_id)


def _covering_entry(holder_id: int, domain: str) -> WhitelistedDomain | None:
    """The holder's whitelist entry covering registered ``domain`` (itself or a parent)."""
    parts = domain.split(".")
    parents = [".".join(parts[i:]) for i in range(len(parts))]
    return WhitelistedDomain.objects.filter(holder_id=holder_id, domain__in=parents).first()


def _whitelisted_reason(entry: WhitelistedDomain) -> str:
    return notes.coded("case_whitelisted", gettext_noop("the domain %(domain)s is whitelisted"),
                       domain=entry.domain)


def cases_on(work_ids, host: str) -> dict[int, Case]:
    """The existing cases of the works ``work_ids`` (Work pks) on the registered domain of
    ``host`` (str), by work pk, in one query (a page's matches open theirs with ``open_case``
    only when missing)."""
    return {c.work_id: c for c in Case.objects.filter(work_id__in=list(work_ids),
                                                     domain=registered_domain(host))}


def open_case(work, host: str, scan=None) -> tuple[Case, bool]:
    """The case of ``work`` (a Work with its holder) on the registered domain of ``host``
    (str), found or opened; ``scan``: the ScanRun that found the page, or None.

    A new case starts "new" (audited with no acting person) and is dismissed at once when the
    holder whitelisted its domain. Two workers opening one case meet the unique constraint:
    the loser takes the winner's row. Returns ``(case, opened)``.
    """
    case = Case.objects.filter(work=work, domain=registered_domain(host)).first()
    if case is not None:
        return case, False
    return open_missing_case(work, host, scan, whitelist_checked=False)


def open_missing_case(work, host: str, scan=None, *, whitelist_checked: bool) -> tuple[Case, bool]:
    """``open_case`` for a caller that read the case missing already (``cases_on``), and
    that found no whitelist entry of the holder covering ``host`` or a parent domain of it
    when ``whitelist_checked`` (``crawler.matching.whitelisted``): two reads fewer per case
    opened. Returns ``(case, opened)``, ``opened`` False when a racing worker opened it."""
    domain = registered_domain(host)
    try:
        with transaction.atomic():
            case = Case.objects.create(work=work, domain=domain, first_scan=scan)
            SiteContact.objects.get_or_create(domain=domain)  # listed as needing a contact
            AuditEvent.record(kind=AuditEvent.Kind.CASE, user=None, holder=work.holder,
                              target=case, subject=str(case), old_state="",
                              new_state=CaseState.NEW, reason=notes.coded(
                                  "case_opened", gettext_noop("first page on %(host)s"),
                                  host=host))
            entry = None if whitelist_checked else _covering_entry(work.holder_id, domain)
            if entry is not None:
                move(case, CaseState.DISMISSED, None, _whitelisted_reason(entry))
    except IntegrityError:
        return Case.objects.get(work=work, domain=domain), False
    return case, True


def _covers(entry_domain: str, host: str) -> bool:
    return host == entry_domain or host.endswith("." + entry_domain)


def do_dismiss_whitelisted_cases(entry: WhitelistedDomain, acting_user=None) -> int:
    """Dismiss the open cases of ``entry.holder`` that ``entry.domain`` whitelists: those whose
    registered domain it covers (the domain itself or a parent of it), and those on a parent
    domain of it all of whose pages are on hosts it covers; the whitelist is the reason.
    Returns the number of cases dismissed."""
    domain = entry.domain
    parts = domain.split(".")
    open_cases = Case.objects.filter(work__holder_id=entry.holder_id, state__in=DISMISSABLE)
    candidates = (open_cases.filter(domain__iregex=r"(^|\.)" + domain.replace(".", r"\.") + "$")
                  | open_cases.filter(domain__in=[".".join(parts[i:]) for i in range(len(parts))]))
    dismissed = 0
    with transaction.atomic():
        for case_id in candidates.values_list("pk", flat=True):
            case = _locked(case_id)
            hosts = set(case.pages.values_list("domain", flat=True))
            if case.state in DISMISSABLE and (_covers(domain, case.domain) or all(
                    _covers(domain, host) for host in hosts)):
                move(case, CaseState.DISMISSED, acting_user, _whitelisted_reason(entry))
                dismissed += 1
    return dismissed


def do_note_notice_sent(matches, acting_user, notice_name: str) -> int:
    """A notice (``notice_name``: its name, e.g. "Notice #3 to example.com", or a coded note
    of it read in each reader's language) citing
    ``matches`` (iterable of Match) was sent: their cases still being worked move to "notice
    sent", dated now. Returns the number of cases moved."""
    case_ids = {m.case_id for m in matches if m.case_id}
    moved = 0
    with transaction.atomic():
        for case_id in sorted(case_ids):
            case = _locked(case_id)
            if case.state in NOTICEABLE:
                move(case, CaseState.NOTICE_SENT, acting_user, notes.coded(
                    "case_notice_sent", gettext_noop("%(notice)s sent"), notice=notice_name),
                    notice_sent_at=timezone.now())
                moved += 1
    return moved


def _standing(case: Case) -> bool:
    return case.pages.filter(still_matching=True).exists()


def do_note_case_check(match: Match, check, change: str) -> str:
    """Apply a takedown ``check`` (a TakedownCheck) of ``match`` to its case; ``change`` is
    what it did to the match ("removed", "reopened" or ""). A case with no page left standing
    becomes "removed"; a removed case whose page is back "reopened"; a case whose notice was
    sent and whose page is still there "still up". Returns the case's new state, or "" when it
    did not move."""
    if match.case_id is None:
        return ""
    with transaction.atomic():
        case = _locked(match.case_id)
        reason = notes.coded("case_check", gettext_noop(
            "takedown check #%(check)s of %(url)s: %(outcome)s"), check=check.pk, url=match.url,
            outcome=check.outcome)
        if change == "removed" and case.state != CaseState.DISMISSED and not _standing(case):
            if case.state == CaseState.REMOVED:
                return ""
            move(case, CaseState.REMOVED, None, reason, removed_at=timezone.now())
            return CaseState.REMOVED
        if change == "reopened" and case.state == CaseState.REMOVED:
            move(case, CaseState.REOPENED, None, reason)
            return CaseState.REOPENED
        if (check.outcome in (CheckOutcome.PRESENT, CheckOutcome.CHANGED)
                and case.state == CaseState.NOTICE_SENT):
            move(case, CaseState.STILL_UP, None, reason)
            return CaseState.STILL_UP
    return ""


def do_note_page_found(case: Case, url: str) -> bool:
    """A page (``url``) was recorded copying the work of ``case``, new or matching again: a
    removed case reopens. Returns True when the case moved."""
    if case.state != CaseState.REMOVED:
        return False
    with transaction.atomic():
        locked = _locked(case.pk)
        if locked.state != CaseState.REMOVED:
            return False
        move(locked, CaseState.REOPENED, None, notes.coded(
            "case_page_found", gettext_noop("a page copies the work again: %(url)s"), url=url))
    case.refresh_from_db()
    return True


@dataclass(frozen=True)
class Finding:
    """What first recorded a set of pages, a scan or a stored-page search, as filters:
    ``pages`` (Match field lookup -> value: the pages it first recorded) and ``opened`` (Case
    field lookup -> value: the cases it opened)."""

    pages: dict
    opened: dict


def scan_finding(scan_id: int) -> Finding:
    """The pages and cases scan ``scan_id`` first recorded."""
    return Finding({"first_scan_id": scan_id}, {"first_scan_id": scan_id})


def search_finding(job) -> Finding:
    """The pages and cases stored-page search ``job`` (a closed RematchJob) first recorded:
    those of its works recorded without a scan while it ran (a search records only its works'
    matches; a crawl's have their scan)."""
    works = list(job.works.values_list("pk", flat=True))
    end = job.finished_at or timezone.now()
    return Finding({"first_scan__isnull": True, "work_id__in": works,
                    "first_seen__range": (job.started_at, end)},
                   {"first_scan__isnull": True, "work_id__in": works,
                    "opened_at__range": (job.started_at, end)})


def found_cases(finding: Finding) -> QuerySet:
    """The cases whose pages ``finding`` first recorded (it opened or grew them), dismissed ones
    left out, each with its work and holder and annotated ``new_pages`` (int, its pages first
    recorded by it), ``best_score`` (float 0..1, their best score), ``opened`` (bool: it opened
    the case) and the page counts of ``with_page_counts``."""
    found = Q(**{f"pages__{lookup}": value for lookup, value in finding.pages.items()})
    return with_page_counts(
        Case.objects.filter(found).exclude(state=CaseState.DISMISSED).distinct()
        .select_related("work", "work__holder")
        .annotate(new_pages=Count("pages", filter=found),
                  best_score=Max("pages__score", filter=found),
                  opened=ExpressionWrapper(Q(**finding.opened), output_field=BooleanField()))
        .order_by("work__title", "domain"))
