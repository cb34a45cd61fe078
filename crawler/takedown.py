"""Takedown verification: is a matched page still there?

``verify_match`` fetches a match's URL with the crawler's own machinery (the process's
``lib.crawl.pipeline.Crawler``: robots.txt cache, politeness slots per host, the Fetcher and its
SSRF guard), extracts the text the way a crawl does (``lib.text``) and matches it with the
engine again. ``record_check`` stores the outcome as a TakedownCheck (time, HTTP status, text
hash) and applies it: a removed page's match stops "still matching", a removed page that comes
back is reopened; both are written to the audit trail (kind "notice": takedown evidence) and
announced by the ``takedown_changed`` signal (receivers: alerts; dashboard.signals reopens
notices); the page's case follows (``crawler.cases.do_note_case_check``). A regular scan that meets a
matched URL answering 404 or 410 records the same check (``record_gone``), and one that finds
a removed page back with its matched text reopens it (``record_back``).

Outcomes (CheckOutcome): removed = HTTP 404 or 410, or the page's text no longer matches the
work (the engine finds no copy); present = the matched work still found and the text is the
matched version's; changed = still copying, with another text; unreachable = no page read
(timeout, other HTTP errors, robots.txt, SSRF guard: nothing is changed).
"""

from __future__ import annotations

import hashlib
import time

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent
from crawler import cases, scans
from crawler.models import CheckOutcome, Match, ScanRun, TakedownCheck
from lib.crawl.canonical import host_of
from lib.crawl.outcomes import Outcome
from lib.text import decode_bytes, extract_document

# Sent after a check changed a match: keyword arguments ``match`` (Match), ``check``
# (TakedownCheck) and ``change`` ("removed": the copy is gone; "reopened": it came back).
takedown_changed = Signal()
# Sent after ``verify_match`` (or a scan, ``record_gone``) recorded a check that fetched the page: keyword arguments ``match``,
# ``check`` (TakedownCheck) and ``exchange`` (lib.crawl.exchange.Exchange, the check's raw HTTP
# exchange). Receivers: crawler.evidence (proof of removal).
takedown_checked = Signal()

GONE_STATUSES = (404, 410)


def text_sha256(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def polite_slot(crawler, url: str, delay_seconds: float) -> None:
    """Wait (sleeping, in this worker) for the next politeness slot of ``url``'s host: the
    same Redis slots a scan uses; ``delay_seconds`` between two fetches from the host."""
    while True:
        grant = crawler.politeness.acquire(host_of(url), delay_seconds)
        if grant.wait <= 0:
            return
        time.sleep(grant.wait)
        if grant.reserved:
            return


def verify_match(match: Match, engine) -> TakedownCheck:
    """Fetch ``match.url`` now and record what is there (``record_check``).

    Args:
        match: the Match to check.
        engine: the platform's fingerprint.Engine (``core.engine.get_engine()``).

    Returns:
        The TakedownCheck recorded.

    Raises:
        The engine's and Redis's storage errors (the calling task retries).
    """
    crawler = scans.get_crawler()
    url = match.url
    accept = bool(match.site and match.site.accept_invalid_certificate)
    policy = crawler.robots.policy(url, accept)
    if not policy.allowed(url):
        return record_check(match, CheckOutcome.UNREACHABLE, None, "", notes.coded(
            "check_robots", gettext_noop("robots.txt forbids it (%(reason)s)"),
            reason=str(policy.reason)[:300]))
    delay = crawler.config.default_delay_seconds
    if match.site is not None and match.site.delay_seconds is not None:
        delay = match.site.delay_seconds
    polite_slot(crawler, url, max(delay, policy.crawl_delay or 0.0))
    result = crawler.fetcher.fetch(url, accept_invalid_certificate=accept)
    check = _check_answer(match, engine, crawler, result)
    if result.exchange.hops:
        takedown_checked.send(sender=TakedownCheck, match=match, check=check,
                              exchange=result.exchange)
    return check


def _check_answer(match: Match, engine, crawler, result) -> TakedownCheck:
    """Record what the fetch ``result`` of ``match.url`` found (``verify_match``)."""
    if result.status in GONE_STATUSES:
        return record_check(match, CheckOutcome.REMOVED, result.status, "", f"HTTP {result.status}")
    if result.outcome is not Outcome.OK:
        return record_check(match, CheckOutcome.UNREACHABLE, result.status, "",
                            f"{result.outcome.value}: {result.reason}"[:500])
    decoded = decode_bytes(result.body, result.headers.get("content-type"))
    text = extract_document(decoded.text, result.kind, result.final_url).text
    digest = text_sha256(text)
    found = {m.work_id for m in engine.match(text)} if text else set()
    if str(match.work.uid) not in found:
        return record_check(match, CheckOutcome.REMOVED, result.status, digest,
                            notes.coded("check_passages_gone", gettext_noop(
                                "the page no longer contains the matched passages")))
    version = crawler.pages.version(match.version_id)
    same = version is not None and text_sha256(version.text or "") == digest
    return record_check(match, CheckOutcome.PRESENT if same else CheckOutcome.CHANGED,
                        result.status, digest, "")


def record_check(match: Match, outcome: str, http_status: int | None, digest: str, note: str,
                 scan: ScanRun | None = None) -> TakedownCheck:
    """Store one check of ``match`` and apply it: 'removed' sets ``still_matching`` False; a
    'present' or 'changed' page of a match no longer matching since a removal is reopened
    (``still_matching`` True, ``last_seen`` now; a removal leaves ``last_seen``). Each change
    is audited (no acting person: the checker) and sent as ``takedown_changed`` after commit.

    Args:
        match: the Match checked.
        outcome: a CheckOutcome value.
        http_status: the HTTP status answered, or None.
        digest: hex SHA-256 of the page's text, or "".
        note: why (at most 500 characters are kept).
        scan: the scan that met the URL, or None.

    Returns:
        The TakedownCheck.
    """
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=match.pk)
        was_removed = (not locked.still_matching and locked.takedown_checks.order_by(
            "-checked_at", "-id").values_list("outcome", flat=True).first() == CheckOutcome.REMOVED)
        check = TakedownCheck.objects.create(match=locked, outcome=outcome, http_status=http_status,
                                             text_sha256=digest, scan=scan, note=note[:500])
        change = ""
        if outcome == CheckOutcome.REMOVED and locked.still_matching:
            change, old, new = "removed", "still matching", "removed"
        elif outcome in (CheckOutcome.PRESENT, CheckOutcome.CHANGED) and was_removed:
            change, old, new = "reopened", "removed", "still matching"
        if change:
            seen = {"last_seen": timezone.now()} if change == "reopened" else {}
            # a removal keeps the last time the copy was seen: the check saw no copy
            Match.objects.filter(pk=locked.pk).update(still_matching=change == "reopened", **seen)
            AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=None, holder=locked.work.holder,
                              target=locked, subject=f"{locked.url} ({locked.work})",
                              old_state=old, new_state=new, reason=_check_reason(check))
            transaction.on_commit(lambda: takedown_changed.send(
                sender=TakedownCheck, match=Match.objects.get(pk=locked.pk), check=check,
                change=change))
        cases.do_note_case_check(locked, check, change)
    match.refresh_from_db()
    return check


