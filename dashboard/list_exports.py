"""The CSV and XLSX downloads of an admin list: exactly the rows the list shows, with its
current filters, search and order (the admin's ChangeList), in the reader's language."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from django.conf import settings
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
FORMATS = ("csv", "xlsx")


def export_response(model_admin, request, fmt: str, name: str,
                    csv_chunks: Callable[[Iterable], Iterator[bytes]],
                    to_xlsx: Callable[[Iterable], bytes],
                    prepare: Callable = lambda queryset: queryset) -> HttpResponse:
    """The list of ``model_admin`` as it shows for ``request``, as a download.

    Args:
        fmt: "csv" (streamed, ``csv_chunks`` of the rows) or "xlsx" (``to_xlsx`` of the rows).
        name: the file name's start; the local time (YYYYmmdd-HHMM) and extension follow.
        prepare: applied to the list's queryset before it is read (e.g. to add annotations).

    Returns:
        The attachment response, or 400 (in the reader's language) for filters the list
        refuses.

    Raises:
        PermissionDenied: another format, or the user may not view the list.
    """
    if fmt not in FORMATS or not model_admin.has_view_permission(request):
        raise PermissionDenied
    try:
        changelist = model_admin.get_changelist_instance(request)
    except IncorrectLookupParameters:
        return HttpResponseBadRequest(_("These filters are not valid."))
    rows = prepare(changelist.get_queryset(request)).iterator(chunk_size=settings.EXPORT_CHUNK_ROWS)
    filename = f"{name}-{timezone.localtime().strftime('%Y%m%d-%H%M')}.{fmt}"
    if fmt == "csv":
        response = StreamingHttpResponse(csv_chunks(rows), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(to_xlsx(rows), content_type=XLSX_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
