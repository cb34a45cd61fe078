"""The dashboard's admin pages: match list, evidence view and review, takedown notices, audit
trail, exports; the overview sits on the admin's index page (templates/admin/index.html).

Every page is a ``HolderScopedAdmin`` (core/admin.py): staff see everything, a holder's
users only their holder's rows, and any other id answers 404, in lists, pages and exports.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import (  # also registers the core pages first
    HolderScopedAdmin,
    RecordAdminMixin,
)
from core.errors import ActionError
from core.models import AuditEvent
from core.scoping import sees_all
from crawler import exports, provenance, review_actions
from crawler.evidence.verdicts import verdict_words
from crawler.models import Match, MatchKind, ReviewStatus
from dashboard import (
    audit_links,
    evidence_reports,
    internals,
    list_exports,
    navigation,
    notice_actions,
    notices,
    report,
)
from dashboard.evidence import (
    BundleTooLarge,
    bundle_response,
    captures_of,
    evidence_context,
    verify_upload,
    web_href,
)
from dashboard.filters import (
    AuditStateFilter,
    DomainFilter,
    FirstSeenRangeFilter,
    ScanFilter,
    ScoreFilter,
    WorkFilter,
)
from dashboard.models import (
    NOTICE_TRANSITIONS,
    NoticeLanguage,
    NoticeStatus,
    TakedownNotice,
)
from dashboard.work_columns import WorkColumns
from lib.evidence.verify import FAIL, UNVERIFIED, VALID


def _attachment(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _short_time(moment) -> str:
    """A datetime as its local date and time (to the minute) for list columns, with the
    seconds and UTC offset as a tooltip."""
    if not moment:
        return "—"
    local = timezone.localtime(moment)
    return format_html('<span class="dash-time" title="{}"><span>{}</span> <span>{}</span></span>',
                       local.isoformat(sep=" ", timespec="seconds"), local.strftime("%Y-%m-%d"),
                       local.strftime("%H:%M"))


def _badge(value: str, label: str) -> str:
    return format_html('<span class="dash-badge {}">{}</span>', value, label)


# the message level of each verdict on the evidence view: only VALID is a success
VERDICT_LEVELS = {VALID: messages.SUCCESS, UNVERIFIED: messages.WARNING, FAIL: messages.ERROR}

class ReasonForm:
    """Reads the reason (and for notices the language and recipient) of a bulk action."""

    def __init__(self, data):
        self.reason = (data.get("reason") or "").strip()
        self.language = data.get("language") or NoticeLanguage.ZH_HANS
        self.recipient = (data.get("recipient") or "").strip()
        self.resend = data.get("resend") == "1"


class ChapterGroupedChangeList(ChangeList):
    """The match list with the parts of one chapter split over several pages (same work) on one
    row (``Match.objects.chapter_heads``); with ``?part_of=URL`` in the query, every part."""

    def get_queryset(self, request, exclude_parameters=None):
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset if "part_of" in request.GET else queryset.chapter_heads()


class MatchAdmin(WorkColumns, HolderScopedAdmin):
    """The match list (filters, search, sort, bulk review, exports) and the evidence view.
    The parts of one chapter page are one row; bulk actions and exports take all its parts."""

    holder_path = "work__holder"
    list_display = ["evidence_link", "page", "work_link", "chapter", "holder_name", "score_pct",
                    "status_badge", "first_seen_at", "last_seen_at"]
    list_display_links = ["evidence_link"]
    list_filter = ["review_status", "kind", FirstSeenRangeFilter, ScoreFilter, DomainFilter,
                   "still_matching",
                   ("work__holder", admin.RelatedOnlyFieldListFilter),
                   WorkFilter, ScanFilter]
    search_fields = ["url", "title", "work__title", "work__reference"]
    sortable_by = ["evidence_link", "score_pct", "first_seen_at", "last_seen_at",
                   "status_badge", "work_link", "chapter", "holder_name"]
    ordering = ["-last_seen", "-pk"]
    list_per_page = 50
    actions = ["mark_confirmed", "mark_false_positive", "mark_licensed", "draft_notice"]

    def get_queryset(self, request):
        # Columns, actions, exports and the evidence view all read the work and its holder.
        return super().get_queryset(request).select_related("work", "work__holder")

    def get_changelist(self, request, **kwargs):
        return ChapterGroupedChangeList

    def listed_queryset(self, request):
        """The rows of the unfiltered list: the user's matches, one per chapter group."""
        return self.get_queryset(request).chapter_heads()

    # -- list columns -----------------------------------------------------------------------
    @admin.display(description=gettext_lazy("match"), ordering="pk")
    def evidence_link(self, obj):
        return f"#{obj.pk}"

    @admin.display(description=gettext_lazy("page"))
    def page(self, obj):
        cell = format_html('<a class="dash-url" href="{}" target="_blank" rel="noopener '
                           'noreferrer">{}</a><br><span class="dash-muted">{}</span>',
                           web_href(obj.url), obj.title or obj.url, obj.url if obj.title else "")
        count = getattr(obj, "part_count", 1)  # the row of a chapter split over pages
        if count < 2:
            return cell
        query = urlencode({"part_of": obj.part_of, "work__id__exact": obj.work_id})
        return format_html('{}<br><a class="dash-parts" href="?{}">{}</a>', cell, query,
                           _("%(n)d pages of one chapter") % {"n": count})

    @admin.display(description=gettext_lazy("chapter"), ordering="section")
    def chapter(self, obj):
        """The titles of the work's chapters the page copies (``Match.section``), "—" for none."""
        return obj.section or "—"

    @admin.display(description=gettext_lazy("score"), ordering="score")
    def score_pct(self, obj):
        if obj.kind == MatchKind.COPY:
            return f"{round(obj.score * 100)}%"
        return format_html("{}%<br>{}", round(obj.score * 100),
                           _badge(obj.kind, obj.get_kind_display()))

    @admin.display(description=gettext_lazy("review status"), ordering="review_status")
    def status_badge(self, obj):
        return _badge(obj.review_status, obj.get_review_status_display())

    @admin.display(description=gettext_lazy("first seen"), ordering="first_seen")
    def first_seen_at(self, obj):
        return _short_time(obj.first_seen)

    @admin.display(description=gettext_lazy("last seen"), ordering="last_seen")
    def last_seen_at(self, obj):
        return _short_time(obj.last_seen)

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        if not sees_all(request.user):
            columns.remove("holder_name")
        return columns

    def get_list_filter(self, request):
        filters = list(super().get_list_filter(request))
        if not sees_all(request.user):
            filters = [f for f in filters if not (isinstance(f, tuple)
                                                  and f[0] == "work__holder")]
        return filters

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not request.user.is_superuser:
            actions.pop("delete_selected", None)
        if not self.has_change_permission(request):
            for name in self.actions:
                actions.pop(name, None)
        return actions

    def has_add_permission(self, request):
        return False  # matches come from scans only

    # -- URLs -------------------------------------------------------------------------------
    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("export/<str:fmt>/", wrap(self.export_view), name="crawler_match_export"),
            path("<path:object_id>/report/", wrap(self.report_view), name="crawler_match_report"),
            path("<path:object_id>/report/pdf/", wrap(self.report_view), {"pdf": True},
                 name="crawler_match_report_pdf"),
            path("<path:object_id>/bundle/<int:capture_id>/", wrap(self.bundle_view),
                 name="crawler_match_bundle"),
            path("<path:object_id>/bundle/verify/", wrap(self.verify_bundle_view),
                 name="crawler_match_verify_bundle"),
            *super().get_urls(),
        ]

    # -- evidence view and review -----------------------------------------------------------
    def change_view(self, request, object_id, form_url="", extra_context=None):
        match = self.get_object(request, unquote(object_id))  # 404 outside the user's scope
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        if request.method == "POST":
            if not self.has_change_permission(request, match):
                raise PermissionDenied
            try:
                review_actions.do_review_match(match, request.POST.get("decision", ""),
                                               request.POST.get("reason", ""), request.user)
            except ActionError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                self.message_user(request, _("Decision recorded: %(status)s.") % {
                    "status": match.get_review_status_display()}, messages.SUCCESS)
            return HttpResponseRedirect(request.path)
        context = {
            **self.admin_site.each_context(request),
            **evidence_context(match),
            "opts": self.opts,
            "title": _("Evidence for match #%(id)s") % {"id": match.pk},
            "can_review": self.has_change_permission(request, match),
            "review_choices": [(v, label) for v, label in review_actions.review_choices()
                               if v != ReviewStatus.NEW],
            "trail": AuditEvent.objects.about(match).order_by("-sequence"),
            "notices": match.takedown_notices.all(),
            "can_draft": match.review_status == ReviewStatus.CONFIRMED
            and self.has_change_permission(request, match),
            "languages": NoticeLanguage.choices,
            "captures": captures_of(match),
        }
        context["found_by"] = provenance.found_by(match)
        context["found_by_names"] = provenance.way_names(context["found_by"])
        context["found_by_scans"] = [w for w in context["found_by"] if w["way"] == "scan"]
        return TemplateResponse(request, "dashboard/evidence.html", context)

    def report_view(self, request, object_id, pdf=False):
        """The evidence report of one match, an HTML (or PDF) file to archive."""
        match = self.get_object(request, unquote(object_id))
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        name = f"evidence-match-{match.pk}-{timezone.localtime().strftime('%Y%m%d-%H%M')}"
        if pdf:
            try:
                return _attachment(evidence_reports.kept_report_pdf(match, request.user),
                                   "application/pdf",
                                   f"{name}.pdf")
            except pdf.PdfUnavailableError as exc:
                return HttpResponse(str(exc), status=503, content_type="text/plain")
        return _attachment(report.render(match, request.user).encode("utf-8"),
                           "text/html; charset=utf-8", f"{name}.html")

    def bundle_view(self, request, object_id, capture_id):
        """One evidence bundle (WACZ) of the match: 404 outside the user's scope."""
        match = self.get_object(request, unquote(object_id))
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        return bundle_response(match, capture_id)

    def verify_bundle_view(self, request, object_id):
        """Verify an uploaded evidence bundle (POST, field ``bundle``) and say the verdict on
        the evidence view; nothing is stored."""
        match = self.get_object(request, unquote(object_id))
        if request.method != "POST" or not self.has_view_permission(request, match):
            raise PermissionDenied
        upload = request.FILES.get("bundle")
        if upload is None:
            self.message_user(request, _("Choose a .wacz file to verify."), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:crawler_match_change", args=[match.pk]))
        try:
            verdict = verify_upload(upload)
        except BundleTooLarge as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, verdict_words(verdict, upload.name),
                              VERDICT_LEVELS[verdict.status])
        return HttpResponseRedirect(reverse("admin:crawler_match_change", args=[match.pk]))

    # -- exports ----------------------------------------------------------------------------
    def export_view(self, request, fmt):
        """The match list as CSV or XLSX with the list's current filters, search and order."""
        return list_exports.export_response(self, request, fmt, "matches", exports.csv_chunks,
                                            exports.to_xlsx,
                                            lambda found: provenance.loaded(found.with_parts()))

    def changelist_view(self, request, extra_context=None):
        query = request.GET.urlencode()
        extra_context = {**(extra_context or {}), "export_query": f"?{query}" if query else "",
                         "title": _("Matches found")}
        return super().changelist_view(request, extra_context)

    # -- bulk actions -----------------------------------------------------------------------
    def _reason_page(self, request, queryset, action: str, heading: str, notice: bool = False):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts, "title": heading, "queryset": queryset, "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME, "notice": notice,
            "languages": NoticeLanguage.choices,
            "select_across": request.POST.get("select_across", "0"),
            "reason_missing": "apply" in request.POST and not request.POST.get("reason", "").strip(),
            "already_sent": notice_actions.already_sent(queryset) if notice else {},
        }
        return TemplateResponse(request, "dashboard/action_reason.html", context)

    def _bulk_review(self, request, queryset, decision: str, heading: str):
        queryset = queryset.with_parts()  # a chapter's row stands for all its pages
        form = ReasonForm(request.POST)
        if "apply" not in request.POST or not form.reason:
            if "apply" in request.POST:
                self.message_user(request, _("Give a reason for the decision."), messages.ERROR)
            return self._reason_page(request, queryset, request.POST["action"], heading)
        changed, skipped = review_actions.do_review_matches(queryset, decision, form.reason, request.user)
        self.message_user(request, _("%(n)d matches updated.") % {"n": changed},
                          messages.SUCCESS)
        for line in skipped:
            self.message_user(request, line, messages.WARNING)
        return None

    @admin.action(description=gettext_lazy("Confirm as infringement"))
    def mark_confirmed(self, request, queryset):
        return self._bulk_review(request, queryset, ReviewStatus.CONFIRMED,
                                 _("Confirm as infringement"))

    @admin.action(description=gettext_lazy("Mark as false positive"))
    def mark_false_positive(self, request, queryset):
        return self._bulk_review(request, queryset, ReviewStatus.FALSE_POSITIVE,
                                 _("Mark as false positive"))

    @admin.action(description=gettext_lazy("Mark as licensed (whitelist the domain)"))
    def mark_licensed(self, request, queryset):
        return self._bulk_review(request, queryset, ReviewStatus.LICENSED,
                                 _("Mark as licensed (whitelist the domain)"))

    @admin.action(description=gettext_lazy("Draft takedown notices"))
    def draft_notice(self, request, queryset):
        queryset = queryset.with_parts()
        if "apply" not in request.POST:
            return self._reason_page(request, queryset, "draft_notice",
                                     _("Draft takedown notices"), notice=True)
        form = ReasonForm(request.POST)
        try:
            drafted = notice_actions.do_draft_notices(queryset, request.user, form.language,
                                                      form.recipient, resend=form.resend)
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return None
        self.message_user(request, _("%(n)d takedown notices drafted.") % {"n": len(drafted)},
                          messages.SUCCESS)
        if len(drafted) == 1:
            return redirect("admin:dashboard_takedownnotice_change", drafted[0].pk)
        return redirect("admin:dashboard_takedownnotice_changelist")


