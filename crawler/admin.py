"""Admin pages of the crawler's models: target sites (staff), scan runs (read-only, cancellable)
and whitelisted domains (each rights holder its own, through HolderScopedAdmin).

A site's schedule ("daily at 03:00", weekly or hourly) is set on the site's own form and stored
as its django-celery-beat periodic task (crawler.schedule); "Scan now" starts a run through the
workers at once.
"""

from __future__ import annotations

from datetime import time

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext as gettext_now
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core import notes
from core.admin import HolderScopedAdmin, RecordAdminMixin
from core.connections import storage_errors
from core.errors import ActionError
from crawler import (
    candidate_actions,
    domain_moves,
    labels,
    progress,
    review_actions,
    scan_actions,
    schedule,
    site_actions,
)
from crawler.filters import TriggerFilter
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    RematchJob,
    ScanRun,
    ScanStatus,
    SiteContact,
    TakedownCheck,
    TargetSite,
    WhitelistedDomain,
)
from lib.crawl.domains import registered_domain


class LinesField(forms.CharField):
    """A list of strings edited as one item per line (the model keeps a JSON list)."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 80})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value):
        return [line.strip() for line in (value or "").splitlines() if line.strip()]


class TargetSiteForm(forms.ModelForm):
    """Start URLs, allowed domains and path patterns one per line."""

    start_urls = LinesField(label=capfirst(_("start URLs")), help_text=_("Pages, sitemaps or RSS/Atom feeds, one per line."))
    allowed_domains = LinesField(label=capfirst(_("allowed domains")), required=False,
                                 help_text=_("One host per line; empty: the start URLs' hosts."))
    path_patterns = LinesField(label=capfirst(_("path patterns")), required=False,
                               help_text=_("Regular expressions, one per line; empty: every path."))

    # Not required: a post without it (a script, an older form) keeps the current schedule.
    schedule_frequency = forms.ChoiceField(label=capfirst(_("scan schedule")), choices=schedule.FREQUENCIES,
                                           required=False)
    schedule_time = forms.TimeField(  # help text: __init__, in the reader's language
        label=capfirst(_("at (HH:MM)")), required=False, input_formats=["%H:%M"],
        widget=forms.TimeInput(format="%H:%M", attrs={"size": 5, "placeholder": "03:00"}))
    schedule_weekday = forms.TypedChoiceField(label=capfirst(_("on")), choices=[("", "—"), *schedule.WEEKDAYS],
                                              coerce=int, required=False, empty_value=None,
                                              help_text=_("For weekly scans."))
    schedule_minute = forms.IntegerField(label=capfirst(_("at minute")), min_value=0, max_value=59,
                                         required=False, help_text=_("For hourly scans, 0–59."))
    SCHEDULE_FIELDS = ("schedule_frequency", "schedule_time", "schedule_weekday",
                       "schedule_minute")

    class Meta:
        model = TargetSite
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["schedule_time"].help_text = _(
            "For daily and weekly scans, in the platform's time zone (%(zone)s).") % {
            "zone": settings.TIME_ZONE}
        timing = schedule.read(self.instance)
        self.custom_schedule = timing is None  # a superuser's crontab: kept unless changed
        timing = timing or schedule.default_timing()
        # only the fields this frequency uses start filled (the others are hidden by
        # dashboard/schedule.js): a daily 10:30 shows no "minute 30" of an hourly scan
        self.initial["schedule_frequency"] = timing.frequency
        if timing.frequency == schedule.HOURLY:
            self.initial["schedule_minute"] = timing.minute
        else:
            self.initial["schedule_time"] = time(timing.hour, timing.minute)
        if timing.frequency == schedule.WEEKLY:
            self.initial["schedule_weekday"] = timing.weekday
        if self.custom_schedule:
            self.fields["schedule_frequency"].help_text = _(
                "A superuser set another timing on the schedules' screens; it is kept unless "
                "you change these fields.")

    def clean(self):
        data = super().clean()
        frequency = data.get("schedule_frequency")
        if frequency in (schedule.DAILY, schedule.WEEKLY) and data.get("schedule_time") is None:
            self.add_error("schedule_time", _("Give the time as HH:MM, e.g. 03:00."))
        if frequency == schedule.WEEKLY and data.get("schedule_weekday") is None:
            self.add_error("schedule_weekday", _("Choose the day of the week."))
        if frequency == schedule.HOURLY and data.get("schedule_minute") is None:
            self.add_error("schedule_minute", _("Give the minute of the hour, 0–59."))
        unused = {schedule.DAILY: ("schedule_weekday", "schedule_minute"),
                  schedule.WEEKLY: ("schedule_minute",),
                  schedule.HOURLY: ("schedule_time", "schedule_weekday")}.get(frequency, ())
        for name in unused:  # a value this frequency would ignore: say so rather than drop it
            if name in self.changed_data and data.get(name) is not None:
                self.add_error(name, _("Not used by %(frequency)s scans: leave it empty.") % {
                    "frequency": dict(schedule.FREQUENCIES)[frequency]})
        return data

    def timing(self) -> schedule.Timing | None:
        """The schedule chosen (a ``crawler.schedule.Timing``), or None when the form left it
        as it was or was posted without it (call after ``is_valid``)."""
        data = self.cleaned_data
        if not data.get("schedule_frequency") or (
                self.instance.pk and not set(self.SCHEDULE_FIELDS) & set(self.changed_data)):
            return None
        frequency, at = data["schedule_frequency"], data.get("schedule_time") or time(0, 0)
        if frequency == schedule.HOURLY:
            return schedule.Timing(schedule.HOURLY, 0, data["schedule_minute"])
        weekday = data["schedule_weekday"] if frequency == schedule.WEEKLY else 1
        return schedule.Timing(frequency, at.hour, at.minute, weekday)


@admin.register(TargetSite)
class TargetSiteAdmin(admin.ModelAdmin):
    """Target sites: what to crawl and how politely; actions start a scan or toggle the schedule."""

    form = TargetSiteForm
    list_display = ["name", "enabled", "first_start_url", "schedule_text", "max_pages", "max_depth",
                    "delay_seconds", "needs_browser", "last_scan"]
    list_filter = ["enabled", "needs_browser", "accept_invalid_certificate"]
    search_fields = ["name", "start_urls"]
    readonly_fields = ["takedown_contacts", "created_at", "updated_at"]
    actions = ["scan_now", "check_now", "enable", "disable"]

    def save_model(self, request, obj, form, change):
        site_actions.do_save_site(obj, request.user, form.changed_data, timing=form.timing())

    @admin.display(description=_("takedown contact"))
    def takedown_contacts(self, site):
        """The takedown contact of each registered domain the site covers, linked to its form
        (contacts live per registered domain: docs/takedown.md)."""
        domains = sorted({registered_domain(d) for d in site.allowed_domains})
        found = {c.domain: c for c in SiteContact.objects.filter(domain__in=domains)}
        return format_html_join(", ", '<a href="{}">{}</a>: {}', (
            (reverse("admin:crawler_sitecontact_change", args=[found[d].pk]) if d in found
             else reverse("admin:crawler_sitecontact_changelist") + "?q=" + d, d,
             found[d].address if d in found and found[d].address else "—")
            for d in domains)) or "—"

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [path("<path:object_id>/scan/", wrap(self.scan_view), name="crawler_targetsite_scan"),
                path("<path:object_id>/check/", wrap(self.check_view),
                     name="crawler_targetsite_check"),
                *super().get_urls()]

    def _site_post(self, request, object_id, act) -> HttpResponseRedirect:
        """POST from the site's page: ``act(request, queryset of the site)``; to the page the
        action answers with (a started scan's progress), else back to the site's page."""
        site = self.get_object(request, unquote(object_id))
        if request.method != "POST" or site is None or not self.has_change_permission(request, site):
            raise PermissionDenied
        answer = act(request, TargetSite.objects.filter(pk=site.pk))
        return answer or redirect(reverse("admin:crawler_targetsite_change", args=[site.pk]))

    def scan_view(self, request, object_id):
        """POST: the site page's "Scan now"."""
        return self._site_post(request, object_id, self.scan_now)

    def check_view(self, request, object_id):
        """POST: the site page's "Check takedowns now"."""
        return self._site_post(request, object_id, self.check_now)

    @admin.display(description=_("start URL"))
    def first_start_url(self, site):
        return site.start_urls[0] if site.start_urls else ""

    @admin.display(description=_("scan schedule"))
    def schedule_text(self, site):
        timing = schedule.read(site)
        return timing.describe() if timing else gettext_now("set by a superuser")

    @admin.display(description=_("last scan"))
    def last_scan(self, site):
        run = site.scans.order_by("-started_at").first()
        if run is None:
            return "—"
        when = formats.date_format(timezone.localtime(run.started_at), "SHORT_DATETIME_FORMAT")
        return f"{when} {run.get_status_display()}"

    @admin.action(description=_("Scan now"))
    def scan_now(self, request, queryset):
        """Start a scan of each site; each message links to its scan's progress page. One
        scan started: answers with a redirect to its progress page (else None: the list)."""
        started = []
        for site in queryset:
            run = scan_actions.do_start_scan(site, acting_user=request.user, trigger="admin")
            level = messages.WARNING if run.status == ScanStatus.SKIPPED else messages.INFO
            url = reverse("admin:crawler_scanrun_change", args=[run.pk])
            self.message_user(request, format_html('<a href="{}">{}</a>', url, gettext_now(
                "%(site)s: scan #%(id)s %(status)s %(note)s") % {
                "site": site, "id": run.pk, "status": run.get_status_display(),
                "note": run.note_words}), level)
            if run.status != ScanStatus.SKIPPED:
                started.append(url)
        return redirect(started[0]) if len(started) == 1 else None

    @admin.action(description=_("Check takedowns now"))
    def check_now(self, request, queryset):
        for site in queryset:
            try:
                count = site_actions.do_check_site(site, request.user)
            except ActionError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, ngettext(
                    "%(site)s: %(count)d confirmed match is being checked.",
                    "%(site)s: %(count)d confirmed matches are being checked.", count) % {
                    "site": site, "count": count})

    @admin.action(description=_("Enable scheduled scans"))
    def enable(self, request, queryset):
        for site in queryset:
            site_actions.do_set_site_enabled(site, True, request.user)

    @admin.action(description=_("Disable scheduled scans"))
    def disable(self, request, queryset):
        for site in queryset:
            site_actions.do_set_site_enabled(site, False, request.user)


