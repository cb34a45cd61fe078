"""Matching a stored page version with the registered works and recording the matches.

``match_version`` asks the fingerprint engine (``Engine.match``) for the works a page version
copies (``record_matches`` takes what the engine found instead), drops those whose rights
holder whitelisted the page's domain, and upserts one Match row per (page, work): a new row on first sight, else ``last_seen``, scores, passages and the cited
version are updated. The passages are stored cut at the work's chapter boundaries and the row
names the chapters copied (``core.chapters.attribute``) (first_seen and the review status stay). Works the page matched before but
no longer does keep their row, marked ``still_matching = False``: the evidence stays. Each
row belongs to the case of its work on the page's registered domain (``crawler.cases``).
An unchanged page is not matched again (``seen_again`` moves its matches' ``last_seen``) unless
works were indexed since it last was (``needs_rematch``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone

from core.chapters import attribute
from core.models import Work
from crawler import cases
from crawler.models import Match, ScanRun, SearchHit, TargetSite, WhitelistedDomain
from lib.crawl.domains import site_covering
from lib.crawl.pagestore import Page, PageVersion

# Sent after ``record_matches`` recorded matches of a page version: keyword arguments ``page``
# (Page), ``version`` (PageVersion), ``matches`` (list of the Match rows recorded for it, as
# written, each with its work and holder) and ``created`` (set of the ids of those first recorded
# now). Receivers: crawler.evidence (captures).
matches_recorded = Signal()

# Context managers entered around a crawl task's batch of pages (``batch_of_pages``), each made
# by a factory that an app above the crawler registers (``around_batches``), as it connects to
# matches_recorded: crawler.evidence sends the captures a batch requests as one message.
_around_batch: dict[str, Callable[[], AbstractContextManager]] = {}


def around_batches(uid: str, factory: Callable[[], AbstractContextManager]) -> None:
    """Enter ``factory()`` around every batch of pages (``batch_of_pages``) from now on;
    registered once per ``uid`` (a second registration replaces the first)."""
    _around_batch[uid] = factory


@contextlib.contextmanager
def batch_of_pages() -> Iterator[None]:
    """The block matches and records a batch of pages (a crawl task's URLs): the context
    managers registered with ``around_batches`` are entered around it, in registration order,
    and left when it ends (also when it raises)."""
    with contextlib.ExitStack() as stack:
        for factory in list(_around_batch.values()):
            stack.enter_context(factory())
        yield


@dataclass(frozen=True)
class MatchReport:
    """What ``match_version`` recorded: ``found`` (matches recorded for this version), ``new``
    (of those, new rows), ``whitelisted`` (engine matches dropped by a whitelist), ``dropped``
    (earlier matches of the page marked no longer matching)."""

    found: int
    new: int
    whitelisted: int
    dropped: int


def whitelisted(domain: str, holder_ids) -> set[int]:
    """Ids of the holders among ``holder_ids`` that whitelisted ``domain`` (str host) or a
    parent domain of it (a whitelist of example.com covers news.example.com)."""
    parts = domain.lower().strip(".").split(".")
    candidates = {".".join(parts[i:]) for i in range(len(parts))}
    return set(WhitelistedDomain.objects.filter(holder_id__in=list(holder_ids), domain__in=candidates)
               .values_list("holder_id", flat=True))


def match_version(engine, page: Page, version: PageVersion, scan: ScanRun | None,
                  only_works: set[str] | None = None) -> MatchReport:
    """Match ``version`` (with its ``text``) of ``page`` with every registered work through
    ``engine`` (a fingerprint.Engine) and record the results for ``scan``.

    ``only_works`` (engine work ids): record only the matches of these works and leave the
    page's other rows alone (a stored page searched for new works, crawler.rematch); the match
    itself still runs against every work, so scores are the ones a crawl would give.

    Returns a MatchReport. Raises the engine's storage errors (the calling task retries).
    """
    return record_matches(page, version, scan, engine.match(version.text), only_works)


def record_matches(page: Page, version: PageVersion,
                   scan: ScanRun | Callable[[], ScanRun | None] | None, found: list,
                   only_works: set[str] | None = None) -> MatchReport:
    """Record ``found`` (list of fingerprint.Match, what the engine found in ``version``'s
    text) for ``version`` of ``page`` and ``scan``, as ``match_version`` does; for a caller
    that ran the engine itself (``Engine.match_with_keys``, crawler.tasks.match_page).
    ``scan`` may be a callable returning the ScanRun, called only when there is a match to
    record. One transaction per page with matches (one commit, whatever their number).
    Returns a MatchReport."""
    if not found:  # the common case: nothing to write unless the page matched before
        return _record(page, version, scan, found, only_works)
    with transaction.atomic():
        return _record(page, version, scan, found, only_works)


def _record(page: Page, version: PageVersion, scan, found: list,
            only_works: set[str] | None) -> MatchReport:
    if only_works is not None:
        found = [m for m in found if m.work_id in only_works]
    named = {w for m in found for w in (m.work_id, *m.same_text, *m.part_of, *m.parts)}
    works = {str(w.uid): w for w in Work.objects.select_related("holder")
             .filter(uid__in=named)} if found else {}
    allowed_out = whitelisted(page.domain, {w.holder_id for w in works.values()}) if works else set()
    if callable(scan):
        scan = scan() if any(m.work_id in works for m in found) else None
    work_pks = [works[m.work_id].pk for m in found if m.work_id in works]
    known_cases = cases.cases_on(work_pks, page.domain) if work_pks else {}
    # one read for the page's rows of these works (updated below) and its rows still matching
    # (those of other works are no longer matched); most pages have neither
    rows = list(Match.objects.filter(Q(work_id__in=work_pks) | Q(still_matching=True), page_id=page.id)
                .values_list("pk", "work_id", "still_matching", "work__uid"))
    known_rows = {work_id: pk for pk, work_id, _, _ in rows}
    site_id = page_site(page) if scan is None and works else None
    now, kept, recorded, created, skipped = timezone.now(), [], [], set(), 0
    for m in found:
        work = works.get(m.work_id)
        if work is None:  # indexed in the engine but deleted from the registry
            continue
        if work.holder_id in allowed_out:
            skipped += 1
            continue
        case = known_cases.get(work.pk)
        opened = False
        if case is None:  # read missing above, and the holder's whitelist does not cover the page
            case, opened = cases.open_missing_case(work, page.domain, scan, whitelist_checked=True)
        fields = _match_fields(m, works, page, version, scan, site_id, case, now)
        row, is_new = _upsert(page.id, work, fields, scan, now, known_rows.get(work.pk))
        if is_new:
            created.add(row.pk)
        if not opened:
            cases.do_note_page_found(case, page.canonical_url)
        kept.append(work.pk)
        recorded.append(row)
    stale = [pk for pk, work_id, matching, uid in rows if matching and work_id not in kept
             and (only_works is None or str(uid) in only_works)]
    dropped = Match.objects.filter(pk__in=stale, still_matching=True).update(
        still_matching=False) if stale else 0
    if created:
        _tie_search_hits(page.canonical_url, [r for r in recorded if r.pk in created])
    if kept:
        matches_recorded.send(sender=Match, page=page, version=version, matches=recorded,
                              created=created)
    return MatchReport(len(kept), len(created), skipped, dropped)


def _match_fields(m, works: dict, page: Page, version: PageVersion, scan, site_id, case,
                  now) -> dict:
    """The fields of the Match row of engine match ``m`` (its work in ``works``: uid -> Work)
    on ``page`` as of ``version``, in ``case``, seen ``now``: its passages attributed to the
    work's chapters, and the registered works it is the same text as, part of or holds (their
    primary keys). ``scan`` None (a stored page searched again): the site is ``site_id`` and
    the row's last scan is left as it was (no ``last_scan`` field)."""
    chapters = attribute(works[m.work_id].sections or [], m.passages)
    fields = {"case": case, "version_id": version.id, "url": page.canonical_url, "part_of": page.part_of,
              "domain": page.domain, "title": (version.title or "")[:500],
              "site_id": scan.site_id if scan else site_id, "last_scan": scan, "score": m.score,
              "containment_page": m.containment_page, "containment_work": m.containment_work,
              "passages": [p.to_dict() for p in chapters.passages],
              "section": chapters.label[:500],
              "same_text": sorted(works[w].pk for w in m.same_text
                                  if w != m.work_id and w in works),
              "part_of_works": sorted(works[w].pk for w in m.part_of if w in works),
              "part_works": sorted(works[w].pk for w in m.parts if w in works),
              "last_seen": now, "still_matching": True, "kind": m.kind}
    if scan is None:
        del fields["last_scan"]
    return fields