class TakedownNoticeAdmin(HolderScopedAdmin):
    """Takedown notices: the text, status moves with dates, .docx and .txt downloads."""

    list_display = ["__str__", "holder", "domain", "language", "status_badge", "drafted_at",
                    "sent_at", "removed_at", "counter_notice_at", "match_count"]
    list_filter = ["status", "language", ("holder", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["domain", "recipient", "holder__name"]
    fields = ["holder", "domain", "recipient", "recipient_role", "escalation_of", "language",
              "status", "drafted_at", "sent_at", "removed_at", "counter_notice_at", "created_by",
              "body"]
    readonly_fields = ["holder", "domain", "recipient_role", "escalation_of", "language", "status",
                       "drafted_at", "sent_at", "removed_at", "counter_notice_at", "created_by"]
    change_form_template = "dashboard/notice_change_form.html"

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(match_total=Count("matches"))

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_badge(self, obj):
        return _badge(obj.status, obj.get_status_display())

    @admin.display(description=gettext_lazy("matches"), ordering="match_total")
    def match_count(self, obj):
        return obj.match_total

    def has_add_permission(self, request):
        return False  # drafted from confirmed matches (match list action or evidence view)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and (obj is None or obj.status == NoticeStatus.DRAFTED)

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj and obj.status != NoticeStatus.DRAFTED:
            fields.append("recipient")  # what was sent stays as sent
        return fields

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj and obj.status != NoticeStatus.DRAFTED:  # the frozen text is shown below
            fields = [name for name in fields if name != "body"]
        return fields

    def get_object(self, request, object_id, from_field=None):
        notice = super().get_object(request, object_id, from_field)
        if notice is not None and not notice.body:
            notice.body = notices.generated_text(notice)  # shown for editing; not saved as is
        return notice

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "body":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 30, "class": "dash-notice-edit"})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        try:
            notice_actions.do_edit_notice(obj, request.user, body=form.cleaned_data.get("body"),
                                          recipient=form.cleaned_data.get("recipient"))
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<path:object_id>/download/<str:fmt>/", wrap(self.download_view),
                 name="dashboard_takedownnotice_download"),
            path("<path:object_id>/status/", wrap(self.status_view),
                 name="dashboard_takedownnotice_status"),
            path("<path:object_id>/check/", wrap(self.check_view),
                 name="dashboard_takedownnotice_check"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        notice = self.get_object(request, unquote(object_id))
        extra_context = {
            **(extra_context or {}),
            "notice_text": notices.render_text(notice),
            "transitions": [(s, NoticeStatus(s).label) for s in NOTICE_TRANSITIONS[notice.status]],
            "trail": AuditEvent.objects.about(notice).order_by("-sequence"),
            "cited": notice.matches.all(),
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def download_view(self, request, object_id, fmt):
        """The notice as a .docx or .txt document."""
        notice = self.get_object(request, unquote(object_id))
        if not self.has_view_permission(request, notice):
            raise PermissionDenied
        name = f"takedown-notice-{notice.pk}-{notice.domain}"
        if fmt == "docx":
            return _attachment(notices.render_docx(notice), "application/vnd.openxmlformats-"
                               "officedocument.wordprocessingml.document", f"{name}.docx")
        if fmt == "txt":
            return _attachment(notices.render_text(notice).encode("utf-8"),
                               "text/plain; charset=utf-8", f"{name}.txt")
        raise PermissionDenied

    def check_view(self, request, object_id):
        """POST: "Check now", the notice's takedown check queued at once."""
        notice = self.get_object(request, unquote(object_id))
        if request.method != "POST" or not self.has_change_permission(request, notice):
            raise PermissionDenied
        try:
            notice_actions.do_check_notice(notice, request.user)
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, _("The notice's pages are being checked; the outcome "
                                         "appears in the audit trail below."), messages.SUCCESS)
        return redirect(reverse("admin:dashboard_takedownnotice_change", args=[notice.pk]))

    def status_view(self, request, object_id):
        """POST: move the notice to ``status`` (with an optional ``note``)."""
        notice = self.get_object(request, unquote(object_id))
        if request.method != "POST" or not self.has_change_permission(request, notice):
            raise PermissionDenied
        try:
            notice_actions.do_advance_notice(notice, request.POST.get("status", ""), request.user,
                                             request.POST.get("note", ""))
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, _("Notice is now “%(status)s”.") % {
                "status": notice.get_status_display()}, messages.SUCCESS)
        return redirect(reverse("admin:dashboard_takedownnotice_change", args=[notice.pk]))


