"""The takedown summary mail of one user and one period: per rights holder the user may see,
the figures of ``dashboard.summary_figures``, as HTML (the mail's alternative) with the same
page as a PDF attachment and a plain-text part, in the user's language and time zone.

Periods are whole weeks from Monday or whole calendar months in the user's time zone
(``last_period``); the mail is sent once per user, cadence and period (``SummaryMail``)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.scoping import holders_for
from core.timezones import zone_of
from dashboard import wording
from dashboard.alerts.messages import absolute
from dashboard.alerts.models import AlertPreference
from dashboard.pdf import html_pdf
from dashboard.summary_figures import COUNTS, holder_summary


def last_period(cadence: str, now: datetime, zone) -> tuple[date, date]:
    """The last whole period before ``now`` (aware) in time zone ``zone``: (first day, the day
    after the last). ``cadence`` "weekly": the week from Monday before this week's Monday;
    "monthly": the calendar month before this one.

    Raises:
        ValueError: another cadence.
    """
    today = timezone.localtime(now, zone).date()
    if cadence == AlertPreference.Summary.WEEKLY:
        monday = today - timedelta(days=today.weekday())
        return monday - timedelta(days=7), monday
    if cadence == AlertPreference.Summary.MONTHLY:
        first = today.replace(day=1)
        return (first - timedelta(days=1)).replace(day=1), first
    raise ValueError(f"no summary period for cadence {cadence!r}")


def bounds(start: date, end: date, zone) -> tuple[datetime, datetime]:
    """Days ``start`` and ``end`` as aware datetimes at midnight in ``zone``."""
    return (datetime.combine(start, time(), tzinfo=zone),
            datetime.combine(end, time(), tzinfo=zone))


def _labels() -> dict[str, str]:
    return {"found": _("Cases found"), "confirmed": _("Cases confirmed"),
            "sent": _("Notices sent"), "escalated": _("Cases escalated"),
            "removed": _("Cases removed")}


def summary_mail(row, language: str) -> EmailMultiAlternatives:
    """The summary mail of ``row`` (a SummaryMail with its user) in ``language``: subject,
    text part, HTML alternative and the same page as a PDF attachment
    ("takedown-summary-<start>.pdf"). Times are in the user's time zone.

    Raises:
        PdfUnavailableError: WeasyPrint cannot make the PDF here.
    """
    user = row.user
    zone = zone_of(user)
    start, end = bounds(row.period_start, row.period_end, zone)
    summaries = [holder_summary(h, start, end) for h in holders_for(user).order_by("name")]
    with translation.override(language), timezone.override(zone):
        labels = _labels()
        period = _("%(start)s to %(end)s") % {
            "start": row.period_start.isoformat(),
            "end": (row.period_end - timedelta(days=1)).isoformat()}
        subject = (_("Weekly takedown summary, %(period)s") if row.cadence == "weekly"
                   else _("Monthly takedown summary, %(period)s")) % {"period": period}
        holders = [{"name": s.holder.name,
                    "counts": [(labels[key], s.counts[key]) for key in COUNTS],
                    "median": wording.duration(s.median_removal) if s.median_removal else "—",
                    "ignoring": [{"domain": site.domain, "cases": site.cases,
                                  "oldest": timezone.localtime(site.oldest_notice)
                                  .strftime("%Y-%m-%d")} for site in s.ignoring]}
                   for s in summaries]
        context = {"subject": subject, "holders": holders, "zone": str(zone),
                   "ignored_days": settings.SUMMARY_IGNORED_AFTER_DAYS,
                   "preferences": absolute(reverse("admin:alerts_alertpreference_mine"))}
        html = render_to_string("alerts/summary.html", context)
        text = [subject, ""]
        for holder in holders:
            text.append(holder["name"])
            text += [f"  {label}: {count}" for label, count in holder["counts"]]
            text.append("  " + _("Median time from notice to removal: %(span)s") % {
                "span": holder["median"]})
            text += ["  " + _("Ignores notices: %(domain)s (%(n)d cases, notice of %(date)s)")
                     % {"domain": site["domain"], "n": site["cases"], "date": site["oldest"]}
                     for site in holder["ignoring"]]
            text.append("")
        text.append(_("Change or stop this summary: %(url)s") % {"url": context["preferences"]})
    mail = EmailMultiAlternatives(subject, "\n".join(text), to=[row.recipient])
    mail.attach_alternative(html, "text/html")
    mail.attach(f"takedown-summary-{row.period_start.isoformat()}.pdf", html_pdf(html),
                "application/pdf")
    return mail

