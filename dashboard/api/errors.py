"""API errors as JSON ``{"code": str, "message": str, "fields": {name: [str]}}``.

Every answer under /api/v1/ is so, errors of Django's own included: an unknown path is a 404
"not_found" (``not_found`` view), a body over DATA_UPLOAD_MAX_MEMORY_SIZE a 400 "too_large", a
body nested too deep to parse a 400 "parse_error", a bug a 500 "server_error".

``code`` is stable (DRF's error codes: "not_found", "not_authenticated", "throttled",
"invalid", "parse_error"..., plus "action_refused" for an ActionError and the upload's
UploadError codes: "too_large", "empty", "unsupported", "mismatch", "corrupt", "encrypted",
"archive_bomb", "encoding"; "duplicate_work", 409, for a text the holder already registered);
``message`` is in the request's language (Accept-Language,
Django's LocaleMiddleware); ``fields`` names the request fields at fault ({} otherwise).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.errors import ActionError, StorageUnavailable
from core.text_extraction import UploadError
from core.views import server_is_down

logger = logging.getLogger("django.request")


class ApiError(exceptions.APIException):
    """An error with a stable ``code``, a translated ``message`` and optional ``fields``
    (``{name: [message]}``); ``status_code`` defaults to 400."""

    def __init__(self, code: str, message: str, fields: dict | None = None,
                 status_code: int = status.HTTP_400_BAD_REQUEST) -> None:
        super().__init__(detail=str(message), code=code)
        self.code, self.message, self.fields = code, str(message), fields or {}
        self.status_code = status_code


class ErrorSerializer(serializers.Serializer):
    """The body of every error answer (the schema's error component)."""

    code = serializers.CharField(help_text="Stable error code, e.g. not_found, invalid, "
                                           "throttled, action_refused, too_large.")
    message = serializers.CharField(help_text="What went wrong, in the request's language "
                                              "(Accept-Language: zh-hans or en).")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="Messages per request field at fault; {} when "
                                             "the error is not about one field.")


def _flatten(detail) -> list[str]:
    if isinstance(detail, dict):
        return [m for value in detail.values() for m in _flatten(value)]
    if isinstance(detail, list):
        return [m for value in detail for m in _flatten(value)]
    return [str(detail)]


def _first_code(detail) -> str:
    if isinstance(detail, dict):
        return next((_first_code(v) for v in detail.values()), "invalid")
    if isinstance(detail, list):
        return _first_code(detail[0]) if detail else "invalid"
    return getattr(detail, "code", None) or "invalid"


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every error as ``{"code", "message", "fields"}``.

    ActionError and UploadError become 400 answers (codes "action_refused" and the upload's
    code); a body over DATA_UPLOAD_MAX_MEMORY_SIZE bytes 400 "too_large"; JSON nested too deep
    for the parser (RecursionError) 400 "parse_error"; another request Django refuses to read
    (SuspiciousOperation: too many fields or files) 400 "bad_request"; StorageUnavailable, and PostgreSQL,
    MongoDB or Redis being down, 503 ("storage_unavailable", with Retry-After:
    settings.SERVER_DOWN_RETRY_AFTER_SECONDS). Any other exception is logged as Django logs a
    500 and answered 500 "server_error".
    """
    if isinstance(exc, RequestDataTooBig):
        exc = ApiError("too_large", _("The request body is larger than %(mb)d MB.") % {
            "mb": settings.DATA_UPLOAD_MAX_MEMORY_SIZE // (1024 * 1024)})
    elif isinstance(exc, RecursionError):
        exc = ApiError("parse_error", _("The JSON body is nested too deeply."))
    elif isinstance(exc, SuspiciousOperation):  # e.g. more fields than Django reads
        exc = ApiError("bad_request", _("The request is malformed: %(error)s") % {
            "error": type(exc).__name__})
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, UploadError):
        exc = ApiError(exc.code, str(exc))
    elif isinstance(exc, ActionError):
        exc = ApiError("action_refused", str(exc))
    elif isinstance(exc, StorageUnavailable) or server_is_down(exc):
        exc = ApiError("storage_unavailable", str(exc) if isinstance(exc, StorageUnavailable)
                       else _("The platform cannot reach its database or storage right now. "
                              "Nothing you saved is lost."),
                       status_code=status.HTTP_503_SERVICE_UNAVAILABLE)
    response = drf_exception_handler(exc, context)
    if response is None:
        request = context.get("request")
        logger.error("Internal Server Error: %s", getattr(request, "path", "?"), exc_info=exc)
        set_rollback()
        return Response({"code": "server_error", "fields": {},
                         "message": _("The platform failed to answer this request. The error "
                                      "is recorded for the platform staff.")}, status=500)
    if isinstance(exc, ApiError):
        body = {"code": exc.code, "message": exc.message, "fields": exc.fields}
    elif isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        fields = {name: _flatten(value) for name, value in exc.detail.items()}
        body = {"code": _first_code(exc.detail),
                "message": _("The request has invalid fields: %(names)s.") % {
                    "names": ", ".join(fields)}, "fields": fields}
    else:
        messages = _flatten(exc.detail) if hasattr(exc, "detail") else [str(exc)]
        body = {"code": _first_code(getattr(exc, "detail", "")) or "error",
                "message": " ".join(messages), "fields": {}}
    headers = {k: v for k, v in response.items()
               if k in ("WWW-Authenticate", "Retry-After", "Allow")}
    if body["code"] == "storage_unavailable":
        headers["Retry-After"] = str(settings.SERVER_DOWN_RETRY_AFTER_SECONDS)
    return Response(body, status=response.status_code, headers=headers)


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@authentication_classes([])
@permission_classes([])
def not_found(request, path: str = ""):
    """Any path under /api/v1/ that names no endpoint: 404 "not_found" (instead of the
    dashboard's redirect to its login page); a path that names one once a "/" is appended is
    redirected there, as Django's APPEND_SLASH does (``works`` -> ``works/``)."""
    if not request.path.endswith("/"):
        try:
            if resolve(request.path + "/").url_name != "not-found":
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(request.path + "/" + (
                    f"?{query}" if query else ""))
        except Resolver404:
            pass
    raise exceptions.NotFound()
