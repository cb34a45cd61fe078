"""Escalating a takedown notice that was ignored: who comes next, and what the escalation cites.

A notice whose pages are still up settings.NOTICE_ESCALATE_DAYS after it was sent goes one rung
up the ladder (``LADDER``): the site, its hosting provider, its domain's registrar, the platform
it lives on. The provider's and the registrar's abuse addresses are the RDAP lookup's
suggestions (``crawler.rdap_contacts``); the platform is the registry's
(``crawler.platform_registry``), whose complaint channel is a web form filed with the case's
complaint package, not an address to mail. A rung with nothing known is passed over.
``citation`` freezes what the escalation says of the notice it follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from crawler.evidence.models import Capture, CaptureState
from crawler.models import ContactSource, ContactSuggestion, TakedownCheck
from crawler.platform_registry import platform_of_case
from dashboard.models import MailStatus, RecipientRole, TakedownNotice
from lib.crawl.domains import registered_domain

#: The rungs, in the order a notice escalates.
LADDER = (RecipientRole.SITE, RecipientRole.HOST, RecipientRole.REGISTRAR, RecipientRole.PLATFORM)
_RDAP_SOURCES = {RecipientRole.HOST: ContactSource.RDAP_HOST,
                 RecipientRole.REGISTRAR: ContactSource.RDAP_REGISTRAR}


@dataclass(frozen=True)
class NextRecipient:
    """The rung a notice escalates to: ``role`` (a RecipientRole value), ``address`` (an
    e-mail address, or the platform's complaint URL), ``mailable`` (False for a platform's
    web form)."""

    role: str
    address: str
    mailable: bool


def next_recipient(notice: TakedownNotice) -> NextRecipient | None:
    """The first rung above ``notice``'s recipient role with a known recipient other than
    the notice's own, or None when no rung above has one (yet: the RDAP lookup may still
    find one)."""
    rungs = LADDER[LADDER.index(RecipientRole(notice.recipient_role)) + 1:]
    domain = registered_domain(notice.domain)
    for role in rungs:
        if role in _RDAP_SOURCES:
            address = (ContactSuggestion.objects.filter(contact__domain=domain,
                                                        source=_RDAP_SOURCES[role])
                       .exclude(address__iexact=notice.recipient).order_by("pk")
                       .values_list("address", flat=True).first())
            if address:
                return NextRecipient(role, address, True)
        else:
            match = notice.matches.select_related("case").exclude(case=None).first()
            platform = platform_of_case(match.case) if match is not None else None
            if platform is not None:
                return NextRecipient(role, platform.complaint_url, False)
    return None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def citation(notice: TakedownNotice) -> dict:
    """What an escalation of sent ``notice`` cites, JSON-ready: ``notice`` (its id),
    ``sent_at`` (ISO), ``message_id`` (of the e-mail the server took, "" if it was sent
    another way), ``recipient``, ``role``, and ``pages``: for each page still up, ``url``
    and the proof, the newest takedown check since the notice was sent (``checked_at`` ISO,
    ``outcome``, ``http_status``) and the SHA-256 of its evidence bundle when one was
    captured (``bundle_sha256``, "" otherwise)."""
    mail = (notice.mails.filter(status=MailStatus.SENT).exclude(message_id="")
            .order_by("-sent_at").first())
    pages = []
    for match in notice.matches.filter(still_matching=True).order_by("pk"):
        check = (TakedownCheck.objects.filter(match=match, checked_at__gte=notice.sent_at)
                 .order_by("-checked_at", "-pk").first())
        bundle = (Capture.objects.filter(match=match, state=CaptureState.DONE)
                  .exclude(bundle_sha256="").order_by("-pk")
                  .values_list("bundle_sha256", flat=True).first())
        pages.append({"url": match.url,
                      "checked_at": _iso(check.checked_at if check else match.last_seen),
                      "outcome": check.outcome if check else "",
                      "http_status": check.http_status if check else None,
                      "bundle_sha256": bundle or ""})
    return {"notice": notice.pk, "sent_at": _iso(notice.sent_at),
            "message_id": mail.message_id if mail else "", "recipient": notice.recipient,
            "role": notice.recipient_role, "pages": pages}
