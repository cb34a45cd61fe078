"""What an alert says: the mail of a new match, the digest mail, the webhook bodies and the
unsubscribe links, in the recipient's language (gettext, zh-hans and en)."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.localtime import shown
from core.timezones import zone_of

UNSUBSCRIBE_SALT = "alerts.unsubscribe"
CHANNELS = ("email", "digest")  # what an unsubscribe link turns off


def absolute(path: str) -> str:
    """``path`` (from reverse) as an absolute URL under settings.SITE_URL."""
    return settings.SITE_URL + path


def evidence_url(match) -> str:
    """Absolute URL of the evidence view of ``match`` (a crawler Match)."""
    return absolute(reverse("admin:crawler_match_change", args=[match.pk]))


def unsubscribe_token(user_id: int, channel: str) -> str:
    """A signed token (django.core.signing, no expiry) that turns ``channel`` ("email" or
    "digest") off for user ``user_id``."""
    return signing.dumps({"u": user_id, "c": channel}, salt=UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token: str) -> tuple[int, str]:
    """(user id, channel) of a token from ``unsubscribe_token``.

    Raises:
        signing.BadSignature: a forged, altered or malformed token.
    """
    data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    if not isinstance(data, dict) or data.get("c") not in CHANNELS or not isinstance(data.get("u"), int):
        raise signing.BadSignature("not an unsubscribe token")
    return data["u"], data["c"]


def unsubscribe_url(user_id: int, channel: str) -> str:
    """Absolute URL of the unsubscribe page for ``channel`` of user ``user_id``."""
    return absolute(reverse("alerts_unsubscribe", args=[unsubscribe_token(user_id, channel)]))


def _match_lines(match) -> list[str]:
    return [
        _("Work: %(work)s") % {"work": match.work.title},
        _("Rights holder: %(holder)s") % {"holder": match.work.holder.name},
        _("Page: %(url)s") % {"url": match.url},
        _("Domain: %(domain)s") % {"domain": match.domain},
        _("Score: %(score)d%%") % {"score": round(match.score * 100)},
        _("Kind: %(kind)s") % {"kind": match.get_kind_display()},
        *([_("Chapters: %(section)s") % {"section": match.section}] if match.section else []),
        _("First seen: %(time)s") % {"time": shown(match.first_seen)},
        _("Evidence: %(url)s") % {"url": evidence_url(match)},
    ]


def _headline(delivery) -> tuple[str, str]:
    """(subject, first line) of an immediate or takedown alert, in the active language."""
    match = delivery.match
    names = {"work": match.work.title, "domain": match.domain, "score": round(match.score * 100)}
    if delivery.kind == "removed" and delivery.case_id:
        return (_("Case closed as removed: “%(work)s” on %(domain)s") % names,
                _("A takedown check found the last copy of this case removed: every page "
                  "below is gone and the case is closed (state: %(state)s).") % {
                    "state": delivery.case.get_state_display()})
    if delivery.kind == "removed":
        return (_("Copy removed: “%(work)s” on %(domain)s") % names,
                _("A takedown check found this copy removed."))
    if delivery.kind == "reopened":
        return (_("Copy back: “%(work)s” on %(domain)s") % names,
                _("A copy found removed earlier is online again; its match is reopened."))
    return (_("New copy of “%(work)s” on %(domain)s (score %(score)d%%)") % names,
            _("A new copy of a registered work was found."))


def _check_lines(check) -> list[str]:
    if check is None:
        return []
    status = str(check.http_status) if check.http_status else "-"
    return [_("Checked: %(time)s, HTTP status %(status)s") % {
        "time": shown(check.checked_at),
        "status": status}]


def delivery_mail(delivery, language: str) -> EmailMessage:
    """The alert mail of ``delivery`` (kind immediate, removed or reopened) to its user in
    ``language`` and the user's time zone, with an unsubscribe link in the text and a
    List-Unsubscribe header (RFC 2369)."""
    user = delivery.user
    link = unsubscribe_url(user.pk, "email")
    with translation.override(language), timezone.override(zone_of(user)):
        subject, first = _headline(delivery)
        pages = ([_("Pages of the case:"), *(f"- {m.url}" for m in
                                             delivery.case.pages.order_by("pk")), ""]
                 if delivery.kind == "removed" and delivery.case_id else [])
        body = "\n".join([first, "", *pages, *_match_lines(delivery.match),
                          *_check_lines(delivery.takedown_check), "",
                          _("Stop these alerts: %(url)s") % {"url": link}])
    return EmailMessage(subject, body, to=[user.email], headers={"List-Unsubscribe": f"<{link}>"})


def digest_mail(matches, user, language: str) -> EmailMessage:
    """The digest mail to ``user`` listing ``matches`` (crawler Matches with work and holder),
    grouped by work, then by domain, each with its evidence link."""
    link = unsubscribe_url(user.pk, "digest")
    groups: dict = defaultdict(lambda: defaultdict(list))
    for m in matches:
        groups[m.work][m.domain].append(m)
    with translation.override(language):
        subject = _("Daily digest: %(count)d new copies of your works") % {"count": len(matches)}
        lines = [subject, ""]
        for work in sorted(groups, key=lambda w: w.title):
            lines.append(_("Work: %(work)s (%(holder)s)") % {"work": work.title,
                                                            "holder": work.holder.name})
            for domain in sorted(groups[work]):
                lines.append("  " + _("Domain: %(domain)s") % {"domain": domain})
                for m in sorted(groups[work][domain], key=lambda m: -m.score):
                    kind = f", {m.get_kind_display()}" if m.kind != "copy" else ""
                    lines.append(f"    - {m.url} ({round(m.score * 100)}%{kind}) {evidence_url(m)}")
            lines.append("")
        lines.append(_("Stop the daily digest: %(url)s") % {"url": link})
    return EmailMessage(subject, "\n".join(lines), to=[user.email],
                        headers={"List-Unsubscribe": f"<{link}>"})


EVENTS = {"immediate": "match.new", "removed": "match.removed", "reopened": "match.reopened"}


def json_payload(delivery) -> dict:
    """The JSON webhook body of ``delivery``: event "match.new", "match.removed" or
    "match.reopened", the match, and for a takedown change the check (time, HTTP status)."""
    match, check = delivery.match, delivery.takedown_check
    payload = {"event": EVENTS[delivery.kind], "match": {
        "id": match.pk, "url": match.url, "domain": match.domain, "title": match.title,
        "work": {"uid": str(match.work.uid), "title": match.work.title},
        "holder": match.work.holder.name, "score": match.score, "kind": match.kind,
        "containment_page": match.containment_page, "containment_work": match.containment_work,
        "section": match.section, "first_seen": match.first_seen.isoformat(),
        "evidence_url": evidence_url(match)}}
    if check is not None:
        payload["check"] = {"id": check.pk, "checked_at": check.checked_at.isoformat(),
                            "outcome": check.outcome, "http_status": check.http_status}
    return payload


def wecom_markdown(delivery, language: str) -> str:
    """The WeCom markdown text of ``delivery`` in ``language``."""
    with translation.override(language):
        title = _headline(delivery)[0]
        lines = [*_match_lines(delivery.match), *_check_lines(delivery.takedown_check)]
        return "\n".join([f"**{title}**", *(f"> {line}" for line in lines)])


def webhook_disabled_mail(endpoint, user, language: str) -> EmailMessage:
    """The notice to ``user`` that ``endpoint`` was disabled after repeated failures."""
    with translation.override(language):
        subject = _("Webhook “%(name)s” disabled") % {"name": endpoint.name}
        body = _("The webhook %(name)s (%(url)s) failed %(count)d times in a row and was "
                 "disabled. Check it, then enable it again in the dashboard.") % {
            "name": endpoint.name, "url": endpoint.url, "count": endpoint.consecutive_failures}
    return EmailMessage(subject, body, to=[user.email])
