"""What the alert of a scan's cases says: one mail per recipient (an HTML and a plain-text
part) listing the cases the scan opened and those that grew, each with a link to its case page,
and one webhook body (JSON or WeCom markdown) per case; in the recipient's language."""

from __future__ import annotations

from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from dashboard.alerts.messages import absolute, unsubscribe_url
from tracker.core.timezones import zone_of


def case_url(case) -> str:
    """Absolute URL of the case page of ``case`` (a crawler Case)."""
    return absolute(reverse("admin:crawler_case_change", args=[case.pk]))


def _row(case, scan_id: int) -> dict:
    """The facts of ``case`` for scan ``scan_id``: names, counts (pages) and its link."""
    return {"id": case.pk, "work": case.work.title, "holder": case.work.holder.name,
            "domain": case.domain, "state": case.get_state_display(),
            "pages": case.pages.count(),
            "new_pages": case.pages.filter(first_scan_id=scan_id).count(),
            "opened": case.first_scan_id == scan_id, "url": case_url(case)}


def _line(row: dict) -> str:
    return _("“%(work)s” on %(domain)s: %(pages)d pages, %(new_pages)d found by this scan "
             "(%(state)s) %(url)s") % row


def cases_mail(delivery, language: str) -> EmailMultiAlternatives:
    """The mail of ``delivery`` (kind "cases") to its user in ``language`` and the user's time
    zone: the cases the scan opened, then those that grew, with a List-Unsubscribe header
    (RFC 2369) and an unsubscribe link in both parts."""
    user, scan = delivery.user, delivery.scan
    link = unsubscribe_url(user.pk, "email")
    rows = [_row(c, scan.pk) for c in delivery.cases.select_related("work__holder")
            .order_by("work__title", "domain")]
    new = [r for r in rows if r["opened"]]
    grown = [r for r in rows if not r["opened"]]
    with translation.override(language), timezone.override(zone_of(user)):
        subject = _("Scan of %(site)s — new cases: %(new)d, cases with new pages: %(grown)d") % {
            "site": scan.site.name, "new": len(new), "grown": len(grown)}
        text = [subject, ""]
        for heading, group in ((_("New cases:"), new), (_("Cases with new pages:"), grown)):
            if group:
                text += [heading, *(f"- {_line(r)}" for r in group), ""]
        text.append(_("Stop these alerts: %(url)s") % {"url": link})
        html = render_to_string("alerts/scan_cases.html", {
            "subject": subject, "new": new, "grown": grown, "unsubscribe": link,
            "finished": scan.finished_at})
    mail = EmailMultiAlternatives(subject, "\n".join(text), to=[user.email],
                                  headers={"List-Unsubscribe": f"<{link}>"})
    mail.attach_alternative(html, "text/html")
    return mail


def json_payload(delivery) -> dict:
    """The JSON webhook body of ``delivery`` (kind "cases", one case): event "case.new" (the
    scan opened it) or "case.grown", the case with its counts and link, and the scan's id."""
    case = delivery.case
    row = _row(case, delivery.scan_id)
    return {"event": "case.new" if row["opened"] else "case.grown", "scan": delivery.scan_id,
            "case": {"id": case.pk, "url": row["url"], "domain": case.domain,
                     "state": case.state, "work": {"uid": str(case.work.uid),
                                                   "title": case.work.title},
                     "holder": case.work.holder.name, "pages": row["pages"],
                     "new_pages": row["new_pages"], "opened_at": case.opened_at.isoformat()}}


def wecom_markdown(delivery, language: str) -> str:
    """The WeCom markdown text of ``delivery`` (kind "cases", one case) in ``language``."""
    row = _row(delivery.case, delivery.scan_id)
    with translation.override(language):
        title = (_("New case: “%(work)s” on %(domain)s") if row["opened"]
                 else _("Case with new pages: “%(work)s” on %(domain)s")) % row
        return "\n".join([f"**{title}**", f"> {_line(row)}"])
