"""Plain views of the core app."""

from django.http import JsonResponse


def healthz(request):
    """Liveness check for load balancers and docker-compose: ``{"ok": true}`` with status 200."""
    return JsonResponse({"ok": True})
