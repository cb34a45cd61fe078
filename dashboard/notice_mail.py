"""The e-mail of a takedown notice: composed in the notice's language, sent through Django's
e-mail backend, with the SMTP server's answer kept.

``compose`` builds the message: the notice's frozen text, the evidence report PDF
(``dashboard.evidence_reports``: made once, kept) of its first settings.NOTICE_MAIL_MAX_REPORTS pages attached,
and the signed link of the notice's evidence page, valid settings.NOTICE_BUNDLE_LINK_DAYS days
(``dashboard.recipient_links``, ``dashboard.recipient_page``: the recipient has no account).
``transmit`` runs the SMTP transaction on the backend's own connection (its host, port, TLS and
login settings) so that the server's answer to DATA is recorded; another backend (the file
backend of ``make run``) just sends.
"""

from __future__ import annotations

import contextlib
import smtplib
from dataclasses import dataclass
from email.utils import format_datetime, formataddr, parseaddr
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage, get_connection, make_msgid
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.core.mail.message import sanitize_address
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import notes
from dashboard import evidence_reports, notices
from dashboard.alerts.models import AlertPreference
from dashboard.dkim_signing import DkimKeyError, dkim_signed
from dashboard.recipient_links import notice_link


def _subject(notice) -> str:
    titles = sorted({w["title"] for w in notice.content.get("works", [])})
    return _("Takedown notice: %(works)s on %(domain)s") % {
        "works": "、".join(titles) if notice.language == "zh-hans" else ", ".join(titles),
        "domain": notice.domain}


def compose(mail) -> EmailMessage:
    """The message of ``mail`` (a NoticeMail): subject, text and links in the notice's language,
    reports attached, a fresh Message-ID (stored by the caller from the message's headers).

    Raises PdfUnavailableError / SigningError from ``evidence_reports.kept_report_pdf``."""
    notice = mail.notice
    matches = list(notice.matches.select_related("work", "work__holder").order_by("pk"))
    with translation.override(notice.language):
        lines = [notices.render_text(notice).rstrip(), "",
                 _("The evidence of each page (its screenshot, the copied passages beside the "
                   "work, the archived page replayed, the signed reports and the WACZ bundles to "
                   "download), for %(days)d days:") % {"days": settings.NOTICE_BUNDLE_LINK_DAYS},
                 notice_link(notice)]
        reports, left = _reports(matches, mail.asked_by)
        if reports:
            lines += ["", _("Attached: the signed evidence report (PDF) of %(n)d of %(total)d "
                            "pages.") % {"n": len(reports), "total": len(matches)}]
        if left:
            lines += [_("Not attached (over the mail's size limit): the evidence reports of "
                        "%(urls)s; they can be downloaded from the evidence page linked above.") % {
                            "urls": ", ".join(match.url for match in left)}]
        message = EmailMessage(
            subject=_subject(notice), body="\n".join(lines) + "\n", to=[mail.recipient],
            reply_to=[notice.holder.email] if notice.holder.email else None,
            headers={"Message-ID": make_msgid(domain=urlsplit(settings.SITE_URL).hostname),
                     "Date": format_datetime(timezone.localtime()),
                     **_sender_headers(notice.holder)})
        for match, pdf in reports:
            message.attach(f"evidence-report-match-{match.pk}.pdf", pdf, "application/pdf")
    return message


def _reports(matches, user) -> tuple[list, list]:
    """The reports attached (``[(match, pdf bytes)]``: the first NOTICE_MAIL_MAX_REPORTS pages'
    whose total stays within NOTICE_MAIL_MAX_ATTACHMENT_BYTES) and the matches of those left
    out for their size."""
    attached, left, total = [], [], 0
    for match in matches[:settings.NOTICE_MAIL_MAX_REPORTS]:
        pdf = evidence_reports.kept_report_pdf(match, user)
        if total + len(pdf) > settings.NOTICE_MAIL_MAX_ATTACHMENT_BYTES:
            left.append(match)
            continue
        attached.append((match, pdf))
        total += len(pdf)
    return attached, left


def _sender_headers(holder) -> dict[str, str]:
    """From the rights holder (its name and address), the platform as Sender, when the holder
    has an address (RFC 5322 3.6.2: the mailbox of the agent that sent it); {} otherwise."""
    if not holder.email:
        return {}
    platform = parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    headers = {"From": formataddr((holder.name, holder.email))}
    if platform.rpartition("@")[2].lower() != holder.email.rpartition("@")[2].lower():
        headers["Sender"] = settings.DEFAULT_FROM_EMAIL
    return headers


@dataclass(frozen=True)
class Transmission:
    """What the server said: ``reply`` ("250 ..." as text) and the mail's ``message_id``."""

    reply: str
    message_id: str


