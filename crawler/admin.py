"""Admin pages of the crawler's models: target sites (staff), scan runs (read-only, cancellable)
and whitelisted domains (each rights holder its own, through HolderScopedAdmin).

A site's schedule is its django-celery-beat Periodic task (linked from the site's page), edited
there; "Scan now" starts a run through the workers at once.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from crawler import actions
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    RematchJob,
    ScanRun,
    ScanStatus,
    TakedownCheck,
    TargetSite,
    WhitelistedDomain,
)
from tracker.core.admin import HolderScopedAdmin, RecordAdminMixin
from tracker.core.errors import ActionError


class LinesField(forms.CharField):
    """A list of strings edited as one item per line (the model keeps a JSON list)."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 80})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value):
        return [line.strip() for line in (value or "").splitlines() if line.strip()]


class TargetSiteForm(forms.ModelForm):
    """Start URLs, allowed domains and path patterns one per line."""

    start_urls = LinesField(label=_("start URLs"), help_text=_("Pages, sitemaps or RSS/Atom feeds, one per line."))
    allowed_domains = LinesField(label=_("allowed domains"), required=False,
                                 help_text=_("One host per line; empty: the start URLs' hosts."))
    path_patterns = LinesField(label=_("path patterns"), required=False,
                               help_text=_("Regular expressions, one per line; empty: every path."))

    class Meta:
        model = TargetSite
        fields = "__all__"


@admin.register(TargetSite)
class TargetSiteAdmin(admin.ModelAdmin):
    """Target sites: what to crawl and how politely; actions start a scan or toggle the schedule."""

    form = TargetSiteForm
    list_display = ["name", "enabled", "first_start_url", "max_pages", "max_depth", "delay_seconds",
                    "needs_browser", "last_scan"]
    list_filter = ["enabled", "needs_browser"]
    search_fields = ["name", "start_urls"]
    readonly_fields = ["schedule_link", "created_at", "updated_at"]
    actions = ["scan_now", "enable", "disable"]

    def save_model(self, request, obj, form, change):
        actions.do_save_site(obj, request.user, form.changed_data)

    @admin.display(description=_("start URL"))
    def first_start_url(self, site):
        return site.start_urls[0] if site.start_urls else ""

    @admin.display(description=_("last scan"))
    def last_scan(self, site):
        run = site.scans.order_by("-started_at").first()
        return f"{run.started_at:%Y-%m-%d %H:%M} {run.get_status_display()}" if run else "-"

    @admin.display(description=_("schedule"))
    def schedule_link(self, site):
        if not site.periodic_task_id:
            return "-"
        url = reverse("admin:django_celery_beat_periodictask_change", args=[site.periodic_task_id])
        return format_html('<a href="{}">{}</a>', url, site.periodic_task)

    @admin.action(description=_("Scan now"))
    def scan_now(self, request, queryset):
        for site in queryset:
            run = actions.do_start_scan(site, acting_user=request.user, trigger="admin")
            level = messages.WARNING if run.status == ScanStatus.SKIPPED else messages.INFO
            self.message_user(request, f"{site}: scan #{run.pk} {run.get_status_display()} {run.note}", level)

    @admin.action(description=_("Enable daily scans"))
    def enable(self, request, queryset):
        for site in queryset:
            actions.do_set_site_enabled(site, True, request.user)

    @admin.action(description=_("Disable daily scans"))
    def disable(self, request, queryset):
        for site in queryset:
            actions.do_set_site_enabled(site, False, request.user)


@admin.register(ScanRun)
class ScanRunAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Scan runs as recorded: figures, errors by kind, time per stage. Read-only; running scans
    can be cancelled."""

    list_display = ["pk", "site", "status", "trigger", "started_at", "finished_at", "urls_seen",
                    "pages_fetched", "pages_new", "pages_changed", "pages_unchanged", "error_total",
                    "matches_found"]
    list_filter = ["status", "trigger", "site"]
    date_hierarchy = "started_at"
    actions = ["cancel"]

    @admin.display(description=_("errors"))
    def error_total(self, run):
        return sum(run.errors.values()) if run.errors else 0

    @admin.action(description=_("Cancel the selected running scans"))
    def cancel(self, request, queryset):
        cancelled = sum(actions.do_cancel_scan(run, request.user) for run in queryset)
        self.message_user(request, f"{cancelled} scan(s) cancelled")


@admin.register(RematchJob)
class RematchJobAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Searches of the stored pages for newly indexed works (crawler.rematch): progress (pages
    searched of the library's total), state, times, matches, error. Read-only."""

    list_display = ["pk", "state", "started_at", "finished_at", "pages_searched", "pages_total",
                    "candidates", "matches_found", "matches_new", "error"]
    list_filter = ["state"]
    readonly_fields = ["works"]


