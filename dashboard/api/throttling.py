"""Throttling per API token: settings.API_THROTTLE_USER_RATE requests per token."""

from __future__ import annotations

from rest_framework.throttling import UserRateThrottle

from dashboard.models import ApiToken


class TokenRateThrottle(UserRateThrottle):
    """DRF's UserRateThrottle keyed by the API token when one authenticated the request (each
    token has its own budget), else by the session's user; anonymous requests are left to
    AnonRateThrottle. Rate: REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["user"]."""

    def get_cache_key(self, request, view):
        """``throttle_user_token-<id>`` or ``throttle_user_<user id>``; None when anonymous."""
        if isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": f"token-{request.auth.pk}"}
        if request.user and request.user.is_authenticated:
            return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
        return None