@admin.register(ScanRun)
class ScanRunAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Scan runs as recorded: figures, errors by kind, time per stage. Read-only; running scans
    can be cancelled."""

    # The finish time is on the run's page: at 1366 px the counts matter more in the list.
    list_display = ["number", "site", "status", "trigger_label", "started_at", "urls_seen",
                    "pages_fetched", "pages_new", "pages_changed", "pages_unchanged",
                    "error_total", "matches_link"]
    list_filter = ["status", TriggerFilter, "site"]
    date_hierarchy = "started_at"
    actions = ["cancel"]
    # The figures, status and times are in the live progress panel above these fields
    # (template admin/crawler/scanrun/change_form.html, crawler.progress).
    # Codes (trigger, stage names) are shown in words (crawler.labels).
    fields = ["site", "trigger_label", "max_pages", "stages_in_words"]
    readonly_fields = ["trigger_label", "stages_in_words"]

    def get_urls(self):
        return [path("progress/", self.admin_site.admin_view(progress.progress_view),
                     name="crawler_scanrun_progress"), *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        if run is not None:
            try:
                figures = progress.progress(run, request.user)
            except storage_errors():
                figures = None  # the panel says so; the page's script tries again
            extra_context = {**(extra_context or {}), "progress": figures,
                             "progress_poll": progress.poll_settings(),
                             "subtitle": progress.scan_label(run)}
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description=_("scan"), ordering="pk")
    def number(self, run):
        return f"#{run.pk}"

    @admin.display(description=_("trigger"), ordering="trigger")
    def trigger_label(self, run):
        return labels.trigger_label(run.trigger)

    @admin.display(description=_("time per stage"))
    def stages_in_words(self, run):
        return labels.stages_in_words(run.stage_seconds)

    @admin.display(description=_("errors"))
    def error_total(self, run):
        return sum(labels.split_errors(run.errors)[0].values())

    def get_changelist_instance(self, request):
        """The list, each run of the page given ``listed_matches``: the rows its link lists
        for this user (``progress.listed_matches``), not the figure stored when it closed."""
        changelist = super().get_changelist_instance(request)
        for run in changelist.result_list:
            run.listed_matches = progress.listed_matches(run.pk, request.user)
        return changelist

    @admin.display(description=_("matches found"))
    def matches_link(self, run):
        return format_html('<a href="{}">{}</a>', progress.matches_url(run.pk), run.listed_matches)

    @admin.action(description=_("Cancel the selected running scans"))
    def cancel(self, request, queryset):
        cancelled = sum(scan_actions.do_cancel_scan(run, request.user) for run in queryset)
        self.message_user(request, ngettext("%(n)d scan cancelled", "%(n)d scans cancelled",
                                            cancelled) % {"n": cancelled})


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
    list_display = ["checked_at", "match", "outcome", "http_status", "text_hash", "scan",
                    "note_words"]
    list_filter = ["outcome"]
    list_select_related = ["match__work", "scan"]
    exclude = ["note"]  # shown in words of the reader's language instead
    readonly_fields = ["note_words"]

    @admin.display(description=_("note"), ordering="note")
    def note_words(self, check):
        return notes.in_words(check.note)

    @admin.display(description=_("text SHA-256"), ordering="text_sha256")
    def text_hash(self, check):
        """The hash's first 12 hex digits (the whole one on hover and on the check's page): 64
        digits would push the list past a 1366 px screen."""
        if not check.text_sha256:
            return "-"
        return format_html('<span title="{}">{}…</span>', check.text_sha256,
                           check.text_sha256[:12])


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
            obj.pk = review_actions.do_whitelist_domain(obj.holder, obj.domain, request.user, obj.note).pk


def _url_list(urls: list[str]) -> str:
    """URLs as an HTML list of links (they open in a new tab), "—" for none."""
    if not urls:
        return "—"
    return format_html('<ul class="dash-url-list">{}</ul>', format_html_join(
        "", '<li><a class="dash-url" href="{}" target="_blank" rel="noopener noreferrer">{}</a></li>',
        ((url, url) for url in urls)))


@admin.register(CandidateSite)
class CandidateSiteAdmin(RecordAdminMixin, HolderScopedAdmin):
    """Candidate sites found by discovery (crawler.discovery), ranked by the pages of their
    sample that copy works, then by the links to them, with the evidence. Staff make one a
    target site or dismiss it (never proposed again); a holder sees those copying its works."""

    holder_path = "works__holder"
    list_display = ["domain", "status", "sample", "link_count", "evidence", "work_titles",
                    "moved_from_words"]
    list_filter = ["status"]
    search_fields = ["domain"]
    actions = ["promote", "dismiss"]

    def get_queryset(self, request):
        return super().get_queryset(request).distinct().prefetch_related("works").select_related("moved_from")

    @admin.display(description=_("copying / sampled"), ordering="matches_found")
    def sample(self, candidate):
        return f"{candidate.matches_found} / {candidate.pages_sampled}"

    @admin.display(description=_("linked from"))
    def evidence(self, candidate):
        # the first source page, shortened; all of them in the tooltip and on the change page;
        # a site a web search found is linked from no page: the search, with its page
        if not candidate.linked_from:
            if notes.code_of(candidate.note) == "found_by_search":
                return format_html('<span title="{}">{}</span>', notes.in_words(candidate.note),
                                   _("web search"))
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

    exclude = ["linked_from", "sample_urls", "note", "move_evidence"]  # as links and in words

    def get_readonly_fields(self, request, obj=None):
        # changed by the actions only
        shown = {"linked_from": "linked_from_list", "sample_urls": "sample_urls_list",
                 "note": "note_words", "move_evidence": "move_evidence_list"}
        return [shown.get(f.name, f.name) for f in CandidateSite._meta.get_fields() if f.concrete]

    @admin.display(description=_("linked from"))
    def linked_from_list(self, candidate):
        return _url_list(candidate.linked_from)

    @admin.display(description=_("pages to sample"))
    def sample_urls_list(self, candidate):
        return _url_list(candidate.sample_urls)

    @admin.display(description=_("note"))
    def note_words(self, candidate):
        return notes.in_words(candidate.note) or "—"

    @admin.display(description=_("moved from"), ordering="moved_from")
    def moved_from_words(self, candidate):
        # the old site and the first redirect or page count; every item on the change page
        return domain_moves.evidence_summary(candidate) or "-"

    @admin.display(description=_("evidence of the move"))
    def move_evidence_list(self, candidate):
        lines = domain_moves.evidence_lines(candidate)
        if not lines:
            return "—"
        return format_html("<p>{}</p><ul>{}</ul>", domain_moves.evidence_summary(candidate),
                           format_html_join("", "<li>{}</li>", ((line,) for line in lines)))

    def get_urls(self):
        return [path("discover/", self.admin_site.admin_view(self.discover_view),
                     name="crawler_candidatesite_discover"), *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}),
                         "can_discover": self.has_change_permission(request)}
        return super().changelist_view(request, extra_context)

    def discover_view(self, request):
        """POST: "Discover now", a discovery pass queued at once."""
        if request.method != "POST" or not self.has_change_permission(request):
            raise PermissionDenied
        candidate_actions.do_discover_sites(request.user)
        self.message_user(request, _("Discovery started: new candidates appear here when it "
                                     "ends."), messages.SUCCESS)
        return redirect(reverse("admin:crawler_candidatesite_changelist"))

    def _each(self, request, queryset, act) -> None:
        for candidate in queryset:
            try:
                act(candidate)
            except ActionError as exc:
                self.message_user(request, str(exc), messages.ERROR)

    @admin.action(description=_("Make target site"), permissions=["change"])
    def promote(self, request, queryset):
        def promote_one(candidate):
            site = candidate_actions.do_promote_candidate(candidate, request.user)
            self.message_user(request, _("%(domain)s is now the target site %(site)s.") % {
                "domain": candidate.domain, "site": site.name}, messages.SUCCESS)

        self._each(request, queryset.exclude(status=CandidateStatus.PROMOTED), promote_one)

    @admin.action(description=_("Dismiss (never propose again)"), permissions=["change"])
    def dismiss(self, request, queryset):
        self._each(request, queryset, lambda c: candidate_actions.do_dismiss_candidate(c, request.user))


# the takedown contact, site proposal, search run and archive scan pages register themselves
from crawler import archive_admin, contact_admin, proposal_admin, search_admin  # noqa: E402, F401
