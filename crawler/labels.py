"""The crawler's stored codes in words of the active language, for the pages people read: what
started a scan or a web search (``ScanRun.trigger``, ``SearchRun.trigger``), what became of a
web search's queries and result URLs, why URLs gave no page (``ScanRun.errors``, keyed by
``lib.crawl.outcomes.Outcome`` values) and where a scan spent its time (``ScanRun.stage_seconds``).
Codes stay codes in the database, exports and the API; unknown codes are shown as they are."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core import notes

TRIGGERS = {
    "schedule": gettext_lazy("schedule"), "command": gettext_lazy("command line"),
    "admin": gettext_lazy("dashboard"), "demo": gettext_lazy("demo"),
    "api": gettext_lazy("REST API"),
}

# Why the SSRF guard refuses an address (``crawler.ssrf.RefusedAddress.reason``).
ADDRESS_KINDS = {
    "loopback": gettext_lazy("loopback"), "link_local": gettext_lazy("link-local"),
    "private": gettext_lazy("private"), "multicast": gettext_lazy("multicast"),
    "unspecified": gettext_lazy("unspecified"), "reserved": gettext_lazy("reserved"),
}

OUTCOMES = {
    "ok": gettext_lazy("fetched"), "unchanged": gettext_lazy("unchanged"),
    "not_modified": gettext_lazy("not modified (HTTP 304)"),
    "invalid_url": gettext_lazy("invalid URL"), "out_of_scope": gettext_lazy("outside the site"),
    "trap": gettext_lazy("crawler trap"),
    "robots_disallowed": gettext_lazy("forbidden by robots.txt"),
    "ssrf_refused": gettext_lazy("private address refused"),
    "client_error": gettext_lazy("client error (HTTP 4xx)"),
    "rate_limited": gettext_lazy("rate limited (HTTP 429)"),
    "server_error": gettext_lazy("server error (HTTP 5xx)"),
    "timeout": gettext_lazy("timeout"), "connection_error": gettext_lazy("connection error"),
    "too_large": gettext_lazy("too large"), "content_type": gettext_lazy("not a text page"),
    "redirect_loop": gettext_lazy("redirect loop"),
    "too_many_redirects": gettext_lazy("too many redirects"),
    "redirect_out_of_scope": gettext_lazy("redirected outside the site"),
    "redirect_trap": gettext_lazy("redirected into a crawler trap"),
    "redirect_robots_disallowed": gettext_lazy("redirect forbidden by robots.txt"),
    "redirect_seen": gettext_lazy("redirected to a page already seen"),
    "extract_failed": gettext_lazy("no text extracted"), "cancelled": gettext_lazy("cancelled"),
    "internal_error": gettext_lazy("internal error"),
    "match_failed": gettext_lazy("matching failed"), "robots": gettext_lazy("robots.txt"),
}

# What became of a web search's result URL (``SearchHit.outcome``) besides the crawl outcomes.
SEARCH_OUTCOMES = {
    "seen": gettext_lazy("already read in this run"),
    "target_site": gettext_lazy("on a target site: read by its scans"),
    "deferred": gettext_lazy("not read: its host's politeness delay ran past the wait"),
}

# Whether a provider answered a web search query (``SearchQuery.status``).
QUERY_STATUSES = {"ok": gettext_lazy("answered"), "failed": gettext_lazy("failed")}

STAGES = {
    "fetch": gettext_lazy("download"), "decode": gettext_lazy("decoding"),
    "render": gettext_lazy("rendering in a browser"),
    "extract": gettext_lazy("text extraction"), "links": gettext_lazy("link extraction"),
    "store": gettext_lazy("storage"), "match": gettext_lazy("matching"),
}


def trigger_label(code: str) -> str:
    """What started a scan, in words ("schedule" -> "定时"); an unknown code as it is."""
    return str(TRIGGERS.get(code, code))


def search_outcome_label(code: str) -> str:
    """What became of a web search's result URL, in words ("seen" -> "本次搜索已读取"); a crawl
    outcome as ``OUTCOMES`` words it; an unknown code as it is."""
    return str(SEARCH_OUTCOMES.get(code) or OUTCOMES.get(code, code))


def query_status_label(code: str) -> str:
    """Whether a web search query was answered, in words; an unknown code as it is."""
    return str(QUERY_STATUSES.get(code, code))


def counts_in_words(counts: Mapping[str, int] | None, labels: Mapping[str, object]) -> str:
    """``{"timeout": 2, "robots_disallowed": 1}`` as "timeout 2, forbidden by robots.txt 1"
    (largest first) in the active language, with ``labels`` naming the codes; "—" when empty."""
    if not counts:
        return "—"
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return _(", ").join(f"{labels.get(code, code)} {count:g}" for code, count in ordered)


#: Refusals that are the crawler obeying the site's robots.txt: counted with a scan's errors
#: by kind (ScanRun.errors) but shown apart, not as errors.
ROBOTS_KINDS = ("robots_disallowed", "redirect_robots_disallowed", "robots")


def split_errors(errors: Mapping[str, int] | None) -> tuple[dict, dict]:
    """A scan's ``errors`` by kind as ``(errors proper, robots.txt refusals)``, two dicts."""
    errors = errors or {}
    return ({k: v for k, v in errors.items() if k not in ROBOTS_KINDS},
            {k: v for k, v in errors.items() if k in ROBOTS_KINDS})


def outcome_note(code: str) -> str:
    """An outcome code (OUTCOMES) as a coded note (``core.notes``) of its English label,
    put into words of the reader's language when shown."""
    with translation.override("en"):
        return notes.coded("outcome", str(OUTCOMES.get(code, code)))


def errors_in_words(errors: Mapping[str, int] | None) -> str:
    """A scan's errors by kind in words (``counts_in_words`` with OUTCOMES), without the
    robots.txt refusals (``robots_in_words``)."""
    return counts_in_words(split_errors(errors)[0], OUTCOMES)


def robots_in_words(errors: Mapping[str, int] | None) -> str:
    """The robots.txt refusals among a scan's ``errors`` in words: "skipped as robots.txt
    asks: 3", or "" for none."""
    total = sum(split_errors(errors)[1].values())
    return _("skipped as robots.txt asks: %(count)d") % {"count": total} if total else ""


def stages_in_words(stage_seconds: Mapping[str, float] | None) -> str:
    """A scan's seconds per stage in words, "download 12.5 s, matching 3 s"."""
    if not stage_seconds:
        return "—"
    return _(", ").join(_("%(stage)s %(seconds)s s") % {
        "stage": STAGES.get(stage, stage), "seconds": f"{round(seconds, 1):g}"}
        for stage, seconds in stage_seconds.items())
