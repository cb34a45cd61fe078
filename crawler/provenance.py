"""How a match was found: every way that led to its page, listed from the rows each way writes.

A page copying a work is one Match (one per page and work, the page stored once under its
canonical URL), whichever way reached it: a scan of a target site (``Match.first_scan`` and
``last_scan``), search-engine discovery (its ``SearchHit`` rows: provider, query, rank, time)
or a web-archive scan (its ``ArchiveFind`` rows: file, offset, WARC-Date, WARC-Target-URI).
``found_by`` lists them for ``manage.py matches``, the exports and the evidence view;
``loaded`` makes a list of matches load them in a few queries, not several per match.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext_lazy

#: The ways, in the order ``found_by`` lists them, with their names in the reader's language.
WAYS = {"scan": gettext_lazy("scan"), "search": gettext_lazy("web search"),
        "archive": gettext_lazy("web archive")}


def loaded(matches):
    """``matches`` (a QuerySet of Match) loading what an export row reads with them: works,
    holders, scans and their sites joined, search hits and archive finds fetched per chunk of
    rows (iterate with ``.iterator(chunk_size=settings.EXPORT_CHUNK_ROWS)``)."""
    return matches.select_related(
        "work__holder", "first_scan__site", "last_scan__site").prefetch_related(
        "search_hits__query", "archive_finds")


def _time(value) -> str:
    return timezone.localtime(value).isoformat(timespec="seconds") if value else ""


def found_by(match) -> list[dict]:
    """Each way ``match`` (a crawler Match) was found, as JSON-ready dicts, scans first, then
    web searches, then web archives, each in the order found: ``{"way": "scan", "scan": id,
    "site": name, "at": start}``, ``{"way": "search", "run": id, "provider", "query",
    "rank", "at"}``, ``{"way": "archive", "file", "offset" (bytes), "warc_date",
    "target_uri", "at"}``; times ISO 8601 in the current time zone. [] for a match found
    otherwise (a stored page searched again for new works)."""
    scans = {s.pk: s for s in (match.first_scan, match.last_scan) if s is not None}
    out = [{"way": "scan", "scan": s.pk, "site": s.site.name, "at": _time(s.started_at)}
           for _, s in sorted(scans.items())]
    out += [{"way": "search", "run": h.query.run_id, "provider": h.query.provider,
             "query": h.query.phrase, "rank": h.rank, "at": _time(h.found_at)}
            for h in sorted(match.search_hits.all(), key=lambda h: (h.found_at, h.pk))]
    out += [{"way": "archive", "file": f.source, "offset": f.offset, "warc_date": f.warc_date,
             "target_uri": f.target_uri, "at": _time(f.found_at)}
            for f in sorted(match.archive_finds.all(), key=lambda f: f.pk)]
    return out


def way_names(found: list[dict]) -> list[str]:
    """The names of the ways in ``found`` (``found_by``'s list), each once, in the reader's
    language, in ``WAYS`` order."""
    seen = {f["way"] for f in found}
    return [str(name) for way, name in WAYS.items() if way in seen]
