"""Discovery of candidate sites: the domains that matched pages, and the pages of sites with
confirmed matches, link to (mirrors, 友情链接, "最新网址" notices), sampled to see whether they
copy registered works too.

One pass (``discover``, the beat task ``crawler.discover_sites``):

1. Count, over the source pages' stored outlinks, the links to each domain that is not a target
   site's (nor the source page's own domain): ``CandidateSite.link_count``, ``linked_from`` (up to
   ``DISCOVERY_LINKED_FROM_KEPT`` source pages) and the linked pages there (``sample_urls``). Domains
   linked fewer than ``settings.DISCOVERY_MIN_LINKS`` times are left out.
2. Sample the candidates not sampled yet, most linked first, at most
   ``settings.DISCOVERY_MAX_SAMPLED`` per pass: up to ``settings.DISCOVERY_SAMPLE_PAGES`` of
   their linked pages are fetched like a crawl's (robots.txt, the host's politeness slot, the
   SSRF guard and fetch limits of the process's Crawler), their text extracted and matched with
   the registered works; nothing is recorded as a Match (the site is not a target yet).
3. A candidate whose sample copies a work (not whitelisted for the work's holder there) is
   ``proposed``, else ``no_match``; one none of whose pages could be read (SSRF guard,
   robots.txt, download errors) stays ``new`` for the next passes, least tried first, and is
   ``unreadable`` after ``settings.DISCOVERY_SAMPLE_ATTEMPTS`` such passes. Dismissed and
   promoted candidates are never changed again.

Staff promote a candidate to a target site or dismiss it (crawler.candidate_actions); rights holders see
the candidates whose samples copy their works.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.models import Work
from crawler import labels, matching
from crawler.models import CandidateSite, CandidateStatus, Match, ReviewStatus, TargetSite
from lib.crawl.canonical import host_of, in_domains
from lib.crawl.outcomes import Outcome
from lib.text import Extracted, decode_bytes, extract_document

_SETTLED = (CandidateStatus.PROMOTED, CandidateStatus.DISMISSED)


@dataclass
class Evidence:
    """Links to one domain: ``count`` links, from the ``sources`` pages, to the ``targets``
    pages on it (canonical URLs, in the order first seen)."""

    count: int = 0
    sources: dict[str, None] = field(default_factory=dict)
    targets: dict[str, None] = field(default_factory=dict)


def source_pages() -> tuple[list[str], list[int]]:
    """The pages discovery reads: (page ids of every match not judged a false positive, ids of
    the target sites with a confirmed match, whose every stored page counts)."""
    matches = Match.objects.exclude(review_status=ReviewStatus.FALSE_POSITIVE)
    page_ids = list(matches.values_list("page_id", flat=True).distinct())
    site_ids = list(matches.filter(review_status=ReviewStatus.CONFIRMED, site__isnull=False)
                    .values_list("site_id", flat=True).distinct())
    return page_ids, site_ids


def count_links(outlinks, known_domains: list[str]) -> dict[str, Evidence]:
    """Links per domain. ``outlinks``: iterable of (source page URL, [canonical outlinks]);
    links to ``known_domains`` (target sites' domains, subdomains included) and to the source
    page's own host are not counted. Returns {domain: Evidence}."""
    found: dict[str, Evidence] = defaultdict(Evidence)
    for source, links in outlinks:
        own = host_of(source)
        for link in links:
            domain = host_of(link)
            if not domain or domain == own or in_domains(link, known_domains):
                continue
            evidence = found[domain]
            evidence.count += 1
            evidence.sources[source] = None
            evidence.targets[link] = None
    return dict(found)


def discover(crawler, engine) -> list[CandidateSite]:
    """One discovery pass (module docstring) with ``crawler`` (a lib.crawl.pipeline.Crawler: its
    page store, robots.txt cache, politeness and Fetcher) and ``engine`` (a fingerprint.Engine).

    Returns the candidates sampled in this pass. Raises the storage errors of MongoDB, Redis or
    the engine (the calling task retries).
    """
    known = sorted({d for domains in TargetSite.objects.values_list("allowed_domains", flat=True)
                    for d in domains})
    page_ids, site_ids = source_pages()
    evidence = count_links(crawler.pages.outlinks(page_ids, site_ids), known)
    settled = set(CandidateSite.objects.filter(status__in=_SETTLED).values_list("domain", flat=True))
    for domain, seen in evidence.items():
        if seen.count < settings.DISCOVERY_MIN_LINKS or domain in settled:
            continue
        CandidateSite.objects.update_or_create(domain=domain, defaults={
            "link_count": seen.count, "linked_from": list(seen.sources)[:settings.DISCOVERY_LINKED_FROM_KEPT],
            "sample_urls": list(seen.targets)[:settings.DISCOVERY_SAMPLE_PAGES * 3]})
    sampled = []
    for candidate in CandidateSite.objects.filter(status=CandidateStatus.NEW).order_by(
            "sample_attempts", "-link_count", "domain")[:settings.DISCOVERY_MAX_SAMPLED]:
        sample(candidate, crawler, engine)
        sampled.append(candidate)
    return sampled


def sample(candidate: CandidateSite, crawler, engine) -> CandidateSite:
    """Fetch and match up to settings.DISCOVERY_SAMPLE_PAGES of ``candidate``'s linked pages and
    record what was found (pages_sampled, matches_found, works, status, note). Pages refused by
    robots.txt or failing to download are skipped, with the reason in the note. Returns it."""
    sampled, copying, works, problems = 0, 0, set(), []
    for url in candidate.sample_urls:
        if sampled >= settings.DISCOVERY_SAMPLE_PAGES:
            break
        text, problem = _page_text(url, crawler)
        if problem:
            problems.append((url, *problem))
            continue
        sampled += 1
        found = _copied_works(candidate.domain, text, engine)
        copying += bool(found)
        works |= found
    with transaction.atomic():
        candidate.refresh_from_db()
        if candidate.status in _SETTLED:  # decided by staff while this pass sampled
            return candidate
        candidate.pages_sampled, candidate.matches_found = sampled, copying
        if sampled:
            candidate.sample_attempts = 0
            candidate.status = CandidateStatus.PROPOSED if copying else CandidateStatus.NO_MATCH
        else:  # nothing read says nothing about the site: sample it again, then give up
            candidate.sample_attempts += 1
            candidate.status = (CandidateStatus.UNREADABLE if candidate.sample_attempts
                                >= settings.DISCOVERY_SAMPLE_ATTEMPTS else CandidateStatus.NEW)
        candidate.note = _problems_note(problems)
        candidate.sampled_at = timezone.now()
        candidate.save()
        candidate.works.set(works)
    return candidate


def _page_text(url: str, crawler) -> tuple[str, tuple[Outcome, str] | None]:
    """(extracted text, None) of the page at ``url``, fetched politely, or ('', (outcome, the
    reason in English))."""
    extracted, problem = read_page(url, crawler)
    return (extracted.text, None) if extracted else ("", problem)


def read_page(url: str, crawler) -> tuple[Extracted | None, tuple[Outcome, str] | None]:
    """(the extracted document: text and title, None) of the page at ``url``, fetched like a
    scan's page (SSRF guard, robots.txt, the host's politeness slot, fetch limits of
    ``crawler``), or (None, (outcome, the reason in English)) when it could not be read."""
    refusal = crawler.fetcher.refusal(url)  # before robots.txt, whose fetch it would refuse
    if refusal:
        return None, (Outcome.SSRF_REFUSED, refusal)
    policy = crawler.robots.policy(url)
    if not policy.allowed(url):
        return None, (Outcome.ROBOTS_DISALLOWED, str(policy.reason))
    delay = max(crawler.config.default_delay_seconds, policy.crawl_delay or 0.0)
    grant = crawler.politeness.acquire(host_of(url), delay)
    if not grant.reserved:
        return None, (Outcome.TIMEOUT, "no politeness slot within the horizon")
    time.sleep(grant.wait)
    result = crawler.fetcher.fetch(url, kinds=frozenset({"html", "text"}))
    if result.outcome is not Outcome.OK:
        return None, (result.outcome, result.reason)
    decoded = decode_bytes(result.body, result.headers.get("content-type"))
    extracted = extract_document(decoded.text, result.kind, result.final_url, with_author=False)
    return (extracted, None) if extracted.ok else (None, (Outcome.EXTRACT_FAILED, ""))


def _problems_note(problems: list[tuple[str, Outcome, str]]) -> str:
    """The candidate's note for the pages that could not be read, ``[(url, outcome, reason)]``:
    a coded note (``core.notes``), the outcome in words of the reader's language."""
    if not problems:
        return ""
    return notes.coded("sample_problems", gettext_noop("pages not read: %(pages)s"), pages=[
        notes.coded("sample_problem", gettext_noop("%(url)s: %(outcome)s (%(reason)s)"),
                    url=url, outcome=labels.outcome_note(outcome.value), reason=reason or "-")
        for url, outcome, reason in problems])


def _copied_works(domain: str, text: str, engine) -> set[Work]:
    """The registered works ``text`` copies, less those whose holder whitelisted ``domain``."""
    found = engine.match(text)
    works = list(Work.objects.filter(uid__in=[m.work_id for m in found]))
    allowed = matching.whitelisted(domain, {w.holder_id for w in works})
    return {w for w in works if w.holder_id not in allowed}
