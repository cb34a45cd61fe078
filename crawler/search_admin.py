"""Admin pages of search-engine discovery: the web search runs (progress, figures, failure in
words), each with its queries and the result pages it read (what happened to each, the match
it recorded); the providers' state (disabled and why, queries today of the daily budget) above
the list; "Search the web" from a work's page (staff only)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from core import notes
from core.admin import RecordAdminMixin
from core.models import Work
from crawler import labels, search_discovery
from crawler.models import SearchHit, SearchQuery, SearchRun


class SearchQueryInline(admin.TabularInline):
    """The queries of a run, in the order asked (read only)."""

    model = SearchQuery
    fields = ["asked_at", "work", "phrase", "provider", "status_words", "results", "attempts",
              "error_words"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("status"))
    def status_words(self, query):
        return labels.query_status_label(query.status)

    @admin.display(description=_("error"))
    def error_words(self, query):
        return notes.in_words(query.error)


@admin.register(SearchRun)
class SearchRunAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Web search runs (crawler.search_discovery): status, progress, figures, note in words."""

    list_display = ["pk", "started_at", "trigger_label", "work", "status", "progress", "queries",
                    "results", "pages_fetched", "pages_matched", "new_cases", "note_words"]
    list_filter = ["status", "trigger"]
    fields = ["work", "trigger_label", "status", "started_at", "updated_at", "finished_at",
              "progress", "queries", "results", "pages_fetched", "pages_matched", "new_cases",
              "note_words", "pages_read"]
    readonly_fields = ["trigger_label", "progress", "note_words", "pages_read"]
    inlines = [SearchQueryInline]

    @admin.display(description=_("trigger"), ordering="trigger")
    def trigger_label(self, run):
        return labels.trigger_label(run.trigger)

    @admin.display(description=_("works searched"))
    def progress(self, run):
        return f"{run.works_done} / {run.works_total}"

    @admin.display(description=_("result pages"))
    def pages_read(self, run):
        """The run's result pages, those that copy a work first, at most
        settings.SEARCH_RUN_PAGES_LISTED: each with its query, rank, what happened to it and
        the match it recorded or was tied to."""
        listed = settings.SEARCH_RUN_PAGES_LISTED
        hits = list(SearchHit.objects.filter(query__run=run).select_related("query", "match")
                    .order_by(F("match_id").desc(nulls_last=True), "query__asked_at", "rank",
                              "pk")[:listed + 1])
        rows = [{"hit": hit, "outcome": labels.search_outcome_label(hit.outcome),
                 "match_url": reverse("admin:crawler_match_change", args=[hit.match_id])
                 if hit.match_id else ""} for hit in hits[:listed]]
        return render_to_string("admin/crawler/searchrun/pages_read.html", {
            "rows": rows, "more": len(hits) > listed, "listed": listed})

    @admin.display(description=_("note"))
    def note_words(self, run):
        return notes.in_words(run.note)

    def get_urls(self):
        return [path("start/<int:work_id>/", self.admin_site.admin_view(self.start_view),
                     name="crawler_searchrun_start"), *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        try:
            states = [{"name": s.provider.name, "url": s.provider.url, "used": s.used,
                       "budget": s.budget, "disabled": notes.in_words(s.disabled)}
                      for s in search_discovery.provider_states()]
            problem = ""
        except ValueError as exc:
            states, problem = [], str(exc)
        extra_context = {**(extra_context or {}), "search_providers": states,
                         "search_problem": problem}
        return super().changelist_view(request, extra_context)

    def start_view(self, request, work_id: int):
        """POST from a work's page: "Search the web" for that work."""
        if request.method != "POST" or not request.user.has_perm("crawler.add_searchrun"):
            raise PermissionDenied
        work = get_object_or_404(Work, pk=work_id)
        run = search_discovery.do_start_search_run(work, trigger="admin",
                                                   acting_user=request.user)
        self.message_user(request, _("Web search #%(id)s started for %(work)s.") % {
            "id": run.pk, "work": work}, messages.SUCCESS)
        return redirect(reverse("admin:crawler_searchrun_change", args=[run.pk]))