def _reply(code: int, text: bytes | str) -> str:
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {text}".strip()


def refusal(exc: smtplib.SMTPException) -> tuple[int, str] | None:
    """The server's refusal that ``exc`` (raised by ``transmit``) reports: (its SMTP code, its
    answer as "550 ..." text), or None when the server was not reached or hung up."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused) and exc.recipients:
        code, text = next(iter(exc.recipients.values()))
        return code, _reply(code, text)
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code, _reply(exc.smtp_code, exc.smtp_error)
    return None


def failure_note(exc: BaseException) -> str:
    """Why sending failed, as a coded note (``core.notes``) that reads in the reader's
    language: the server refused the e-mail (an SMTP answer), did not answer or hung up (an
    OSError: refused connection, timeout, DNS), or the mail could not be made (its evidence
    report, a store down). The exception's own text is kept as the note's ``detail`` parameter,
    for staff (``NoticeMail.error_detail``), never in the words."""
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, smtplib.SMTPException) and refusal(exc) is not None:
        return notes.coded("mail_refused", gettext_noop("the mail server refused the e-mail"),
                           detail=detail)
    if isinstance(exc, DkimKeyError):
        return notes.coded("mail_dkim_key", gettext_noop(
            "the DKIM signing key cannot be used; nothing was sent"), detail=detail)
    if isinstance(exc, OSError):  # smtplib's other errors (hung up, no TLS) are OSErrors
        return notes.coded("mail_server_silent", gettext_noop("the mail server did not answer"),
                           detail=detail)
    return notes.coded("mail_not_made", gettext_noop(
        "the e-mail could not be prepared (its evidence report)"), detail=detail)


def transmit(message: EmailMessage) -> Transmission:
    """Send ``message`` through Django's e-mail backend and return the server's answer.

    Raises:
        smtplib.SMTPRecipientsRefused: the server refused the recipient (its code and text).
        smtplib.SMTPResponseException: the server refused the sender or the data.
        smtplib.SMTPException, OSError: the server could not be reached or hung up.
        DkimKeyError: DKIM signing is on and its key cannot be used (nothing was sent).
    """
    message_id = message.extra_headers["Message-ID"]
    backend = get_connection()
    if not isinstance(backend, SmtpBackend):
        backend.send_messages([message])
        return Transmission(_("accepted by %(backend)s") % {
            "backend": type(backend).__module__}, message_id)
    data = dkim_signed(message.message().as_bytes(linesep="\r\n"))  # before any connection
    backend.open()
    try:
        smtp = backend.connection
        smtp.ehlo_or_helo_if_needed()
        encoding = message.encoding or settings.DEFAULT_CHARSET
        sender = sanitize_address(message.from_email, encoding)
        code, text = smtp.mail(sender)
        if code != 250:
            raise smtplib.SMTPSenderRefused(code, text, sender)
        for recipient in message.recipients():
            address = sanitize_address(recipient, encoding)
            code, text = smtp.rcpt(address)
            if code not in (250, 251):
                raise smtplib.SMTPRecipientsRefused({address: (code, text)})
        code, text = smtp.data(data)
        return Transmission(_reply(code, text), message_id)
    finally:
        with contextlib.suppress(smtplib.SMTPException, OSError):  # the answer is in already
            backend.close()


def _language_of(address: str) -> str:
    """The alert language chosen by the user of ``address``, else settings.LANGUAGE_CODE."""
    pref = AlertPreference.objects.filter(user__email__iexact=address).first()
    return pref.language if pref else settings.LANGUAGE_CODE


def reminder_message(reminder, address: str) -> EmailMessage:
    """The reminder mail of ``reminder`` (a NoticeReminder) to ``address``, in that user's
    language: the notice, how long ago it was sent, the pages still up and the case links."""
    notice = reminder.notice
    with translation.override(_language_of(address)):
        facts = {"notice": str(notice), "days": (reminder.created_at - notice.sent_at).days,
                 "pages": reminder.pages_up, "domain": notice.domain}
        lines = [_("%(notice)s was sent %(days)d days ago; %(pages)d of its pages are still up "
                   "on %(domain)s.") % facts, ""]
        case_ids = sorted(set(notice.matches.filter(still_matching=True, case__isnull=False)
                              .values_list("case_id", flat=True)))
        lines += [_("Case: %(url)s") % {"url": settings.SITE_URL + reverse(
            "admin:crawler_case_change", args=[pk])} for pk in case_ids]
        lines += [_("Pages still up:")] + [f"- {url}" for url in notice.matches.filter(
            still_matching=True).order_by("pk").values_list("url", flat=True)]
        return EmailMessage(subject=_("Still up after the notice: %(domain)s") % facts,
                            body="\n".join(lines) + "\n", to=[address])
