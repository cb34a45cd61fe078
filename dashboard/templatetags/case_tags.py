"""Template tags of the cases: the funnel block of the overview (``dashboard.case_figures``)."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()


@register.inclusion_tag("dashboard/case_funnel.html", takes_context=True)
def case_funnel(context) -> dict:
    """Render the case funnel of the last settings.CASE_FUNNEL_DAYS days for the request's
    user."""
    from dashboard import case_figures

    return {"f": case_figures.funnel(context["request"].user, settings.CASE_FUNNEL_DAYS)}