class AuditEventAdmin(RecordAdminMixin, HolderScopedAdmin):
    """The audit trail: read only, for everyone who may see the holder's data."""

    deletable = False

    list_display = ["sequence", "at", "kind", "username", "subject_link", "from_state",
                    "to_state", "reason_words"]
    list_filter = ["kind", AuditStateFilter]
    # the change page names the states and coded reasons in words instead
    exclude = ["old_state", "new_state", "reason"]
    readonly_fields = ["from_state", "to_state", "reason_words"]

    def get_changelist(self, request, **kwargs):
        return audit_links.AuditChangeList

    @admin.display(description=gettext_lazy("subject"), ordering="subject")
    def subject_link(self, obj):
        url = getattr(obj, "target_url", None)
        return format_html('<a href="{}">{}</a>', url, obj.subject_label) if url else obj.subject_label

    @admin.display(description=gettext_lazy("from"), ordering="old_state")
    def from_state(self, obj):
        return obj.old_label

    @admin.display(description=gettext_lazy("to"), ordering="new_state")
    def to_state(self, obj):
        return obj.new_label

    @admin.display(description=gettext_lazy("reason"), ordering="reason")
    def reason_words(self, obj):
        return obj.reason_label
    search_fields = ["subject", "username", "reason"]
    list_display_links = None


admin.site.register(Match, MatchAdmin)
admin.site.register(TakedownNotice, TakedownNoticeAdmin)
admin.site.register(AuditEvent, AuditEventAdmin)
from dashboard.api import admin as _api_admin  # noqa: E402,F401  (registers the API tokens page)

internals.restrict()  # django-celery-beat's and django-axes's pages: superusers only
navigation.fix_order()  # the same sidebar in every language
from dashboard import case_admin as _case_admin  # noqa: E402,F401  (registers the case pages)
from dashboard import rights_documents as _rights_documents  # noqa: E402,F401  (registers its page)
