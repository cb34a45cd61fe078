"""Template tags of the cases: the funnel block of the overview (``dashboard.case_figures``)."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()


@register.inclusion_tag("dashboard/case_funnel.html", takes_context=True)
def case_funnel(context) -> dict:
    """Render the case funnel for the request's user over the period its ``?funnel_days=``
    chose among settings.CASE_FUNNEL_PERIODS (days; settings.CASE_FUNNEL_DAYS otherwise)."""
    from dashboard import case_figures

    request = context["request"]
    chosen = request.GET.get("funnel_days", "")
    days = int(chosen) if chosen.isdigit() and int(chosen) in settings.CASE_FUNNEL_PERIODS \
        else settings.CASE_FUNNEL_DAYS
    return {"f": case_figures.funnel(request.user, days), "periods": settings.CASE_FUNNEL_PERIODS}
