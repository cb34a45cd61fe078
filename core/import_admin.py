"""The dashboard's import pages (under Works): a holder uploads an archive of works (the
"Import a .zip" form) or one work file (the work form), then watches its job
(``core.import_jobs``) move on a page polling a JSON endpoint.

Views, wired by ``WorkAdmin.get_urls``: ``start`` (the .zip form), ``page`` (a job's progress),
``status`` (its JSON) and ``anyway`` (register a file refused as a duplicate all the same). A
job is visible only to users who see its holder (404 otherwise).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from . import import_actions, import_jobs
from .errors import ActionError
from .models import ImportJob, ImportKind
from .scoping import holders_for, scope
from .text_extraction import UploadError, check_size


class ZipImportForm(forms.Form):
    """The holder and the .zip (each file in it one work, as ``import_works``)."""

    holder = forms.ModelChoiceField(label=capfirst(_("rights holder")), queryset=None)
    archive = forms.FileField(label=_("ZIP archive"), help_text=_(
        "Each .txt, .docx, .pdf, .epub or .html file inside becomes a work (its path without "
        "the suffix is the reference); .jsonl files give one work per line. Importing a "
        "reference again updates that work."))

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["holder"].queryset = holders_for(user)
        if self.fields["holder"].queryset.count() == 1:
            self.initial["holder"] = self.fields["holder"].queryset.first()


def start(admin_site, request):
    """GET: the form; POST: stage the archive and start its import, then go to its page."""
    form = ZipImportForm(request.user, request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        archive = form.cleaned_data["archive"]
        try:
            check_size(archive.size)
            job = import_actions.do_start_import(form.cleaned_data["holder"], request.user,
                                                 archive.name, archive.read(), get_language())
        except UploadError as exc:
            form.add_error("archive", str(exc))
        else:
            return redirect("admin:core_work_import_page", job.pk)
    return TemplateResponse(request, "core/import_zip.html", {
        **admin_site.each_context(request), "title": _("Import a .zip of works"),
        "form": form, "job": None})


def _job(request, job_id: int) -> ImportJob:
    job = scope(ImportJob.objects.select_related("holder"), request.user).filter(
        pk=job_id).first()
    if job is None:
        raise Http404(_("No such object."))
    return job


def page(admin_site, request, job_id: int):
    """The job's page: a progress bar and, once done, the summary or the work
    (import_progress.js)."""
    job = _job(request, job_id)
    archive = job.kind == ImportKind.ARCHIVE
    title = _("Import of %(name)s") if archive else _("Upload of %(name)s")
    return TemplateResponse(request, "core/import_zip.html", {
        **admin_site.each_context(request), "title": title % {"name": job.name}, "job": job,
        "poll_ms": settings.IMPORT_POLL_MS,
        "labels": {"registered": str(_("registered")), "updated": str(_("updated")),
                   "skipped": str(_("skipped")), "duplicates": str(_("duplicates (not "
                                                                     "registered)")),
                   "failed": str(_("failed")),
                   "works": str(_("works") if archive else _("steps")),
                   "steps": [str(_("reading the file")), str(_("checking for duplicates")),
                             str(_("registering the work")), str(_("done"))]}})


def status(admin_site, request, job_id: int):
    """The job's progress as JSON (``import_jobs.progress``), with the links the page offers:
    "work_url" (the work registered), "existing_url" and "anyway_url" (a duplicate: the work
    it repeats, and registering it all the same)."""
    job = _job(request, job_id)
    body = import_jobs.progress(job)
    if body["work"]:
        body["work_url"] = reverse("admin:core_work_change", args=[body["work"]])
    if body["error_code"] == "duplicate_work":
        body["existing_url"] = reverse("admin:core_work_change",
                                       args=[job.summary["existing_work"]])
        if import_jobs.staged_file(job).exists():
            body["anyway_url"] = reverse("admin:core_work_import_anyway", args=[job.pk])
    return JsonResponse(body)


def anyway(admin_site, request, job_id: int):
    """POST: register the file of job ``job_id``, refused as a duplicate, all the same
    (``import_actions.do_register_anyway``), then go to the new job's page."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    job = _job(request, job_id)
    try:
        new = import_actions.do_register_anyway(job, request.user)
    except ActionError as exc:
        messages.error(request, str(exc))
        return redirect("admin:core_work_import_page", job.pk)
    return redirect("admin:core_work_import_page", new.pk)
