"""Links from audit-trail rows to what they are about (a match, a notice, a work, a site, a scan)
when the viewer may open it.

The trail names its subject generically (content type + id, ``core`` knows no model
above it); here, above every app, each subject's admin page decides: the link is given only
when that page's ``has_view_permission`` allows the viewer and its (holder-scoped) queryset
holds the object, so a holder's users never get a link to another holder's record.
"""

from __future__ import annotations

from collections import defaultdict

from django.contrib.admin.views.main import ChangeList
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse


def target_urls(request, admin_site, events) -> dict[int, str]:
    """Admin URLs of the events' subjects that ``request.user`` may open.

    Args:
        request: the HttpRequest (its user decides).
        admin_site: the AdminSite whose registered pages decide and whose URLs are given.
        events: AuditEvent instances.

    Returns:
        ``{event pk: change page URL}``; events without a subject, or whose subject was deleted,
        has no admin page or is outside the user's scope, are left out. One query per subject
        type.
    """
    ids_by_type: dict[int, set[int]] = defaultdict(set)
    for event in events:
        if event.target_type_id and event.target_id:
            ids_by_type[event.target_type_id].add(event.target_id)
    urls: dict[tuple[int, int], str] = {}
    for type_id, ids in ids_by_type.items():
        model = ContentType.objects.get_for_id(type_id).model_class()
        model_admin = admin_site._registry.get(model) if model is not None else None
        if model_admin is None or not model_admin.has_view_permission(request):
            continue
        opts = model._meta
        for pk in model_admin.get_queryset(request).filter(pk__in=ids).values_list("pk", flat=True):
            urls[(type_id, pk)] = reverse(f"{admin_site.name}:{opts.app_label}_{opts.model_name}"
                                          "_change", args=[pk])
    return {event.pk: urls[(event.target_type_id, event.target_id)] for event in events
            if (event.target_type_id, event.target_id) in urls}


class AuditChangeList(ChangeList):
    """The audit trail's list: each event of the page gets ``target_url`` (str or None)."""

    def get_results(self, request):
        super().get_results(request)
        events = list(self.result_list)  # evaluated once; the template reuses these objects
        links = target_urls(request, self.model_admin.admin_site, events)
        for event in events:
            event.target_url = links.get(event.pk)
