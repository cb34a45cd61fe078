"""Template tags of the dashboard: the overview block of the admin's index page."""

from __future__ import annotations

from django import template

from core.scoping import sees_all
from dashboard import overview, wording
from dashboard.navigation import split_system

register = template.Library()


@register.inclusion_tag("dashboard/overview.html", takes_context=True)
def dashboard_overview(context) -> dict:
    """Render the overview (dashboard.overview.build) for the request's user."""
    request = context["request"]
    return {"o": overview.build(request.user), "request": request,
            "can_see_scans": request.user.is_active}


@register.simple_tag(takes_context=True)
def app_sections(context) -> dict:
    """The index's ``app_list`` split for the overview: ``{"business": [...], "system": [...]}``
    (``dashboard.navigation.split_system``); "system" is empty for everyone but the platform
    staff."""
    business, system = split_system(context.get("app_list", []))
    return {"business": business, "system": system if sees_all(context["request"].user) else []}


@register.filter
def percent(fraction) -> str:
    """A score or containment (float in 0..1) as the dashboard's one score format, a whole
    percentage ("82%", "<1%"): ``dashboard.wording.percent``; "—" for None."""
    return "—" if fraction is None else wording.percent(float(fraction))


@register.filter
def duration(span) -> str:
    """A timedelta in words of the reader's language, minutes or hours below a day
    (``dashboard.wording.duration``); "—" for None."""
    return "—" if span is None else wording.duration(span)
