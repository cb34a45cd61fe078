"""Login brute-force protection: django-axes, skipped for logins that come with no request."""

from axes.backends import AxesStandaloneBackend


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' lockout check for every login made through an HTTP request.

    Takes what ``django.contrib.auth.authenticate`` passes; returns None (never logs anyone in,
    the next backend does) or raises ``axes.exceptions.AxesBackendPermissionDenied`` when the
    username from this IP address is locked out. Axes refuses calls without a request; those
    come from code, not from a login form (``Client.login`` in tests, management commands), so
    there is nothing to throttle and the check is skipped.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