@admin.register(TakedownCheck)
class TakedownCheckAdmin(RecordAdminMixin, HolderScopedAdmin):
    """Checks of matched URLs after takedown notices (crawler.takedown): time, outcome, HTTP
    status, text hash. Read-only; each holder sees its own works' checks."""

    holder_path = "match__work__holder"
    list_display = ["checked_at", "match", "outcome", "http_status", "text_sha256", "scan", "note"]
    list_filter = ["outcome"]
    list_select_related = ["match__work", "scan"]


@admin.register(WhitelistedDomain)
class WhitelistedDomainAdmin(HolderScopedAdmin):
    """Domains where a holder's works may appear: no match is recorded there."""

    list_display = ["domain", "holder", "note", "created_at"]
    list_filter = ["holder"]
    search_fields = ["domain", "note"]

    def save_model(self, request, obj, form, change):
        if change:  # a note edited: no decision to record
            super().save_model(request, obj, form, change)
        else:
            obj.pk = actions.do_whitelist_domain(obj.holder, obj.domain, request.user, obj.note).pk


@admin.register(CandidateSite)
class CandidateSiteAdmin(RecordAdminMixin, HolderScopedAdmin):
    """Candidate sites found by discovery (crawler.discovery), ranked by the pages of their
    sample that copy works, then by the links to them, with the evidence. Staff make one a
    target site or dismiss it (never proposed again); a holder sees those copying its works."""

    holder_path = "works__holder"
    list_display = ["domain", "status", "sample", "link_count", "evidence", "work_titles"]
    list_filter = ["status"]
    search_fields = ["domain"]
    actions = ["promote", "dismiss"]

    def get_queryset(self, request):
        return super().get_queryset(request).distinct().prefetch_related("works")

    @admin.display(description=_("copying / sampled"), ordering="matches_found")
    def sample(self, candidate):
        return f"{candidate.matches_found} / {candidate.pages_sampled}"

    @admin.display(description=_("linked from"))
    def evidence(self, candidate):
        # the first source page, shortened; all of them in the tooltip and on the change page
        if not candidate.linked_from:
            return "-"
        first = candidate.linked_from[0].split("://", 1)[-1]
        more = len(candidate.linked_from) - 1
        return format_html('<span class="dash-url" title="{}">{}</span>{}',
                           "\n".join(candidate.linked_from),
                           first if len(first) <= 40 else first[:39] + "…",
                           format_html(" (+{})", more) if more else "")

    @admin.display(description=_("works found"))
    def work_titles(self, candidate):
        return "; ".join(w.title for w in candidate.works.all())

    def has_change_permission(self, request, obj=None):
        # the actions below change a candidate; holders only look
        return request.user.has_perm("crawler.change_candidatesite")

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in CandidateSite._meta.get_fields() if f.concrete]  # actions only

    def _each(self, request, queryset, act) -> None:
        for candidate in queryset:
            try:
                act(candidate)
            except ActionError as exc:
                self.message_user(request, str(exc), messages.ERROR)

    @admin.action(description=_("Make target site"), permissions=["change"])
    def promote(self, request, queryset):
        def promote_one(candidate):
            site = actions.do_promote_candidate(candidate, request.user)
            self.message_user(request, _("%(domain)s is now the target site %(site)s.") % {
                "domain": candidate.domain, "site": site.name}, messages.SUCCESS)

        self._each(request, queryset.exclude(status=CandidateStatus.PROMOTED), promote_one)

    @admin.action(description=_("Dismiss (never propose again)"), permissions=["change"])
    def dismiss(self, request, queryset):
        self._each(request, queryset, lambda c: actions.do_dismiss_candidate(c, request.user))
