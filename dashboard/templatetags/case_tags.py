"""Template tags of the cases: the funnel block of the overview (``dashboard.case_figures``) and
the findings block of a work's page (``dashboard.work_figures``)."""

from __future__ import annotations

from django import template
from django.conf import settings

from dashboard import case_figures, work_figures
from dashboard.registration_certificate import current_proof
from lib.text.untrusted import ascii_int

register = template.Library()


@register.inclusion_tag("dashboard/case_funnel.html", takes_context=True)
def case_funnel(context) -> dict:
    """Render the case funnel for the request's user over the period its ``?funnel_days=``
    chose among settings.CASE_FUNNEL_PERIODS (days; settings.CASE_FUNNEL_DAYS otherwise)."""
    request = context["request"]
    chosen = ascii_int(request.GET.get("funnel_days"))
    days = chosen if chosen in settings.CASE_FUNNEL_PERIODS else settings.CASE_FUNNEL_DAYS
    return {"f": case_figures.funnel(request.user, days), "periods": settings.CASE_FUNNEL_PERIODS}


@register.inclusion_tag("dashboard/work_findings.html", takes_context=True)
def work_findings(context, work) -> dict:
    """Render the findings of ``work`` (a Work) for the request's user."""
    return {"w": work_figures.findings(work, context["request"].user), "work": work}


@register.inclusion_tag("dashboard/registration_proof.html")
def registration_proof(work) -> dict:
    """The card of ``work``'s proof of registration: its text's trusted timestamp and the
    certificate's link once stamped."""
    return {"work": work, "proof": current_proof(work)}
