"""The case list, the daily queue of rights staff, and the case page.

List: filters (holder, work, site, state, age), counts of cases by state above it (each a link
to the filtered list), CSV and XLSX exports of the cases it shows, bulk actions (confirm,
dismiss, reopen, draft notices, send notices after a page saying what goes where) that act on
the cases they can act on and name the skipped ones with the reason. Page: the case's facts, its
pages with their chapters and evidence links (paginated, ``settings.CASE_PAGES_PER_PAGE``), the
notices citing them, the site's takedown contact (set, or suggested by a search and confirmed by
staff), sending the notice by e-mail and its e-mails' outcome, the takedown checks, and the
timeline of the case and its notices from the audit trail. Every change goes through
``crawler.case_actions``, ``crawler.contacts`` or
``dashboard.notice_actions``.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone, translation
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import HolderScopedAdmin
from core.errors import ActionError
from core.models import AuditEvent
from core.scoping import sees_all
from crawler import case_actions, case_exports, cases, contacts
from crawler.evidence.models import Capture, CaptureState
from crawler.models import (
    Case,
    CaseState,
    ContactSource,
    ContactSuggestion,
    ReviewStatus,
    SiteContact,
    TakedownCheck,
)
from crawler.platform_registry import platform_of_case
from dashboard import case_figures, complaint_package, list_exports, notice_actions
from dashboard.filters import DomainFilter, WorkFilter
from dashboard.models import (
    MAIL_PENDING,
    NoticeLanguage,
    NoticeMail,
    NoticeReminder,
    NoticeStatus,
    TakedownNotice,
)
from dashboard.pdf import PdfUnavailableError
from dashboard.work_columns import WorkColumns
from lib.evidence.signing import SigningError

#: (parameter value, label, youngest age in days, oldest age in days exclusive).
AGES = [
    ("1", gettext_lazy("opened today"), 0, 1),
    ("7", gettext_lazy("opened 1 to 7 days ago"), 1, 7),
    ("30", gettext_lazy("opened 7 to 30 days ago"), 7, 30),
    ("old", gettext_lazy("opened over 30 days ago"), 30, None),
]

#: The buttons of the case page, by verb of ``crawler.case_actions.MOVES``.
VERB_LABELS = {"confirm": gettext_lazy("Confirm"), "dismiss": gettext_lazy("Dismiss"),
               "reopen": gettext_lazy("Reopen")}


class AgeFilter(admin.SimpleListFilter):
    """How long ago a case was opened."""

    title = gettext_lazy("age")
    parameter_name = "age"

    def lookups(self, request, model_admin):
        return [(value, label) for value, label, _young, _old in AGES]

    def queryset(self, request, queryset):
        for value, _label, young, old in AGES:
            if self.value() == value:
                now = timezone.now()
                queryset = queryset.filter(opened_at__lte=now - timedelta(days=young))
                return queryset.filter(opened_at__gt=now - timedelta(days=old)) if old else queryset
        return queryset


class ReachedFilter(admin.SimpleListFilter):
    """The cases that reached a step of the overview's funnel (``case_figures.STEPS``): the
    list each funnel figure links to, so that it lists the cases the figure counts."""

    title = gettext_lazy("reached")
    parameter_name = "reached"

    def lookups(self, request, model_admin):
        return [("confirmed", gettext_lazy("confirmed")),
                ("notice_sent", gettext_lazy("notice sent")),
                ("escalated", gettext_lazy("escalated")),
                ("removed", gettext_lazy("removed"))]

    def queryset(self, request, queryset):
        if self.value() in dict(case_figures.STEPS):
            return case_figures.reached(queryset, self.value())
        return queryset


class CaseAdmin(WorkColumns, HolderScopedAdmin):
    """Cases: the list (queue) and the case page."""

    holder_path = "work__holder"
    list_display = ["case_link", "work_link", "holder_name", "domain", "state_badge",
                    "page_count", "standing_count", "opened", "state_changed"]
    list_display_links = None
    list_filter = ["state", ("work__holder", admin.RelatedOnlyFieldListFilter), WorkFilter,
                   DomainFilter, AgeFilter, ReachedFilter]
    search_fields = ["domain", "work__title", "work__reference", "pages__url"]
    ordering = ["-opened_at", "-pk"]
    list_per_page = 50
    actions = ["confirm_cases", "dismiss_cases", "reopen_cases", "draft_case_notices",
               "send_case_notices"]

    def get_queryset(self, request):
        return cases.with_page_counts(
            super().get_queryset(request).select_related("work", "work__holder"))

    def has_add_permission(self, request):
        return False  # cases are opened by scans

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        if not sees_all(request.user):
            columns.remove("holder_name")
        return columns

    def get_list_filter(self, request):
        filters = list(super().get_list_filter(request))
        if not sees_all(request.user):
            filters = [f for f in filters if not (isinstance(f, tuple) and f[0] == "work__holder")]
        return filters

    def get_actions(self, request):
        found = super().get_actions(request)
        found.pop("delete_selected", None)
        if not self.has_change_permission(request):
            for name in self.actions:
                found.pop(name, None)
        return found

    # -- list columns -----------------------------------------------------------------------
    @admin.display(description=gettext_lazy("case"), ordering="pk")
    def case_link(self, obj):
        return format_html('<a href="{}">#{}</a>',
                           reverse("admin:crawler_case_change", args=[obj.pk]), obj.pk)

    @admin.display(description=gettext_lazy("state"), ordering="state")
    def state_badge(self, obj):
        return format_html('<span class="dash-badge {}">{}</span>', obj.state,
                           obj.get_state_display())

    @admin.display(description=gettext_lazy("pages"), ordering="page_total")
    def page_count(self, obj):
        return obj.page_total

    @admin.display(description=gettext_lazy("still up"), ordering="standing_total")
    def standing_count(self, obj):
        return obj.standing_total

    @admin.display(description=gettext_lazy("opened"), ordering="opened_at")
    def opened(self, obj):
        return timezone.localtime(obj.opened_at).strftime("%Y-%m-%d")

    @admin.display(description=gettext_lazy("state changed"), ordering="state_changed_at")
    def state_changed(self, obj):
        return timezone.localtime(obj.state_changed_at).strftime("%Y-%m-%d")

    # -- the list ---------------------------------------------------------------------------
    def get_urls(self):
        export = path("export/<str:fmt>/", self.admin_site.admin_view(self.export_view),
                      name="crawler_case_export")
        return [export, *super().get_urls()]

    def export_view(self, request, fmt):
        """The case list as CSV or XLSX (``crawler.case_exports``): the cases the list shows,
        with its current filters, search and order, in the reader's language and time zone."""
        return list_exports.export_response(self, request, fmt, "cases",
                                            case_exports.csv_chunks, case_exports.to_xlsx)

    def changelist_view(self, request, extra_context=None):
        counts = dict(self.get_queryset(request).order_by().values_list("state")
                      .annotate(n=Count("pk", distinct=True)).values_list("state", "n"))
        base = reverse("admin:crawler_case_changelist")
        state_counts = [{"state": value, "label": label, "count": counts.get(value, 0),
                         "url": f"{base}?{urlencode({'state__exact': value})}",
                         "chosen": request.GET.get("state__exact") == value}
                        for value, label in CaseState.choices]
        query = request.GET.urlencode()
        extra_context = {**(extra_context or {}), "title": _("Cases"),
                         "export_query": f"?{query}" if query else "",
                         "state_counts": state_counts, "case_total": sum(counts.values()),
                         "contacts_missing": contacts.missing_contacts().count()
                         if sees_all(request.user) else None}
        return super().changelist_view(request, extra_context)

    # -- bulk actions -----------------------------------------------------------------------
    def _reason_page(self, request, queryset, heading: str, mode: str = "reason",
                     plan: list | None = None):
        """The page that asks what a bulk action needs before it applies: a reason (``mode``
        "reason"), a language and recipient ("notice"), or a language and the ``plan`` of
        what goes where ("send": ``[{"case", "recipient", "why"}]``)."""
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": heading,
                   "queryset": queryset, "action": request.POST["action"], "mode": mode,
                   "plan": plan or [],
                   "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                   "languages": NoticeLanguage.choices,
                   "select_across": request.POST.get("select_across", "0"),
                   "reason_missing": "apply" in request.POST
                   and not request.POST.get("reason", "").strip()}
        return TemplateResponse(request, "dashboard/case_action.html", context)

    def _report(self, request, done: int, skipped: list[tuple[Case, str]], message: str):
        if done:
            self.message_user(request, message % {"n": done}, messages.SUCCESS)
        for case, why in skipped:
            self.message_user(request, _("Skipped case #%(id)s (%(work)s @ %(domain)s): "
                                         "%(why)s") % {"id": case.pk, "work": case.work.title,
                                                       "domain": case.domain, "why": why},
                              messages.WARNING)

    def _bulk(self, request, queryset, verb: str, heading: str):
        reason = (request.POST.get("reason") or "").strip()
        if "apply" not in request.POST or not reason:
            if "apply" in request.POST:
                self.message_user(request, _("Give a reason for the decision."), messages.ERROR)
            return self._reason_page(request, queryset, heading)
        result = case_actions.do_bulk_case(verb, queryset, request.user, reason)
        self._report(request, len(result.done), result.skipped, _("%(n)d cases updated."))
        return None

    @admin.action(description=gettext_lazy("Confirm the cases"))
    def confirm_cases(self, request, queryset):
        return self._bulk(request, queryset, "confirm", _("Confirm the cases"))

    @admin.action(description=gettext_lazy("Dismiss the cases"))
    def dismiss_cases(self, request, queryset):
        return self._bulk(request, queryset, "dismiss", _("Dismiss the cases"))

    @admin.action(description=gettext_lazy("Reopen the cases"))
    def reopen_cases(self, request, queryset):
        return self._bulk(request, queryset, "reopen", _("Reopen the cases"))

    @admin.action(description=gettext_lazy("Draft takedown notices"))
    def draft_case_notices(self, request, queryset):
        if "apply" not in request.POST:
            return self._reason_page(request, queryset, _("Draft takedown notices"), "notice")
        language = request.POST.get("language") or NoticeLanguage.ZH_HANS
        recipient = (request.POST.get("recipient") or "").strip()
        drafted, skipped = [], []
        for case in queryset:
            pages = case.pages.filter(review_status=ReviewStatus.CONFIRMED, still_matching=True)
            if case.state not in (CaseState.CONFIRMED, CaseState.REOPENED, CaseState.STILL_UP):
                skipped.append((case, _("a notice is drafted for confirmed, reopened or still "
                                        "up cases; this one is “%(state)s”.") % {
                                            "state": case.get_state_display()}))
                continue
            try:
                drafted += notice_actions.do_draft_notices(
                    pages, request.user, language, recipient,
                    resend=case.state != CaseState.CONFIRMED)
            except ActionError as exc:
                skipped.append((case, str(exc)))
        self._report(request, len(drafted), skipped, _("%(n)d takedown notices drafted."))
        return None

    @admin.action(description=gettext_lazy("Send takedown notices"))
    def send_case_notices(self, request, queryset):
        """Send the notice of each selected case to its site's confirmed contact
        (``notice_actions.do_send_case_notice``), after a page listing what goes where and
        which cases are skipped, with the reason."""
        if "apply" not in request.POST:
            plan = [{"case": case, "recipient": notice_actions.case_contact(case),
                     "why": notice_actions.why_not_sendable(case)} for case in queryset]
            return self._reason_page(request, queryset, _("Send takedown notices"), "send", plan)
        language = request.POST.get("language") or NoticeLanguage.ZH_HANS
        queued, skipped = [], []
        for case in queryset:
            try:
                queued += notice_actions.do_send_case_notice(case, request.user, language)
            except ActionError as exc:
                skipped.append((case, str(exc)))
        self._report(request, len(queued), skipped, _("%(n)d notices queued for sending."))
        return None

    # -- the case page ----------------------------------------------------------------------
    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, unquote(object_id))  # 404 outside the user's scope
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        can_change = self.has_change_permission(request, case)
        if request.method == "POST":
            if not can_change:
                raise PermissionDenied
            if request.POST.get("do") == "complaint_package":
                package = self._package(request, case)
                if package is not None:
                    return package
                return HttpResponseRedirect(request.path)
            self._post(request, case)
            return HttpResponseRedirect(request.path)
        pages = Paginator(case.pages.order_by("first_seen", "pk"), settings.CASE_PAGES_PER_PAGE)
        page = pages.get_page(request.GET.get("page"))
        notices = TakedownNotice.objects.filter(matches__case=case).distinct().order_by(
            "-drafted_at")
        proof = Capture.objects.filter(takedown_check=OuterRef("pk"), state=CaptureState.DONE
                                       ).exclude(bundle="").values("pk")[:1]
        checks = (TakedownCheck.objects.filter(match__case=case).select_related("match")
                  .annotate(proof_id=Subquery(proof))  # the removal's evidence bundle
                  .order_by("-checked_at", "-pk")[:settings.CASE_PAGES_PER_PAGE])
        trail = AuditEvent.objects.about(case)
        for notice in notices:
            trail = trail | AuditEvent.objects.about(notice)
        verbs = [(verb, VERB_LABELS[verb]) for verb, (sources, _target)
                 in case_actions.MOVES.items() if case.state in sources]
        context = {
            **self.admin_site.each_context(request), "opts": self.opts, "case": case,
            "title": _("Case #%(id)s: %(work)s on %(domain)s") % {
                "id": case.pk, "work": case.work.title, "domain": case.domain},
            "pages": page, "page_total": pages.count,
            "standing": case.pages.filter(still_matching=True).count(),
            "notices": notices, "checks": checks, "trail": trail.order_by("-sequence"),
            "verbs": verbs if can_change else [],
        }
        context.update(self._takedown_context(request, case, can_change))
        return TemplateResponse(request, "dashboard/case.html", context)

    def _post(self, request, case: Case) -> None:
        """Apply the case page's form (``do``: a decision verb, "send", "search_contacts",
        "set_contact", "use_suggestion", "escalate" or "send_escalation") and say the outcome
        in a message."""
        do, post = request.POST.get("do") or request.POST.get("verb", ""), request.POST
        try:
            if do in case_actions.VERBS:
                case_actions.VERBS[do](case, request.user, post.get("reason", ""))
                done = _("The case is now “%(state)s”.") % {"state": case.get_state_display()}
            elif do == "send":
                mails = notice_actions.do_send_case_notice(case, request.user,
                                                           post.get("language", ""))
                done = _("The notice is queued for %(recipient)s.") % {
                    "recipient": mails[0].recipient}
            elif do in CONTACT_FORMS and sees_all(request.user):
                done = CONTACT_FORMS[do](case, request.user, post)
            elif do in ESCALATION_FORMS:
                done = ESCALATION_FORMS[do](case, request.user, post)
            else:
                raise ActionError(_("Unknown action: %(verb)s") % {"verb": do})
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, done, messages.SUCCESS)

    def _package(self, request, case: Case) -> HttpResponse | None:
        """The complaint package of ``case`` as a download, or None with the reason said."""
        try:
            data, name = complaint_package.do_make_complaint_package(case, request.user)
        except (ActionError, PdfUnavailableError, SigningError) as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return None
        response = HttpResponse(data, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    def _takedown_context(self, request, case: Case, can_change: bool) -> dict:
        """The case page's takedown part: the site's contact and its suggestions, whether a
        notice can be sent, and the e-mails of the case's notices."""
        contact = SiteContact.objects.filter(domain=case.domain).first()
        platform = platform_of_case(case)
        language = translation.get_language() or "en"
        sources = dict(ContactSource.choices)
        return {
            "contact": contact,
            "refused": [{**r, "source": sources.get(r.get("source"), r.get("source")),
                         "reason": _(r["reason"]) if r.get("reason") else ""}
                        for r in (contact.refused if contact else [])],
            "platform": platform,
            "platform_name": platform.name(language) if platform else "",
            "platform_materials": (platform.materials_zh if language.startswith("zh")
                                   else platform.materials_en) if platform else [],
            "can_package": can_change and platform is not None,
            "suggestions": contact.suggestions.all() if contact else [],
            "edit_contact": can_change and sees_all(request.user),
            "staff_detail": sees_all(request.user),  # the technical text of mail failures
            "can_send": can_change and case.state in notice_actions.SENDABLE
            and bool(contact and contact.address)
            and notice_actions.pending_mail(case) is None,
            "languages": NoticeLanguage.choices,
            "mails": NoticeMail.objects.filter(notice__matches__case=case).distinct()
            .select_related("notice").order_by("-asked_at", "-pk"),
            "reminders": NoticeReminder.objects.filter(notice__matches__case=case).distinct()
            .order_by("-created_at"),
            **self._escalation_context(case, can_change),
        }

    def _escalation_context(self, case: Case, can_change: bool) -> dict:
        """The case page's escalation part: the escalation notices of its pages, and its sent
        notices not escalated yet with the day each is due (settings.NOTICE_ESCALATE_DAYS)."""
        cited = TakedownNotice.objects.filter(matches__case=case).distinct()
        waiting = [{"notice": n, "due": n.sent_at + timedelta(days=settings.NOTICE_ESCALATE_DAYS)}
                   for n in cited.filter(status=NoticeStatus.SENT, escalations=None)
                   .order_by("sent_at")]
        escalations = [{"notice": n, "mailable": "@" in n.recipient,
                        "sending": n.mails.filter(status__in=MAIL_PENDING).exists()}
                       for n in cited.exclude(escalation_of=None).select_related("escalation_of")
                       .order_by("-drafted_at")]
        return {"escalations": escalations, "escalation_waiting": waiting,
                "can_escalate": can_change and case.pages.filter(still_matching=True).exists()}


def _search(case: Case, user, post) -> str:
    contacts.do_search_contacts(case.domain, user)
    return _("Searching the addresses of %(domain)s.") % {"domain": case.domain}


def _set(case: Case, user, post) -> str:
    contact = contacts.do_set_contact(case.domain, post.get("address", ""), user)
    return _("The takedown contact of %(domain)s is now %(address)s.") % {
        "domain": contact.domain, "address": contact.address or "—"}


def _use(case: Case, user, post) -> str:
    suggestion = ContactSuggestion.objects.filter(
        pk=post.get("suggestion") or 0, contact__domain=case.domain).first()
    if suggestion is None:
        raise ActionError(_("That suggestion is not one of this site's."))
    return _set(case, user, {"address": suggestion.address})


#: The contact forms of the case page (platform staff only), by their ``do`` value.
CONTACT_FORMS = {"search_contacts": _search, "set_contact": _set, "use_suggestion": _use}


def _case_notice(case: Case, post) -> TakedownNotice:
    notice = TakedownNotice.objects.filter(pk=post.get("notice") or 0,
                                           matches__case=case).distinct().first()
    if notice is None:
        raise ActionError(_("That notice does not cite this case's pages."))
    return notice


def _escalate(case: Case, user, post) -> str:
    notice = _case_notice(case, post)
    drafted = notice_actions.do_escalate_notice(notice, user)
    if drafted is None:
        raise ActionError(notice.escalation_note_words)
    return _("Notice #%(id)s drafted to %(recipient)s (%(role)s): check it and send it.") % {
        "id": drafted.pk, "recipient": drafted.recipient,
        "role": drafted.get_recipient_role_display()}


def _send_escalation(case: Case, user, post) -> str:
    notice = _case_notice(case, post)
    if notice.escalation_of_id is None:
        raise ActionError(_("That notice is not an escalation."))
    mail = notice_actions.do_send_notice(notice, user, notice.recipient)
    return _("The notice is queued for %(recipient)s.") % {"recipient": mail.recipient}


#: The escalation forms of the case page (whoever may change the case), by their ``do`` value.
ESCALATION_FORMS = {"escalate": _escalate, "send_escalation": _send_escalation}


admin.site.register(Case, CaseAdmin)
