"""Plain views of the core app: the health check and the server-error page."""

import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.utils import translation
from django.views import defaults

from .connections import health, storage_errors


def healthz(request):
    """Health check for load balancers and docker-compose: each server the platform depends
    on (``connections.health``) asked to answer, ``{"ok": bool, "servers": {"postgresql":
    "ok" | "down", "mongodb": ..., "redis": ..., ["index_redis": ...]}}``, with status 200
    when all answer and 503 when one does not (the reason is logged, never shown here)."""
    answers = health()
    ok = all(answers.values())
    return JsonResponse({"ok": ok, "servers": {label: "ok" if up else "down"
                                               for label, up in answers.items()}},
                        status=200 if ok else 503)


def server_is_down(error: BaseException | None) -> bool:
    """True when ``error`` means a server is down rather than a bug: PostgreSQL
    (OperationalError, InterfaceError), MongoDB or Redis (``storage_errors()``)."""
    return isinstance(error, (OperationalError, InterfaceError, *storage_errors()))


def server_error(request):
    """handler500: when the error being handled means a server is down (PostgreSQL:
    OperationalError or InterfaceError; MongoDB or Redis: ``storage_errors()``), a 503 page
    in the request's language (cookie or Accept-Language) saying to try again shortly, with a
    Retry-After header; otherwise Django's plain 500 page.

    The 503 page is rendered without context processors and without the admin's layout, which
    would read the session and the user from the database that is down.

    Returns:
        HttpResponse (status 503 or 500).
    """
    if not server_is_down(sys.exc_info()[1]):
        return defaults.server_error(request)
    retry_after = settings.SERVER_DOWN_RETRY_AFTER_SECONDS
    with translation.override(translation.get_language_from_request(request)):
        body = loader.render_to_string("503.html", {"retry_after": retry_after,
                                                    "LANGUAGE_CODE": translation.get_language()})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(retry_after)
    return response
