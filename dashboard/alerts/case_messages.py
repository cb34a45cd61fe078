"""What the alert of the cases of a scan or of a stored-page search says: one mail per recipient
(an HTML and a plain-text part) listing the cases it opened and those that grew, each with a
link to its case page, and one webhook body (JSON or WeCom markdown) per case; in the
recipient's language."""

from __future__ import annotations

from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.timezones import zone_of
from crawler import cases
from crawler.models import Case, MatchKind
from dashboard.alerts.messages import absolute, unsubscribe_url


def case_url(case) -> str:
    """Absolute URL of the case page of ``case`` (a crawler Case)."""
    return absolute(reverse("admin:crawler_case_change", args=[case.pk]))


def finding_of(delivery) -> cases.Finding:
    """What found the cases of ``delivery`` (kind "cases"): its scan or its stored-page search."""
    return (cases.scan_finding(delivery.scan_id) if delivery.scan_id
            else cases.search_finding(delivery.search))


def _row(case, finding: cases.Finding) -> dict:
    """The facts of ``case`` for ``finding``: names, counts (pages; ``pages`` is what its
    case page lists; ``rewritten``, how many of the ``new_pages`` are rewritten copies, 洗稿)
    and its link."""
    new_pages = case.pages.filter(**finding.pages)
    return {"id": case.pk, "work": case.work.title, "holder": case.work.holder.name,
            "domain": case.domain, "state": case.get_state_display(),
            "pages": case.pages.count(), "new_pages": new_pages.count(),
            "rewritten": new_pages.filter(kind=MatchKind.REWRITTEN).count(),
            "opened": Case.objects.filter(pk=case.pk, **finding.opened).exists(),
            "url": case_url(case)}


def _line(row: dict, scan: bool) -> str:
    """One case of a mail or WeCom message: its work, site, page counts and state, how many of
    its new pages are rewritten copies (when any), then its link."""
    if scan:
        line = _("“%(work)s” on %(domain)s: %(pages)d pages, %(new_pages)d found by this scan "
                 "(%(state)s)") % row
    else:
        line = _("“%(work)s” on %(domain)s: %(pages)d pages, %(new_pages)d found by this "
                 "search (%(state)s)") % row
    if row["rewritten"]:
        line += ngettext("; %(n)d of the new pages is a rewritten copy (洗稿)",
                         "; %(n)d of the new pages are rewritten copies (洗稿)",
                         row["rewritten"]) % {"n": row["rewritten"]}
    return f"{line} {row['url']}"


def cases_mail(delivery, language: str) -> EmailMultiAlternatives:
    """The mail of ``delivery`` (kind "cases") to its user in ``language`` and the user's time
    zone: the cases the scan or the stored-page search opened, then those that grew, with a
    List-Unsubscribe header (RFC 2369) and an unsubscribe link in both parts."""
    user, scan, finding = delivery.user, delivery.scan, finding_of(delivery)
    link = unsubscribe_url(user.pk, "email")
    with translation.override(language), timezone.override(zone_of(user)):
        rows = [_row(c, finding) for c in delivery.cases.select_related("work__holder")
                .order_by("work__title", "domain")]  # the states in the user's language
        new = [r for r in rows if r["opened"]]
        grown = [r for r in rows if not r["opened"]]
        counts = {"new": len(new), "grown": len(grown)}
        if scan is not None:
            subject = _("Scan of %(site)s — new cases: %(new)d, cases with new pages: "
                        "%(grown)d") % {"site": scan.site.name, **counts}
        else:
            subject = _("Stored pages searched for new works — new cases: %(new)d, cases with "
                        "new pages: %(grown)d") % counts
        text = [subject, ""]
        for heading, group in ((_("New cases:"), new), (_("Cases with new pages:"), grown)):
            if group:
                text += [heading, *(f"- {_line(r, scan is not None)}" for r in group), ""]
        text.append(_("Stop these alerts: %(url)s") % {"url": link})
        html = render_to_string("alerts/scan_cases.html", {
            "subject": subject, "new": new, "grown": grown, "unsubscribe": link,
            "rewritten": any(r["rewritten"] for r in rows)})
    mail = EmailMultiAlternatives(subject, "\n".join(text), to=[user.email],
                                  headers={"List-Unsubscribe": f"<{link}>"})
    mail.attach_alternative(html, "text/html")
    return mail


def json_payload(delivery) -> dict:
    """The JSON webhook body of ``delivery`` (kind "cases", one case): event "case.new" (the
    scan or search opened it) or "case.grown", the case with its counts (``new_pages_rewritten``:
    how many of its new pages are rewritten copies, 洗稿) and link, and the id of the scan or
    of the stored-page search (the other one null)."""
    case = delivery.case
    row = _row(case, finding_of(delivery))
    return {"event": "case.new" if row["opened"] else "case.grown", "scan": delivery.scan_id,
            "search": delivery.search_id,
            "case": {"id": case.pk, "url": row["url"], "domain": case.domain,
                     "state": case.state, "work": {"uid": str(case.work.uid),
                                                   "title": case.work.title},
                     "holder": case.work.holder.name, "pages": row["pages"],
                     "new_pages": row["new_pages"], "new_pages_rewritten": row["rewritten"],
                     "opened_at": case.opened_at.isoformat()}}


def wecom_markdown(delivery, language: str) -> str:
    """The WeCom markdown text of ``delivery`` (kind "cases", one case) in ``language``."""
    with translation.override(language):
        row = _row(delivery.case, finding_of(delivery))
        title = (_("New case: “%(work)s” on %(domain)s") if row["opened"]
                 else _("Case with new pages: “%(work)s” on %(domain)s")) % row
        return "\n".join([f"**{title}**", f"> {_line(row, delivery.scan_id is not None)}"])
