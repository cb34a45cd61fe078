"""Sites that move to another domain: a target site whose pages or root answer a permanent
redirect to another registered domain, or that stops answering while a candidate site serves
the same pages, has the new domain proposed as a candidate site "moved from" it; promoting that
candidate (``crawler.candidate_actions.do_move_site``) carries the site's settings and whitelists over.

After every closed scan (``crawler.scans.scan_closed``) the task ``crawler.check_site_moved``
(queue ``crawl``) runs ``check_scan`` for its site:

1. Redirects. The scan's crawl-log entries ``redirect_out_of_scope`` whose redirect was
   permanent (301 or 308) and whose target (``location``) is on another registered domain
   than the page and on no target site's domain. A target host is proposed when a start URL or
   the root of the site redirects there, or at least ``settings.MOVE_MIN_REDIRECTS`` pages do.
2. Silence. When the site's last ``settings.MOVE_SILENT_SCANS`` closed scans read no page
   (connection refused, timeouts, 5xx, robots.txt unreachable), up to
   ``settings.MOVE_SAMPLE_PAGES`` of its stored pages (matched pages first) are fetched at the
   same path on each open candidate site (``crawler.discovery``; at most
   ``settings.MOVE_MAX_CANDIDATES``, newest first) through the crawl library, as discovery
   samples pages. A page is the same when its title is the stored title, or when its text and
   the stored text share at least ``settings.MOVE_SAME_TEXT`` of their 5-character shingles
   (Jaccard). A candidate with ``settings.MOVE_SAME_PAGES`` same pages (all of them when the
   site has fewer) is proposed.

A proposal (``do_propose_move``) makes the candidate ``proposed`` with ``moved_from`` and the
evidence, recorded in the audit trail. Dismissed and promoted candidates, and candidates
already proposed as the new domain of another site, are left alone.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from core import notes
from core.models import AuditEvent
from core.queueing import queue_after_commit
from crawler.discovery import read_page
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    Match,
    ReviewStatus,
    ScanRun,
    ScanStatus,
    TargetSite,
    WhitelistedDomain,
)
from lib.crawl.canonical import InvalidURL, canonical_url, host_of, in_domains, origin_of
from lib.crawl.domains import registered_domain
from lib.crawl.outcomes import Outcome

PERMANENT = (301, 308)
SHINGLE_CHARS = 5
_SETTLED = (CandidateStatus.PROMOTED, CandidateStatus.DISMISSED)
# TargetSite fields a moved site gets its own values of; every other field is carried over
_NOT_CARRIED = {"id", "name", "start_urls", "allowed_domains", "periodic_task", "notes",
                "created_at", "updated_at"}


def on_scan_closed(sender, scan_id: int, **kwargs) -> None:
    """``crawler.scans.scan_closed`` receiver: queue ``crawler.check_site_moved`` for the scan."""
    queue_after_commit("crawler.check_site_moved", scan_id)


def check_scan(scan: ScanRun, crawler) -> list[CandidateSite]:
    """Look for the new domain of ``scan``'s site (the module docstring's two ways) with
    ``crawler`` (a lib.crawl.pipeline.Crawler: crawl log, page store, fetcher, robots.txt
    cache, politeness). Returns the candidates proposed or confirmed as moved from the site.
    Raises the storage errors of MongoDB or Redis (the calling task retries)."""
    site = scan.site
    known = _target_domains()
    proposed = []
    for host, hops in _permanent_redirects(scan, crawler, known).items():
        roots = [h for h in hops if _is_start(h["from"], site)]
        if roots or len(hops) >= settings.MOVE_MIN_REDIRECTS:
            evidence = {"kind": "redirect", "site": site.name, "origin": origin_of(hops[0]["to"]),
                        "scan": scan.pk, "redirects": len(hops),
                        "pages": (roots + [h for h in hops if h not in roots])[:settings.MOVE_EVIDENCE_KEPT]}
            found = do_propose_move(site, host, evidence, [h["to"] for h in hops])
            proposed += [found] if found else []
    silent = silent_scans(site)
    if silent >= settings.MOVE_SILENT_SCANS:
        proposed += _compare_candidates(site, crawler, known, silent)
    return proposed


def silent_scans(site: TargetSite) -> int:
    """How many of ``site``'s last closed scans (finished or failed; skipped and cancelled ones
    do not count), up to settings.MOVE_SILENT_SCANS, read no page, counted back from the
    latest."""
    latest = site.scans.filter(status__in=(ScanStatus.FINISHED, ScanStatus.FAILED)).order_by(
        "-started_at", "-id").values_list("pages_fetched", flat=True)[:settings.MOVE_SILENT_SCANS]
    count = 0
    for fetched in latest:
        if fetched:
            break
        count += 1
    return count


def do_propose_move(site: TargetSite, domain: str, evidence: dict,
                    sample_urls: list[str]) -> CandidateSite | None:
    """Propose host ``domain`` as the new domain of ``site``: its CandidateSite (created when
    missing, with ``sample_urls``, canonical URLs on it) becomes 'proposed' with ``moved_from``
    and ``evidence`` (the model's ``move_evidence``). The first such proposal is recorded in
    the audit trail (the platform acting); later ones renew the evidence.

    Returns the candidate, or None when it was dismissed, promoted or proposed as the new
    domain of another site (nothing is changed then).
    """
    with transaction.atomic():
        candidate, created = CandidateSite.objects.select_for_update().get_or_create(
            domain=domain, defaults={"sample_urls": sample_urls[:settings.DISCOVERY_SAMPLE_PAGES * 3]})
        if candidate.status in _SETTLED or candidate.moved_from_id not in (None, site.pk):
            return None
        first, old = candidate.moved_from_id is None, "" if created else candidate.status
        candidate.status, candidate.moved_from = CandidateStatus.PROPOSED, site
        candidate.move_evidence = evidence
        candidate.save()
        if first:
            AuditEvent.record(kind=AuditEvent.Kind.SITE, user=None, holder=None, target=candidate,
                              subject=domain, old_state=old, new_state=CandidateStatus.PROPOSED,
                              reason=notes.coded("site_moved", gettext_noop("moved from %(site)s"),
                                                 site=site.name))
    return candidate


def _target_domains() -> list[str]:
    return sorted({d for domains in TargetSite.objects.values_list("allowed_domains", flat=True)
                   for d in domains})


def _permanent_redirects(scan: ScanRun, crawler, known: list[str]) -> dict[str, list[dict]]:
    """{target host: [{"from", "to", "status"}]}: the permanent redirects out of ``scan``'s
    scope to another registered domain that is no target site's (``known`` domains)."""
    found: dict[str, list[dict]] = defaultdict(list)
    for entry in crawler.log.entries(scan.pk, Outcome.REDIRECT_OUT_OF_SCOPE.value):
        target = entry.get("location") or ""
        host = host_of(target)
        if (entry.get("status") not in PERMANENT or not host or in_domains(target, known)
                or registered_domain(host) == registered_domain(host_of(entry["url"]))):
            continue
        found[host].append({"from": entry["url"], "to": target, "status": entry["status"]})
    return dict(found)


def _is_start(url: str, site: TargetSite) -> bool:
    """True when canonical ``url`` is a start URL of ``site`` or the root of its host."""
    if urlsplit(url).path in ("", "/") and not urlsplit(url).query:
        return True
    starts = set()
    for start in site.start_urls:
        try:
            starts.add(canonical_url(start))
        except InvalidURL:
            continue
    return url in starts


def _old_pages(site: TargetSite, crawler) -> list[tuple[str, str, str]]:
    """Up to settings.MOVE_SAMPLE_PAGES of ``site``'s stored pages but its roots: [(canonical
    URL, title, text)], the pages of its matches (false positives excepted) first."""
    limit = settings.MOVE_SAMPLE_PAGES
    chosen: dict[str, tuple[str, str]] = {}
    matched = (Match.objects.filter(site=site).exclude(review_status=ReviewStatus.FALSE_POSITIVE)
               .order_by("-last_seen").values_list("url", "title", "version_id"))
    stored = ((p.canonical_url, p.title or "", p.version_id)
              for p in crawler.pages.site_pages(site.pk, limit * 4))
    for source in (matched[:limit * 4], stored):
        for url, title, version in source:
            if len(chosen) < limit and url not in chosen and urlsplit(url).path not in ("", "/"):
                chosen[url] = (title, version)
    texts = crawler.pages.texts([version for _title, version in chosen.values()])
    return [(url, title, texts.get(version, "")) for url, (title, version) in chosen.items()]


def _compare_candidates(site: TargetSite, crawler, known: list[str],
                        silent: int) -> list[CandidateSite]:
    """Fetch ``site``'s stored pages at the same paths on the open candidates and propose
    those that serve the same pages (module docstring); ``silent``: the scans without an answer."""
    pages = _old_pages(site, crawler)
    if not pages:
        return []
    needed = min(settings.MOVE_SAME_PAGES, len(pages))
    own = {registered_domain(host_of(url)) for url, _title, _text in pages}
    candidates = (CandidateSite.objects.exclude(status__in=_SETTLED)
                  .filter(Q(moved_from__isnull=True) | Q(moved_from=site))
                  .order_by("-first_seen", "-id")[:settings.MOVE_MAX_CANDIDATES])
    proposed = []
    for candidate in candidates:
        if registered_domain(candidate.domain) in own or in_domains(
                f"http://{candidate.domain}/", known):
            continue
        origin = (origin_of(candidate.sample_urls[0]) if candidate.sample_urls
                  else f"https://{candidate.domain}")
        same = _same_pages(pages, origin, needed, crawler)
        if len(same) >= needed:
            evidence = {"kind": "same_pages", "site": site.name, "origin": origin,
                        "compared": len(pages), "silent_scans": silent, "pages": same}
            found = do_propose_move(site, candidate.domain, evidence, [p["new"] for p in same])
            proposed += [found] if found else []
    return proposed


def _same_pages(pages: list[tuple[str, str, str]], origin: str, needed: int,
                crawler) -> list[dict]:
    """The ``pages`` [(URL, title, text)] that ``origin`` serves the same at the same path and
    query, read with ``crawler``: [{"old", "new", "same": "title" or "text", "similarity":
    Jaccard of the texts' shingles, 0..1}]. Stops as soon as ``needed`` same pages can no longer
    be reached."""
    same: list[dict] = []
    for number, (url, title, text) in enumerate(pages):
        if len(same) + len(pages) - number < needed:
            break
        parts = urlsplit(url)
        new = origin + parts.path + (f"?{parts.query}" if parts.query else "")
        found, _problem = read_page(new, crawler)
        if found is None:
            continue
        similarity = round(text_similarity(text, found.text), 3)
        if title and found.title and " ".join(title.split()) == " ".join(found.title.split()):
            same.append({"old": url, "new": new, "same": "title", "similarity": similarity})
        elif similarity >= settings.MOVE_SAME_TEXT:
            same.append({"old": url, "new": new, "same": "text", "similarity": similarity})
    return same


def text_similarity(a: str, b: str) -> float:
    """The Jaccard similarity (0..1) of the sets of SHINGLE_CHARS-character shingles of texts
    ``a`` and ``b``, whitespace left out; 0.0 when either has no shingle."""
    first, second = _shingles(a), _shingles(b)
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


def _shingles(text: str) -> set[str]:
    squeezed = "".join(text.split())
    return {squeezed[i:i + SHINGLE_CHARS] for i in range(len(squeezed) - SHINGLE_CHARS + 1)}


def moved_domains(candidate: CandidateSite) -> set[str]:
    """The registered domains ``candidate``'s site moved away from: those of the old URLs in
    its evidence, else those of the old site's start URLs."""
    urls = [page.get("from") or page.get("old") for page in
            candidate.move_evidence.get("pages", [])]
    found = {registered_domain(host_of(url)) for url in urls if url}
    return found or {registered_domain(host_of(url)) for url in candidate.moved_from.start_urls}


def moved_site(candidate: CandidateSite, name: str, note: str) -> TargetSite:
    """The unsaved TargetSite that ``candidate`` (proposed as moved from a site) becomes: the old
    site's every per-site field (TargetSite's fields but name, start URLs, allowed domains,
    schedule, notes and times) carried over; its start URLs on the moved domains at the same
    path and query on the new origin (the evidence's), the others kept; the candidate's host
    among its allowed domains instead of the moved ones; ``name`` and ``note`` (str) its own."""
    old = candidate.moved_from
    origin = candidate.move_evidence.get("origin") or f"https://{candidate.domain}"
    moved = moved_domains(candidate)
    site = TargetSite(name=name, notes=note)
    for field in TargetSite._meta.concrete_fields:
        if field.name not in _NOT_CARRIED:
            setattr(site, field.attname, copy.deepcopy(getattr(old, field.attname)))
    site.start_urls = list(dict.fromkeys(
        _on_origin(url, origin) if registered_domain(host_of(url)) in moved else url
        for url in old.start_urls))
    site.allowed_domains = list(dict.fromkeys(
        [candidate.domain, *(d for d in old.allowed_domains if registered_domain(d) not in moved)]))
    return site


def carried_whitelist(candidate: CandidateSite) -> list[tuple[object, str]]:
    """[(RightsHolder, domain)]: for each whitelist entry on a domain ``candidate``'s site moved
    away from, the same holder's entry for the new domain (the candidate's registered domain
    when the entry whitelisted a whole registered domain, else its host)."""
    moved = moved_domains(candidate)
    under = Q(domain__in=moved)
    for domain in moved:
        under |= Q(domain__endswith=f".{domain}")
    pairs = []
    for entry in WhitelistedDomain.objects.filter(under).select_related("holder").order_by("pk"):
        whole = entry.domain == registered_domain(entry.domain)
        pairs.append((entry.holder, registered_domain(candidate.domain) if whole else candidate.domain))
    return list(dict.fromkeys(pairs))


def _on_origin(url: str, origin: str) -> str:
    parts = urlsplit(url)
    return origin + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def evidence_summary(candidate: CandidateSite) -> str:
    """The move in one line of the active language, for the candidate list ("moved from X: 3
    permanent redirects (301), e.g. A → B"); "" when it is not proposed as moved."""
    evidence = candidate.move_evidence or {}
    if not evidence:
        return ""
    site = candidate.moved_from.name if candidate.moved_from else evidence.get("site", "?")
    pages = evidence.get("pages") or [{}]
    if evidence.get("kind") == "redirect":
        count = evidence.get("redirects", len(pages))
        return ngettext(
            "moved from %(site)s: %(count)d permanent redirect (%(status)s), %(url)s → %(target)s",
            "moved from %(site)s: %(count)d permanent redirects (%(status)s), e.g. %(url)s → "
            "%(target)s", count) % {
            "site": site, "count": count, "status": pages[0].get("status"),
            "url": pages[0].get("from"), "target": pages[0].get("to")}
    return ngettext(
        "moved from %(site)s: %(same)d of %(compared)d pages the same; its last scan read no page",
        "moved from %(site)s: %(same)d of %(compared)d pages the same; its last %(silent)d scans "
        "read no page", evidence.get("silent_scans", 1)) % {
        "site": site, "same": len(evidence.get("pages") or []),
        "compared": evidence.get("compared", 0), "silent": evidence.get("silent_scans", 1)}


def evidence_lines(candidate: CandidateSite) -> list[str]:
    """Each redirect or same page of the move's evidence in words of the active language
    ("A answers 301 → B", "A = B: same title (97% of the text shared)"); [] for none."""
    evidence = candidate.move_evidence or {}
    lines = []
    for page in evidence.get("pages") or []:
        if evidence.get("kind") == "redirect":
            lines.append(_("%(url)s answers %(status)s → %(target)s") % {
                "url": page["from"], "status": page["status"], "target": page["to"]})
        else:
            words = (_("%(old)s = %(new)s: same title (%(percent)d%% of the text shared)")
                     if page["same"] == "title" else
                     _("%(old)s = %(new)s: same text (%(percent)d%% shared)"))
            lines.append(words % {"old": page["old"], "new": page["new"],
                                  "percent": round(100 * page["similarity"])})
    return lines