def _check_reason(check: TakedownCheck) -> str:
    """The audit reason (a coded note, ``core.notes``) of ``check`` changing its match:
    the check's id, time (shown in the reader's zone), outcome in words, HTTP status, text
    digest and its own note."""
    status = (f"HTTP {check.http_status}" if check.http_status
              else notes.coded("no_answer", gettext_noop("no answer")))
    params = {"check": check.pk, "time": notes.moment(check.checked_at),
              "outcome": outcome_note(check.outcome), "status": status,
              "digest": check.text_sha256[:12] or "-"}
    if check.note:
        return notes.coded("takedown_check_note", gettext_noop(
            "takedown check #%(check)s at %(time)s: %(outcome)s, %(status)s, text SHA-256 "
            "%(digest)s; %(note)s"), note=check.note, **params)
    return notes.coded("takedown_check", gettext_noop(
        "takedown check #%(check)s at %(time)s: %(outcome)s, %(status)s, text SHA-256 "
        "%(digest)s"), **params)


def outcome_note(outcome: str) -> str:
    """A CheckOutcome value as a coded note: its label, in words of the reader's language."""
    with translation.override("en"):
        return notes.coded("check_outcome", str(CheckOutcome(outcome).label))


def record_gone(scan_id: int, url: str, http_status: int | None, exchange=None) -> int:
    """A scan met canonical ``url`` answering ``http_status``: when it is 404 or 410, record a
    'removed' check of every match still standing at that URL and, with the scan's raw
    ``exchange`` (lib.crawl.exchange.Exchange), send ``takedown_checked`` for each (proof of
    removal). Returns the checks recorded."""
    if http_status not in GONE_STATUSES:
        return 0
    matches = list(Match.objects.filter(domain=host_of(url), url=url, still_matching=True))
    scan = ScanRun.objects.filter(pk=scan_id).first()
    for match in matches:
        check = record_check(match, CheckOutcome.REMOVED, http_status, "", notes.coded(
            "check_gone_in_scan", gettext_noop("HTTP %(status)s in a scan"), status=http_status),
            scan=scan)
        if exchange is not None and exchange.hops:
            takedown_checked.send(sender=TakedownCheck, match=match, check=check, exchange=exchange)
    return len(matches)


def record_back(page_id: str, scan_id: int, http_status: int | None, digest: str) -> int:
    """A scan found the stored page ``page_id`` again with the same text (unchanged): each of
    its matches removed by a takedown check is reopened (``record_check`` 'present').
    Returns the checks recorded."""
    removed = list(Match.objects.filter(page_id=page_id, still_matching=False,
                                        takedown_checks__isnull=False).distinct())
    scan = ScanRun.objects.filter(pk=scan_id).first() if removed else None
    for match in removed:
        record_check(match, CheckOutcome.PRESENT, http_status, digest,
                     notes.coded("check_back", gettext_noop(
                         "the same text is back (found in a scan)")), scan=scan)
    return len(removed)