def _tie_search_hits(url: str, rows: list[Match]) -> None:
    """Tie to each new match of ``rows`` (on the page of canonical URL ``url``) the web search
    results that led to the page before it matched: results on a target site, which search
    discovery leaves to the site's scans (``crawler.search_discovery``), for the match's work;
    the match then lists the search among the ways it was found (``crawler.provenance``)."""
    for row in rows:
        SearchHit.objects.filter(match=None, url=url, outcome="target_site",
                                 query__work_id=row.work_id).update(match=row)


def page_site(page: Page) -> int | None:
    """The TargetSite id of ``page`` when no scan names it (a stored page searched for new
    works): the site that stored it when it is still registered, else the site whose allowed
    domains cover its host (``lib.crawl.domains.site_covering``), else None."""
    sites = dict(TargetSite.objects.values_list("pk", "allowed_domains"))
    if page.site_id in sites:
        return page.site_id
    return site_covering(page.domain, sites)


def seen_again(page_id: str, scan: ScanRun | None) -> int:
    """An unchanged page was visited again: its current matches are still true, so their
    ``last_seen`` (and ``last_scan``) move to now. Returns the number of matches touched."""
    return Match.objects.filter(page_id=page_id, still_matching=True).update(
        last_seen=timezone.now(), last_scan=scan)


