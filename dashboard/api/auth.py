"""API authentication: ``Authorization: Bearer <token>`` with a dashboard.models.ApiToken."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from dashboard.models import ApiToken


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """Authenticate ``Authorization: Bearer <token>`` against the stored SHA-256 of ApiToken.

    Returns ``(user, token)`` (``request.auth`` is the ApiToken), None without a Bearer header
    (the session may authenticate instead). Raises AuthenticationFailed (401) for an unknown or
    revoked token, or an inactive user. Records the token's last use (one UPDATE).
    """

    keyword = "Bearer"

    def authenticate(self, request):
        """``(user, ApiToken)`` or None; see the class docstring."""
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].decode("latin-1").lower() != self.keyword.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(_("Malformed Authorization header: use "
                                                    "“Bearer <token>”."))
        raw = parts[1].decode("latin-1")
        token = (ApiToken.objects.select_related("user")
                 .filter(digest=ApiToken.hash(raw), revoked_at__isnull=True).first())
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("Unknown or revoked API token."))
        now = timezone.now()
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
        return token.user, token

    def authenticate_header(self, request) -> str:
        """The WWW-Authenticate value of 401 answers."""
        return self.keyword


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """The schema's security scheme for BearerTokenAuthentication."""

    target_class = BearerTokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        """An HTTP bearer scheme."""
        return {"type": "http", "scheme": "bearer",
                "description": "An API token created in the dashboard (API tokens page)."}
