"""List filters of the match list: domain, work, score band, first-seen date range and scan."""

from __future__ import annotations

from datetime import date

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from core.models import AuditEvent
from crawler.models import ScanRun
from crawler.progress import scan_label
from crawler.scans import scan_matches
from lib.text.untrusted import ascii_int

# (parameter value, label, lowest score, highest score exclusive): bands for reviewers, not
# thresholds of the engine (those are in fingerprint.EngineConfig).
SCORE_BANDS = [
    ("80", _("80% and above"), 0.8, None),
    ("50", _("50% to 80%"), 0.5, 0.8),
    ("20", _("20% to 50%"), 0.2, 0.5),
    ("0", _("below 20%"), None, 0.2),
]


def _chosen_id(value: str | None, message: str) -> int | None:
    """The id (int) a filter's parameter chose, or None when it chose none.

    Raises:
        IncorrectLookupParameters: ``value`` is not a number (``message`` says so; the admin
            then shows the list unfiltered with an error marker).
    """
    if not value:
        return None
    chosen = ascii_int(value)
    if chosen is None:
        raise IncorrectLookupParameters(message)
    return chosen


def listed(model_admin, request):
    """The rows ``model_admin``'s list shows ``request``'s user before any filter: its
    ``listed_queryset(request)`` where it groups rows (the match list: one row per chapter),
    else its queryset; the counts of a filter's choices count these."""
    rows = getattr(model_admin, "listed_queryset", None)
    return rows(request) if rows else model_admin.get_queryset(request)


class DomainFilter(admin.SimpleListFilter):
    """The infringing site's domain, among the domains of the matches the user may see."""

    title = _("domain")
    parameter_name = "domain"
    LIMIT = 100  # domains listed (most matches first); others stay reachable by search

    def lookups(self, request, model_admin):
        rows = (listed(model_admin, request).values("domain").annotate(n=Count("pk"))
                .order_by("-n", "domain")[:self.LIMIT])
        return [(row["domain"], f"{row['domain']} ({row['n']})") for row in rows]

    def queryset(self, request, queryset):
        return queryset.filter(domain=self.value()) if self.value() else queryset


class WorkFilter(admin.SimpleListFilter):
    """The matched work, among the works of the matches the user may see: the LIMIT works with
    most matches, and the chosen work when it is not among them. Listing every matched work
    (Django's RelatedOnlyFieldListFilter) made each match list page 340 KB and 0.3 s of
    rendering at 2,000 works (bench/dashboard_load.py); the others stay reachable by search
    and by the links of the overview and the chapter rows (``?work__id__exact=<id>``)."""

    title = _("work")
    parameter_name = "work__id__exact"
    LIMIT = 50

    def lookups(self, request, model_admin):
        visible = listed(model_admin, request)
        rows = list(visible.values("work", "work__title").annotate(n=Count("pk"))
                    .order_by("-n", "work")[:self.LIMIT])
        chosen = self.value()
        if ascii_int(chosen) is not None and all(str(row["work"]) != chosen for row in rows):
            rows += visible.filter(work_id=ascii_int(chosen)).values("work", "work__title").annotate(
                n=Count("pk"))
        return [(str(row["work"]), f"{row['work__title']} ({row['n']})") for row in rows]

    def queryset(self, request, queryset):
        work_id = _chosen_id(self.value(), _("A work id is a number."))
        return queryset if work_id is None else queryset.filter(work_id=work_id)


class ScoreFilter(admin.SimpleListFilter):
    """The match's score in bands (SCORE_BANDS)."""

    title = _("score")
    parameter_name = "score"

    def lookups(self, request, model_admin):
        return [(value, label) for value, label, _low, _high in SCORE_BANDS]

    def queryset(self, request, queryset):
        for value, _label, low, high in SCORE_BANDS:
            if self.value() == value:
                if low is not None:
                    queryset = queryset.filter(score__gte=low)
                if high is not None:
                    queryset = queryset.filter(score__lt=high)
        return queryset


class FirstSeenRangeFilter(admin.ListFilter):
    """First seen between two local dates (inclusive), typed in two date inputs.

    Parameters ``first_seen_from`` / ``first_seen_to`` as YYYY-MM-DD; a malformed date is
    ignored and reported in the filter (``self.error``) rather than failing the page.
    """

    title = _("first seen between")
    template = "dashboard/filters/date_range.html"
    parameters = ("first_seen_from", "first_seen_to")

    def __init__(self, request, params, model, model_admin):
        super().__init__(request, params, model, model_admin)
        self.values: dict[str, str] = {}
        self.dates: dict[str, date] = {}
        self.error = ""
        for name in self.parameters:
            if name in params:
                raw = params.pop(name)
                value = raw[-1] if isinstance(raw, list) else raw
                self.values[name] = value
                try:
                    self.dates[name] = date.fromisoformat(value)
                except ValueError:
                    self.error = _("Not a date: %(value)s (use YYYY-MM-DD)") % {"value": value}
        self.other_params = [(k, v) for k, v in request.GET.items() if k not in self.parameters]

    def has_output(self):
        return True

    def expected_parameters(self):
        return list(self.parameters)

    def choices(self, changelist):
        return []

    def queryset(self, request, queryset):
        # __date converts to settings.TIME_ZONE first (USE_TZ), so days are local days.
        if "first_seen_from" in self.dates:
            queryset = queryset.filter(first_seen__date__gte=self.dates["first_seen_from"])
        if "first_seen_to" in self.dates:
            queryset = queryset.filter(first_seen__date__lte=self.dates["first_seen_to"])
        return queryset


class ScanFilter(admin.SimpleListFilter):
    """The matches a scan run found (``crawler.progress.scan_matches``), reached from the scan's
    page, the scan list and the overview (``?scan=<id>``); shown only while it is applied."""

    title = _("scan")
    parameter_name = "scan"

    def lookups(self, request, model_admin):
        value = ascii_int(self.value())
        run = (ScanRun.objects.select_related("site").filter(pk=value).first()
               if value is not None else None)
        if run is None:
            return []
        return [(str(run.pk), scan_label(run))]

    def queryset(self, request, queryset):
        scan_id = _chosen_id(self.value(), _("A scan id is a number."))
        return queryset if scan_id is None else scan_matches(queryset, scan_id)


class AuditStateFilter(admin.SimpleListFilter):
    """The state an audit event moved to, named in words (``AuditEvent.state_label``), among
    the states of the events the user may see."""

    title = _("to")
    parameter_name = "new_state"

    def lookups(self, request, model_admin):
        pairs = model_admin.get_queryset(request).values_list("kind", "new_state").distinct()
        labels: dict[str, str] = {}
        for kind, state in pairs:
            labels.setdefault(state, AuditEvent.state_label(kind, state))
        return sorted(labels.items(), key=lambda item: item[1])

    def queryset(self, request, queryset):
        return queryset.filter(new_state=self.value()) if self.value() else queryset
