"""A work's ingestion status, live: the works list and a work's page show it in a
``[data-work-status]`` element that ``static/core/work_status.js`` polls through ``status_view``
while the work is pending or waiting for storage, so that "pending" turns "indexed" without a
reload (as a scan's figures do)."""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from .models import Work, WorkStatus
from .scoping import scope

SETTLED = (WorkStatus.INDEXED, WorkStatus.FAILED)  # nothing changes by itself any more


def badge(work: Work) -> str:
    """HTML: ``work``'s status in words, marked for the poller while it may still change."""
    return format_html(
        '<span data-work-status data-id="{}" data-done="{}" data-url="{}" data-poll-ms="{}" '
        'data-poll-max-ms="{}">{}</span>', work.pk, int(work.status in SETTLED),
        reverse("admin:core_work_status"), settings.WORK_STATUS_POLL_SECONDS * 1000,
        settings.SCAN_PROGRESS_POLL_MAX_SECONDS * 1000, work.get_status_display())


@require_GET
def status_view(request) -> JsonResponse:
    """``GET ?id=N&id=M``: ``{"works": [{"id", "status", "label", "done", "error"}]}`` for the
    works of those ids the user may see (others are left out); 400 for an id that is no number.
    At most settings.SCAN_PROGRESS_MAX_SCANS ids are read."""
    try:
        ids = [int(value) for value in request.GET.getlist("id")][:settings.SCAN_PROGRESS_MAX_SCANS]
    except ValueError:
        return JsonResponse({"error": _("A work id is a number.")}, status=400)
    works = scope(Work.objects.filter(pk__in=ids), request.user)
    return JsonResponse({"works": [
        {"id": w.pk, "status": w.status, "label": str(w.get_status_display()),
         "done": w.status in SETTLED, "error": w.error_words} for w in works]})