def needs_rematch(page: Page) -> bool:
    """True when an unchanged ``page`` must be matched again anyway: it never was, or works
    were indexed after its last matching (they could be in it)."""
    matched_at = page.matched_at
    if matched_at is None or page.matched_version != page.version_id:
        return True
    if timezone.is_naive(matched_at):  # a MongoClient without tz_aware returns naive UTC
        matched_at = matched_at.replace(tzinfo=UTC)
    return Work.objects.filter(indexed_at__gt=matched_at).exists()


def _upsert(page_id: str, work: Work, fields: dict, scan, now,
            known: int | None) -> tuple[Match, bool]:
    """Insert or update the (page, work) row, ``known``: its pk when the page's rows were read
    before (None: not there then). Returns (row, created): the row holds ``fields`` and
    ``work`` but, when updated, not the fields kept (first seen, review status). Two workers
    racing on one pair meet the unique constraint: the loser updates the winner's row."""
    if known is not None and Match.objects.filter(pk=known).update(**fields):
        return Match(pk=known, page_id=page_id, work=work, **fields), False
    for _ in range(2):
        try:
            with transaction.atomic():
                row = Match.objects.create(page_id=page_id, work=work, first_seen=now,
                                           first_scan=scan, **fields)
            return row, True
        except IntegrityError:
            rows = Match.objects.filter(page_id=page_id, work=work)
            pk = rows.values_list("pk", flat=True).first()
            if pk is not None and rows.update(**fields):
                return Match(pk=pk, page_id=page_id, work=work, **fields), False
    raise IntegrityError(f"could not record the match of page {page_id} and work {work.pk}")
