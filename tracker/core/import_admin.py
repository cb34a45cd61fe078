"""The dashboard's "Import a .zip" pages (under Works): a holder uploads an archive of works,
then watches its import (``tracker.core.import_jobs``) move on a page polling a JSON endpoint.

Views, wired by ``WorkAdmin.get_urls``: ``start`` (the form), ``page`` (the job's progress) and
``status`` (its JSON). A job is visible only to users who see its holder (404 otherwise).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.text import capfirst
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from . import actions, import_jobs
from .models import ImportJob
from .scoping import holders_for, scope
from .uploads import UploadError, check_size


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
            job = actions.do_start_import(form.cleaned_data["holder"], request.user,
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
    """The job's page: a progress bar and, once done, the summary (import_progress.js)."""
    job = _job(request, job_id)
    return TemplateResponse(request, "core/import_zip.html", {
        **admin_site.each_context(request), "title": _("Import of %(name)s") % {
            "name": job.name}, "job": job, "poll_ms": settings.IMPORT_POLL_MS,
        "labels": {"registered": str(_("registered")), "updated": str(_("updated")),
                   "skipped": str(_("skipped")), "duplicates": str(_("duplicates (not "
                                                                    "registered)")),
                   "failed": str(_("failed")), "works": str(_("works"))}})


def status(admin_site, request, job_id: int):
    """The job's progress as JSON (``import_jobs.progress``)."""
    return JsonResponse(import_jobs.progress(_job(request, job_id)))
