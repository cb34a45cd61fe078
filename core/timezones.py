"""Each person's time zone: the one they chose (``UserSettings.time_zone``) or
settings.TIME_ZONE, activated for their requests (``UserTimeZoneMiddleware``) and used for the
mails sent to them (``zone_of``)."""

from __future__ import annotations

import functools
import zoneinfo

from django.conf import settings
from django.utils import timezone

from .models import UserSettings

# Offered first in the settings form: the platform's own zone, then the zones its users most
# often sit in; every other IANA zone follows alphabetically.
COMMON = ("Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Singapore", "Asia/Tokyo",
          "Europe/London", "Europe/Paris", "America/New_York", "America/Los_Angeles", "UTC")


@functools.cache
def names() -> frozenset[str]:
    """Every IANA time zone name this machine knows (``zoneinfo.available_timezones``)."""
    return frozenset(zoneinfo.available_timezones())


def choices() -> list[tuple[str, str]]:
    """(name, "name (UTC+08:00)") pairs for a form, with each zone's offset now: COMMON (those
    known here) first, then all others sorted."""
    common = [name for name in COMMON if name in names()]
    now = timezone.now()
    return [(name, f"{name} (UTC{_offset(now, name)})")
            for name in [*common, *sorted(names() - set(common))]]


def _offset(moment, name: str) -> str:
    offset = moment.astimezone(zoneinfo.ZoneInfo(name)).strftime("%z")  # "+0800"
    return f"{offset[:3]}:{offset[3:]}"


def zone_name_of(user) -> str:
    """The IANA name of ``user``'s time zone: their choice, or settings.TIME_ZONE for none, for
    an anonymous user and for None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return settings.TIME_ZONE

    chosen = UserSettings.objects.filter(user=user).values_list("time_zone", flat=True).first()
    return chosen if chosen in names() else settings.TIME_ZONE


def zone_of(user) -> zoneinfo.ZoneInfo:
    """``user``'s time zone (see ``zone_name_of``) as a ZoneInfo."""
    return zoneinfo.ZoneInfo(zone_name_of(user))


class UserTimeZoneMiddleware:
    """Activate the signed-in user's time zone for a page's request (after Django's
    AuthenticationMiddleware), so that every page shows times in it; others get
    settings.TIME_ZONE. REST API views (Django REST framework's, marked by ``cls``) are left
    alone: their callers authenticate inside the view, and the API answers ISO 8601 times with
    their offset."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not hasattr(view_func, "cls"):
            timezone.activate(zone_of(getattr(request, "user", None)))
