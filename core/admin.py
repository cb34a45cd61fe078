"""Admin pages of rights holders and works, narrowed to what each user may see.

``HolderScopedAdmin`` is the base for every admin page holding a holder's data (the crawler's
matches and the dashboard reuse it): its list, its object pages and its foreign-key choices are
limited by core.scoping, and an object outside the user's scope answers 404.
"""

from __future__ import annotations

import csv
import uuid

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from . import holder_actions, import_actions, import_admin, registration, work_actions, work_status
from .conflicts import same_holder_duplicate
from .models import RightsHolder, Work, WorkStatus
from .scoping import holders_for, scope, sees_all
from .spreadsheets import safe
from .text_extraction import UploadError, check_upload, extract_pasted, supported_suffixes


class RecordAdminMixin:
    """For admin pages of records the platform writes (scan runs, checks, logs, the audit
    trail): nobody adds or edits them by hand; ``deletable = False`` forbids deleting too."""

    deletable = True

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.deletable and super().has_delete_permission(request, obj)


class HolderScopedAdmin(admin.ModelAdmin):
    """A ModelAdmin showing each user only its rights holders' objects.

    Attributes:
        holder_path: lookup from the model to its RightsHolder ("holder", "work__holder", or
            "" for RightsHolder itself).
    """

    holder_path = "holder"

    def get_queryset(self, request):
        return scope(super().get_queryset(request), request.user, self.holder_path)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:  # missing, or another holder's: the same answer for both
            raise Http404(_("No such object."))
        return obj

    def get_changeform_initial_data(self, request):
        """A new object's holder is preset for a user of exactly one holder."""
        initial = super().get_changeform_initial_data(request)
        if self.holder_path == "holder":
            holders = list(holders_for(request.user)[:2])
            if len(holders) == 1:
                initial.setdefault("holder", holders[0].pk)
        return initial

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.related_model is RightsHolder:
            kwargs["queryset"] = holders_for(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(RightsHolder)
class RightsHolderAdmin(HolderScopedAdmin):
    """Rights holders: staff manage all of them and their users; a holder's users may update
    their own contact details (printed on takedown notices)."""

    holder_path = ""
    list_display = ["name", "contact_person", "email", "phone", "work_count"]
    search_fields = ["name", "contact_person", "email"]
    filter_horizontal = ["users"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description=_("works"))
    def work_count(self, obj: RightsHolder) -> int:
        return obj.works.count()

    def get_exclude(self, request, obj=None):
        return [] if sees_all(request.user) else ["users"]

    def save_related(self, request, form, formsets, change):
        """Save the related rows; the holder's users through ``do_set_holder_users`` (audited)."""
        users = form.cleaned_data.pop("users", None)
        super().save_related(request, form, formsets, change)
        if users is not None:
            holder_actions.do_set_holder_users(form.instance, users, request.user)

    def has_add_permission(self, request):
        return sees_all(request.user) and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return sees_all(request.user) and super().has_delete_permission(request, obj)


class WorkForm(forms.ModelForm):
    """A work's metadata plus its text: an uploaded file or pasted text (required when adding;
    when changing, either replaces the text and re-runs ingestion).

    Pasted text is checked here (``extracted``); a file is only checked for what needs no
    reading (size, suffix) and is read by an upload job in the worker (``WorkAdmin``)."""

    upload = forms.FileField(label=capfirst(_("file")), required=False)  # help: __init__
    text = forms.CharField(label=capfirst(_("or paste the text")), required=False,
                           widget=forms.Textarea(attrs={"rows": 8}))
    register_anyway = forms.BooleanField(
        label=capfirst(_("register anyway")), required=False,
        help_text=_("Register the text even though it is the same as one of your works."))

    class Meta:
        model = Work
        fields = ["holder", "reference", "title", "author", "kind", "language"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # formatted per form, in the reader's language (at import it would be the default one)
        self.fields["upload"].help_text = _(
            "%(types)s; at most %(mb)d MB. A novel's chapter headings (第X章, 第X回) become "
            "sections. The file is read in the background: a page shows its progress.") % {
                "types": " ".join(supported_suffixes()), "mb": settings.UPLOAD_MAX_BYTES // 2**20}
        for name in ("reference", "title"):
            self.fields[name].required = False
        self.fields["reference"].help_text = _("Your id for the work; left empty, one is made.")
        self.fields["title"].help_text = _("Left empty, the document's title is used.")
        if not self.instance.pk:  # new works: kind and language may be left to detection
            for name in ("kind", "language"):
                self.fields[name].required = False
                self.fields[name].choices = [("", _("(automatic)")), *(
                    c for c in self.fields[name].choices if c[0] != "")]
                self.initial[name] = ""
        self.extracted = None

    def clean(self):
        data = super().clean()
        upload, text = data.get("upload"), data.get("text", "").strip()
        if upload and text:
            raise forms.ValidationError(_("Give either a file or pasted text, not both."))
        if not (upload or text or self.instance.pk):
            raise forms.ValidationError(_("Upload a file or paste the work's text."))
        try:
            if upload:
                check_upload(upload.name, upload.size)  # the rest is read by the upload job
            elif text:
                self.extracted = extract_pasted(text)
        except UploadError as exc:
            self.add_error("upload" if upload else "text", str(exc))
            return data
        if not data.get("reference"):
            data["reference"] = f"W-{uuid.uuid4().hex[:10]}"
        if self.extracted and not data.get("title") and not self.instance.pk:
            data["title"] = self.extracted.title or data["reference"]
        if self.extracted and data.get("holder") and not data.get("register_anyway"):
            self._refuse_duplicate(data)
        return data

    def _refuse_duplicate(self, data: dict) -> None:
        overlap = same_holder_duplicate(data["holder"], self.instance.reference
                                        or data["reference"], self.extracted.text)
        if overlap is None:
            return
        url = reverse("admin:core_work_change", args=[overlap.work.pk])
        self.add_error(None, format_html(
            _("This text is {pct} the same as your work “{title}” ({reference}). "
              "<a class=\"button\" href=\"{url}\">Update that work instead</a> "
              "or tick “register anyway” below."),
            pct=f"{overlap.containment:.0%}", title=overlap.work.title,
            reference=overlap.work.reference, url=url))


def _upload_job_page(request):
    """The redirect to the page of the upload job ``save_model`` started, or None."""
    job = getattr(request, "upload_job", None)
    return redirect("admin:core_work_import_page", job.pk) if job is not None else None


@admin.register(Work)
class WorkAdmin(HolderScopedAdmin):
    """Works: upload or paste, see ingestion status and chapters, ingest again, export CSV."""

    form = WorkForm
    list_display = ["title", "reference", "holder", "kind", "language", "length", "status_live",
                    "updated_at"]
    list_filter = ["status", "kind", "language", ("holder", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["title", "reference", "author"]
    readonly_fields = ["uid", "source_name", "length", "status_live", "error_words", "fingerprint_version",
                       "windows", "indexed_at", "chapter_list", "created_at", "updated_at"]
    actions = ["ingest_again", "export_csv"]
    date_hierarchy = "created_at"

    class Media:
        js = ["core/work_status.js"]  # the status, live while a work is pending

    @admin.display(description=_("status"), ordering="status")
    def status_live(self, work):
        return work_status.badge(work)

    @admin.display(description=_("error"))
    def error_words(self, work):
        return work.error_words

    def get_fieldsets(self, request, obj=None):
        return [
            (None, {"fields": ["holder", "reference", "title", "author", "kind", "language"]}),
            (_("Text"), {"fields": ["upload", "text", "register_anyway"]}),
            (_("Ingestion"), {"fields": ["status_live", "error_words", "uid", "source_name", "length",
                                         "windows", "fingerprint_version", "indexed_at",
                                         "chapter_list", "created_at", "updated_at"]}),
        ] if obj else [
            (None, {"fields": ["holder", "reference", "title", "author", "kind", "language"]}),
            (_("Text"), {"fields": ["upload", "text", "register_anyway"]}),
        ]

    def get_urls(self):
        def view(function):
            return self.admin_site.admin_view(
                lambda request, **kw: function(self.admin_site, request, **kw))

        def adding(function):  # the import registers works: only for users who may add them
            def check(admin_site, request, **kw):
                if not self.has_add_permission(request):
                    raise PermissionDenied
                return function(admin_site, request, **kw)
            return view(check)

        return [
            path("status/", view(lambda admin_site, request: work_status.status_view(request)),
                 name="core_work_status"),
            path("import/", adding(import_admin.start), name="core_work_import"),
            path("import/<int:job_id>/", adding(import_admin.page),
                 name="core_work_import_page"),
            path("import/<int:job_id>/status/", adding(import_admin.status),
                 name="core_work_import_status"),
            path("import/<int:job_id>/anyway/", adding(import_admin.anyway),
                 name="core_work_import_anyway"),
            *super().get_urls(),
        ]

    @admin.display(description=_("sections"))
    def chapter_list(self, obj: Work) -> str:
        return "; ".join(f"{s['title']} ({s['start']}–{s['end']})" for s in obj.sections) or "—"

    def save_model(self, request, obj, form, change):
        upload = form.cleaned_data.get("upload")
        if change and (form.extracted is None or {"holder", "reference"} & set(form.changed_data)):
            work_actions.do_update_work(obj, request.user, form.changed_data)
        if upload:  # read by a job in the worker; its page follows (response_add/change)
            request.upload_job = import_actions.do_start_upload(
                obj.holder, request.user, upload.name, upload.chunks(), {
                    "reference": obj.reference, "title": obj.title, "author": obj.author,
                    "kind": form.cleaned_data.get("kind"),
                    "language": form.cleaned_data.get("language"),
                    "allow_duplicate": form.cleaned_data.get("register_anyway")},
                get_language())
        elif form.extracted is not None:
            registration = work_actions.do_register_work(
                obj.holder, obj.reference, form.extracted, acting_user=request.user,
                title=obj.title, author=obj.author, kind=form.cleaned_data.get("kind"),
                language=form.cleaned_data.get("language"), source_name="pasted")
            obj.pk = registration.work.pk
            obj.refresh_from_db()

    def log_addition(self, request, obj, message):
        """Django's log of the addition, once the work exists (an upload job registers it)."""
        if obj.pk is not None:
            super().log_addition(request, obj, message)

    def response_add(self, request, obj, post_url_continue=None):
        return _upload_job_page(request) or super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        return _upload_job_page(request) or super().response_change(request, obj)

    def delete_model(self, request, obj):
        work_actions.do_delete_work(obj, request.user)

    def delete_queryset(self, request, queryset):
        for work in queryset:
            work_actions.do_delete_work(work, request.user)

    @admin.action(description=_("Ingest the selected works again"))
    def ingest_again(self, request, queryset):
        queued = 0
        for work in queryset.exclude(status=WorkStatus.INDEXED):
            queued += registration.enqueue_ingest(work.pk)
        self.message_user(request, _("%(n)d works queued for ingestion.") % {"n": queued},
                          messages.SUCCESS)

    @admin.action(description=_("Export the selected works as CSV"))
    def export_csv(self, request, queryset):
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
        response["Content-Disposition"] = f'attachment; filename="works-{stamp}.csv"'
        response.write("\ufeff")  # Excel opens UTF-8 CSV correctly only with a BOM
        writer = csv.writer(response)
        writer.writerow(["reference", "title", "author", "rights holder", "kind", "language",
                         "length (characters)", "sections", "status", "fingerprint version",
                         "created", "updated"])
        for work in queryset.select_related("holder"):
            writer.writerow([safe(cell) for cell in (
                work.reference, work.title, work.author, work.holder.name, work.kind,
                work.language, work.length, len(work.sections), work.status,
                work.fingerprint_version, timezone.localtime(work.created_at).isoformat(),
                timezone.localtime(work.updated_at).isoformat())])
        return response

from . import conflict_admin  # noqa: E402, F401  (registers the rights conflict pages)
