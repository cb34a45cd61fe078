"""The findings of one work, shown on its page (the work's admin page): its cases by state and
the cases themselves, its sites by pages, and its most-copied chapters. Scoped per user
(``core.scoping``); every count beside a link counts the rows that link lists.

A chapter's figures come from the chapters found in the work's text (``Work.sections``, made by
``lib.text.chapters``) and the work offsets of the matched passages, cut at the chapter
boundaries by the platform's one attribution (``core.chapters.attribute``). Pages
reviewed as false positives or licensed are left out of the chapters.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count
from django.urls import reverse
from django.utils.http import urlencode

from core.chapters import attribute, passages_from_json
from core.scoping import scope
from crawler.cases import with_page_counts
from crawler.models import Case, CaseState, Match, ReviewStatus


@dataclass(frozen=True)
class Bar:
    """One bar of a chart: ``label``, ``value`` (int), ``share`` (0..100, of the longest bar,
    for its width), ``note`` (words beside it) and ``url`` (where it leads, or "")."""

    label: str
    value: int
    share: float
    note: str = ""
    url: str = ""


def _bars(rows: list[tuple[str, int, str, str]]) -> list[Bar]:
    """Bars of ``rows`` ((label, value, note, url)), widths relative to the largest value."""
    top = max((value for _label, value, _note, _url in rows), default=0) or 1
    return [Bar(label, value, round(100 * value / top, 1), note, url)
            for label, value, note, url in rows]


def chapter_rows(work, matches) -> list[dict]:
    """The chapters of ``work`` its ``matches`` (a Match queryset) copy, most pages first:
    ``[{"title": str, "pages": int (pages copying part of it), "chars": int (the most
    characters of it one page copies), "share": float (chars / chapter length, 0..1)}]``,
    in the work's order among equals. Empty for a work without chapters."""
    sections = list(work.sections or [])
    if not sections:
        return []
    pages = [0] * len(sections)
    most = [0] * len(sections)
    index = {section["title"]: i for i, section in enumerate(sections)}
    for stored in matches.values_list("passages", flat=True).iterator():
        try:
            passages = passages_from_json(stored)
        except ValueError:
            continue  # a malformed row names no chapter anywhere else either
        for share in attribute(sections, passages).chapters:
            i = index[share.title]
            pages[i] += 1
            most[i] = max(most[i], share.chars)
    rows = [{"title": s["title"], "pages": pages[i], "chars": most[i],
             "share": most[i] / max(1, s["end"] - s["start"])}
            for i, s in enumerate(sections) if pages[i]]
    return sorted(rows, key=lambda row: -row["pages"])  # stable: the work's order among equals


def findings(work, user) -> dict:
    """What ``user`` may see of ``work``'s findings.

    Returns:
        dict with ``case_total`` (int) and ``cases_url`` (the case list of the work),
        ``states`` ([{"state", "label", "count", "url"}], the states the work's cases are in),
        ``cases`` (Case list, most pages first, at most settings.WORK_PAGE_CASES, annotated
        ``page_total`` and ``standing_total``), ``sites`` (Bar list: pages per site, at most
        settings.WORK_PAGE_SITES, each leading to its case) and ``chapters`` (Bar list: pages
        per chapter, at most settings.WORK_PAGE_CHAPTERS, see ``chapter_rows``).
    """
    cases = with_page_counts(scope(Case.objects.filter(work=work), user, "work__holder"))
    base = reverse("admin:crawler_case_changelist")
    query = {"work__id__exact": work.pk}
    counts = dict(cases.order_by().values_list("state").annotate(n=Count("pk")))
    states = [{"state": value, "label": label, "count": counts[value],
               "url": f"{base}?{urlencode({**query, 'state__exact': value})}"}
              for value, label in CaseState.choices if counts.get(value)]
    listed = list(cases.order_by("-page_total", "domain")[:settings.WORK_PAGE_CASES])
    sites = _bars([(c.domain, c.page_total, "", reverse("admin:crawler_case_change", args=[c.pk]))
                   for c in listed[:settings.WORK_PAGE_SITES]])
    copying = scope(Match.objects.filter(work=work), user, "work__holder").exclude(
        review_status__in=[ReviewStatus.FALSE_POSITIVE, ReviewStatus.LICENSED])
    chapters = _bars([(row["title"], row["pages"], f"{row['share']:.0%}", "")
                      for row in chapter_rows(work, copying)[:settings.WORK_PAGE_CHAPTERS]])
    return {"case_total": sum(counts.values()), "cases_url": f"{base}?{urlencode(query)}",
            "states": states, "cases": listed, "sites": sites, "chapters": chapters}
