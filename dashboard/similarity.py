"""The similarity report of one work, as Turnitin's: the work's text with each copied span
coloured by the site that copies it, the sites (sources) with the share of the work each
copies, the share copied anywhere, and the chapters found nowhere.

A source is a site: the registered domain of the pages' case (else of the page's host). Its
characters are the union of the work offsets of the passages of its pages (pages reviewed as
false positives or licensed left out, as on the work's page); its share is those characters
over the work's length. A span copied by several sites is coloured by the one that copies the
most of the work (Turnitin's primary source) and names them all. The chapters come from
``dashboard.work_figures.chapter_rows`` (the platform's one attribution), so the report and the
work's page agree on which chapters are copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib import admin
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from core.chapters import passages_from_json
from core.ingestion import work_text
from core.models import Work
from core.scoping import scope
from crawler.models import Match, ReviewStatus
from dashboard.highlight import highlight
from dashboard.work_figures import chapter_rows
from lib.crawl.domains import registered_domain


@dataclass(frozen=True)
class Source:
    """One site copying the work: ``domain``, ``colour`` (1..SIMILARITY_MAX_SOURCES, or 0 for
    the sites past them, which share one colour), ``chars`` (characters of the work its pages
    copy, each counted once), ``share`` (chars / the work's length, 0..1), ``pages`` (its pages
    copying the work) and ``case_id`` (its case, or None)."""

    domain: str
    colour: int
    chars: int
    share: float
    pages: int
    case_id: int | None


@dataclass(frozen=True)
class Piece:
    """A piece of the work's text as shown: ``text``; ``colour`` (its primary source's, None
    when no site copies it); ``domains`` (every site copying it, primary first); ``elided``
    (for a left-out stretch of uncopied text, its length in characters, ``text`` "")."""

    text: str
    colour: int | None = None
    domains: tuple[str, ...] = ()
    elided: int = 0


@dataclass
class SimilarityReport:
    """``length`` (the work's characters), ``copied`` (characters copied by at least one site)
    and ``share`` (copied / length), ``sources`` (Source list, most copied first), ``pieces``
    (Piece list in text order), ``nowhere`` (titles of the chapters no page copies, in the
    work's order), ``chapters`` (how many chapters the work has), ``whole`` (the text is shown
    whole, not cut around the copied spans) and ``problem`` (why there is no text, or "")."""

    length: int = 0
    copied: int = 0
    share: float = 0.0
    sources: list[Source] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)
    nowhere: list[str] = field(default_factory=list)
    chapters: int = 0
    whole: bool = True
    problem: str = ""


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` ((start, end) offsets) merged where they overlap or touch, in order."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(start, end) for start, end in out]


def _copied_by_site(matches, length: int) -> dict[str, dict]:
    """Per site (registered domain): its pages, case and merged work spans within
    ``length``; a page whose stored passages cannot be read adds no span."""
    sites: dict[str, dict] = {}
    for match in matches:
        domain = match.case.domain if match.case_id else registered_domain(match.domain)
        site = sites.setdefault(domain, {"pages": 0, "case_id": match.case_id, "spans": []})
        site["pages"] += 1
        try:
            passages = passages_from_json(match.passages)
        except ValueError:
            continue
        site["spans"] += [(max(0, p.work_start), min(length, p.work_end)) for p in passages
                          if p.work_end > p.work_start and p.work_start < length]
    for site in sites.values():
        site["spans"] = _merged(site["spans"])
    return sites


def build(work, user) -> SimilarityReport:
    """The similarity report of ``work`` (a core Work ``user`` may see) from the pages
    ``user`` may see. A work longer than settings.SIMILARITY_FULL_CHARS characters is cut to
    settings.SIMILARITY_CONTEXT_CHARS characters around each copied span. Raises
    ``core.connections.storage_errors()`` when MongoDB does not answer."""
    text = work_text(work)
    report = SimilarityReport(chapters=len(work.sections or []))
    if text is None:
        report.problem = _("The work's text is not in the work store.")
        return report
    matches = (scope(Match.objects.filter(work=work), user, "work__holder")
               .exclude(review_status__in=[ReviewStatus.FALSE_POSITIVE, ReviewStatus.LICENSED])
               .select_related("case"))
    report.length = len(text)
    sites = _copied_by_site(matches.iterator(), report.length)
    ranked = sorted(sites.items(), key=lambda item: (
        -sum(e - s for s, e in item[1]["spans"]), item[0]))
    most = settings.SIMILARITY_MAX_SOURCES
    for rank, (domain, site) in enumerate(ranked):
        chars = sum(end - start for start, end in site["spans"])
        report.sources.append(Source(domain, rank + 1 if rank < most else 0, chars,
                                     chars / max(1, report.length), site["pages"],
                                     site["case_id"]))
    spans, owner = [], []
    for rank, (_domain, site) in enumerate(ranked):
        spans += site["spans"]
        owner += [rank] * len(site["spans"])
    report.copied = sum(end - start for start, end in _merged(spans))
    report.share = report.copied / max(1, report.length)
    report.whole = report.length <= settings.SIMILARITY_FULL_CHARS
    context = None if report.whole else settings.SIMILARITY_CONTEXT_CHARS
    for segment in highlight(text, spans, context):
        ranks = sorted({owner[i] for i in segment.passages})
        report.pieces.append(Piece(
            segment.text, report.sources[ranks[0]].colour if ranks else None,
            tuple(report.sources[r].domain for r in ranks), segment.elided))
    found = {row["title"] for row in chapter_rows(work, matches)}
    report.nowhere = [s["title"] for s in work.sections or [] if s["title"] not in found]
    return report


def similarity_report_view(request, work_id: int):
    """GET: the similarity report of a work the user may see (404 otherwise)."""
    work = get_object_or_404(scope(Work.objects.select_related("holder"), request.user),
                             pk=work_id)
    context = {**admin.site.each_context(request), "work": work,
               "title": _("Similarity report: %(title)s") % {"title": work.title},
               "report": build(work, request.user)}
    return TemplateResponse(request, "dashboard/similarity.html", context)
