"""Every change of a takedown notice: the actions, each atomic and recorded in the audit
trail (kind "notice") with the acting user; the case timeline shows them.

A notice goes drafted -> sent -> removed / counter-notice, each move dated
(``do_draft_notices``, ``do_edit_notice`` while drafted, ``do_advance_notice``;
``do_reopen_notices`` when a removed copy comes back; ``do_check_notice`` asks its takedown
check now). ``do_send_case_notice`` sends a case's notice from the case page or the API: it
drafts one from the case's confirmed pages still up (or takes the case's drafted notice in that
language) and asks ``do_send_notice``, which freezes the text and queues the mail (task
``dashboard.send_notice_mail``). ``do_record_notice_mail`` records each SMTP attempt; the
server's acceptance moves the notice to "sent" (the cases to "notice sent").
``do_remind_notice`` records a reminder of a page still up; ``do_escalate_notice`` drafts the
notice to the next rung (``dashboard.escalation``; it also records "escalated" on the cases).
Reviewing matches and whitelisting domains are the crawler's actions (``crawler.review_actions``).
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import notes
from core.errors import ActionError, require_email_address
from core.models import AuditEvent
from core.models.audit import CASE_ESCALATED, CHECK_REQUESTED
from core.queueing import queue_after_commit
from crawler import cases
from crawler.models import Case, CaseState, ReviewStatus, SiteContact
from dashboard import escalation, notices
from dashboard.models import (
    MAIL_PENDING,
    NOTICE_DATE_FIELDS,
    NOTICE_TRANSITIONS,
    MailStatus,
    NoticeEvent,
    NoticeLanguage,
    NoticeMail,
    NoticeReminder,
    NoticeStatus,
    RecipientRole,
    TakedownNotice,
)
from lib.crawl.pagestore import sha256

#: The case states a notice may be sent from.
SENDABLE = (CaseState.CONFIRMED, CaseState.REOPENED, CaseState.STILL_UP)
#: MailStatus -> the notice event recorded for it.
_EVENTS = {MailStatus.RETRYING: NoticeEvent.MAIL_RETRYING, MailStatus.FAILED: NoticeEvent.MAIL_FAILED,
           MailStatus.REFUSED: NoticeEvent.MAIL_REFUSED}


def already_sent(matches) -> dict[int, list[TakedownNotice]]:
    """The notices already sent (status sent, removed or counter-notice) that cite each of
    ``matches`` (iterable of core Match).

    Returns:
        ``{match pk: [TakedownNotice, ...]}``, oldest notice first; matches in no sent notice
        are left out.
    """
    found: dict[int, list[TakedownNotice]] = defaultdict(list)
    pks = [m.pk for m in matches]
    sent = (TakedownNotice.matches.through.objects
            .filter(match_id__in=pks, takedownnotice__sent_at__isnull=False)
            .select_related("takedownnotice").order_by("takedownnotice__sent_at"))
    for row in sent:
        found[row.match_id].append(row.takedownnotice)
    return dict(found)


def _check_printable(text: str, field: str, lines: bool = False) -> None:
    """Raise ActionError naming ``field`` when ``text`` holds characters a document may not
    (``notices.printable``), line breaks allowed only with ``lines``."""
    text = text.replace("\r\n", "\n") if lines else text
    if notices.printable(text) != text or (not lines and "\n" in text):
        raise ActionError(_("The %(field)s holds control characters (invisible characters "
                            "such as NUL or ESC); remove them.") % {"field": field})


def do_draft_notices(matches, acting_user, language: str = NoticeLanguage.ZH_HANS,
                     recipient: str = "", resend: bool = False) -> list[TakedownNotice]:
    """Draft one takedown notice per (rights holder, infringing domain) of confirmed matches.

    Args:
        matches: core Match objects, all confirmed infringements.
        acting_user: the drafting user.
        language: "zh-hans" or "en".
        recipient: who the notices go to (optional).
        resend: True to include matches already cited by a sent notice (``already_sent``);
            False refuses them, so that no copy is noticed twice by mistake.

    Returns:
        The new notices (status drafted), each with its frozen content.

    Raises:
        ActionError: no match given, a match not confirmed, an unknown language, or (unless
            ``resend``) a match already in a sent notice, naming that notice.
    """
    matches = list(matches)
    if not matches:
        raise ActionError(_("Select at least one confirmed match."))
    _check_printable(recipient, _("recipient"))
    if language not in NoticeLanguage.values:
        raise ActionError(_("Unknown language: %(language)s") % {"language": language})
    unconfirmed = [m.pk for m in matches if m.review_status != ReviewStatus.CONFIRMED]
    if unconfirmed:
        raise ActionError(_("Only confirmed infringements can go into a takedown notice; "
                            "not confirmed: %(ids)s") % {
            "ids": ", ".join(f"#{pk}" for pk in unconfirmed)})
    if not resend:
        repeated = already_sent(matches)
        if repeated:
            raise ActionError(_("Already in a sent notice: %(list)s. Confirm to notice them "
                                "again.") % {"list": "; ".join(
                _("match #%(match)d in notice #%(notice)d") % {"match": pk, "notice": n.pk}
                for pk, sent in repeated.items() for n in sent)})
    groups = defaultdict(list)
    for match in matches:
        groups[(match.work.holder, match.domain)].append(match)
    drafted = []
    with transaction.atomic():  # all notices or none
        for (holder, domain), group in groups.items():
            notice = TakedownNotice.objects.create(
                holder=holder, domain=domain, language=language, recipient=recipient,
                created_by=acting_user, content=notices.snapshot(holder, domain, group))
            notice.matches.set(group)
            AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=acting_user, holder=holder,
                              target=notice, subject=notice.audit_subject(), old_state="",
                              new_state=NoticeStatus.DRAFTED,
                              reason=", ".join(m.url for m in group))
            drafted.append(notice)
    return drafted


def do_edit_notice(notice: TakedownNotice, acting_user, *, body: str | None = None,
                   recipient: str | None = None) -> AuditEvent | None:
    """Change a drafted notice's text and/or recipient, and record what changed.

    Args:
        notice: the TakedownNotice, status drafted.
        acting_user: the editing user.
        body: the new text (lines separated by "\\n"); "" returns to the text generated from
            the notice's snapshot; None leaves it.
        recipient: the new recipient; None leaves it.

    Returns:
        The AuditEvent recorded (its reason names what changed and the text's SHA-256), or
        None when nothing changed.

    Raises:
        ActionError: the notice is no longer drafted (a sent notice's text is frozen), its
            e-mail is on its way, or the text or recipient holds control characters.
    """
    if body is not None:
        _check_printable(body, _("text"), lines=True)
    if recipient is not None:
        _check_printable(recipient, _("recipient"))
    with transaction.atomic():
        locked = TakedownNotice.objects.select_for_update().get(pk=notice.pk)
        if locked.status != NoticeStatus.DRAFTED:
            raise ActionError(_("The notice was sent: its text can no longer change."))
        if locked.mails.filter(status__in=MAIL_PENDING).exists():
            raise ActionError(_("This notice is being sent already."))
        changed = []
        if body is not None:
            body = "\n".join(line.rstrip() for line in body.strip().splitlines())
            if body == notices.generated_text(locked).strip():
                body = ""  # the generated text, unchanged: keep following the snapshot
            if body != locked.body:
                locked.body = body
                changed.append("body")
        if recipient is not None and recipient.strip() != locked.recipient:
            locked.recipient = recipient.strip()
            changed.append("recipient")
        if not changed:
            return None
        locked.save(update_fields=changed)
        reasons = []  # coded notes: the trail reads them in each reader's language
        if "body" in changed:
            reasons.append(notes.coded("notice_text_edited", gettext_noop(
                "text edited, SHA-256 %(digest)s"), digest=sha256(notices.render_text(locked))))
        if "recipient" in changed:
            reasons.append(notes.coded("notice_recipient", gettext_noop(
                "recipient: %(recipient)s"), recipient=locked.recipient))
        event = AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=acting_user,
                                  holder=locked.holder, target=locked, subject=locked.audit_subject(),
                                  old_state=NoticeStatus.DRAFTED, new_state=NoticeStatus.DRAFTED,
                                  reason=notes.coded("notice_edited", gettext_noop(
                                      "edited: %(changes)s"), changes=reasons))
    notice.refresh_from_db()
    return event


def do_advance_notice(notice: TakedownNotice, status: str, acting_user, note: str = "") -> AuditEvent:
    """Move ``notice`` to ``status`` (drafted -> sent -> removed / counter-notice), date it and
    record the move. Sending freezes the text (``body``) and records its SHA-256, and moves
    the cases of its matches to "notice sent" (``crawler.cases.do_note_notice_sent``).

    Returns:
        The AuditEvent recorded.

    Raises:
        ActionError: the move is not allowed from the notice's current status.
    """
    with transaction.atomic():
        locked = TakedownNotice.objects.select_for_update().get(pk=notice.pk)
        if status not in NOTICE_TRANSITIONS.get(locked.status, ()):
            raise ActionError(_("A notice that is “%(old)s” cannot become “%(new)s”.") % {
                "old": locked.get_status_display(),
                "new": dict(NoticeStatus.choices).get(status, status)})
        old = locked.status
        locked.status = status
        setattr(locked, NOTICE_DATE_FIELDS[status], timezone.now())
        updated = ["status", NOTICE_DATE_FIELDS[status]]
        reason = note.strip()
        if status == NoticeStatus.SENT:  # freeze the text sent; the trail pins its digest
            locked.body = notices.render_text(locked)
            updated.append("body")
            sent = notes.coded("notice_sent", gettext_noop("text sent, SHA-256 %(digest)s"),
                               digest=sha256(locked.body))
            reason = notes.coded("notice_sent_note", gettext_noop("%(note)s; %(sent)s"),
                                 note=reason, sent=sent) if reason else sent
        locked.save(update_fields=updated)
        event = AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=acting_user, holder=locked.holder,
                                  target=locked, subject=locked.audit_subject(), old_state=old,
                                  new_state=status, reason=reason)
        if status == NoticeStatus.SENT:
            cases.do_note_notice_sent(locked.matches.all(), acting_user, locked.audit_subject())
    notice.refresh_from_db()
    return event


def do_reopen_notices(match, check) -> list[TakedownNotice]:
    """The copy of ``match`` (crawler Match) is back, as takedown check ``check`` (TakedownCheck)
    found: every notice citing it that says "content removed" goes back to "sent" (its removal
    date cleared), recorded in the audit trail with the check (no acting person: the checker).

    Returns:
        The notices moved back to "sent" (none when no removed notice cites the match).
    """
    moved = []
    with transaction.atomic():
        for notice in (TakedownNotice.objects.select_for_update()
                       .filter(matches=match, status=NoticeStatus.REMOVED)):
            notice.status, notice.removed_at = NoticeStatus.SENT, None
            notice.save(update_fields=["status", "removed_at"])
            AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=None, holder=notice.holder,
                              target=notice, subject=notice.audit_subject(), old_state=NoticeStatus.REMOVED,
                              new_state=NoticeStatus.SENT, reason=notes.coded(
                                  "copy_back", gettext_noop(
                                      "the copy is back at %(url)s (takedown check #%(check)s)"),
                                  url=match.url, check=check.pk))
            moved.append(notice)
    return moved


def do_check_notice(notice: TakedownNotice, acting_user) -> None:
    """Queue the takedown check of ``notice``'s matches now (``dashboard.check_notice``: all
    removed moves a sent notice to "removed"), recorded in the audit trail with the acting user.

    Raises:
        ActionError: the notice is still drafted (nothing was asked of the site yet).
    """
    if notice.status == NoticeStatus.DRAFTED:
        raise ActionError(_("A drafted notice has not been sent: there is nothing to check yet."))
    with transaction.atomic():
        AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=acting_user, holder=notice.holder,
                          target=notice, subject=notice.audit_subject(), old_state=notice.status,
                          new_state=CHECK_REQUESTED)
        queue_after_commit("dashboard.check_notice", notice.pk)


def case_contact(case: Case) -> str:
    """The confirmed takedown contact of ``case``'s site (str), "" when none is confirmed."""
    return (SiteContact.objects.filter(domain=case.domain).values_list("address", flat=True)
            .first() or "")


def pending_mail(case: Case) -> NoticeMail | None:
    """The e-mail of a notice citing ``case``'s pages still queued or retrying, or None."""
    return (NoticeMail.objects.filter(notice__matches__case=case, status__in=MAIL_PENDING)
            .distinct().first())


def why_not_sendable(case: Case) -> str:
    """Why ``case``'s notice cannot be sent now, in the user's language ("" when it can): its
    state, no confirmed contact for its site, or a mail of it on its way."""
    if case.state not in SENDABLE:
        return _("A notice is sent for confirmed, reopened or still up cases; this one is "
                 "“%(state)s”.") % {"state": case.get_state_display()}
    if not case_contact(case):
        return _("%(domain)s has no confirmed takedown contact: set or confirm one first.") % {
            "domain": case.domain}
    if pending_mail(case) is not None:
        return _("A notice of this case is being sent already.")
    return ""


def _audit(notice: TakedownNotice, acting_user, old: str, new: str, reason: str) -> AuditEvent:
    return AuditEvent.record(kind=AuditEvent.Kind.NOTICE, user=acting_user, holder=notice.holder,
                             target=notice, subject=notice.audit_subject(), old_state=old,
                             new_state=new, reason=reason)


def do_send_notice(notice: TakedownNotice, acting_user, recipient: str) -> NoticeMail:
    """Send drafted ``notice`` to ``recipient`` (an e-mail address) by e-mail: its text is
    frozen now (``body``), the NoticeMail is queued on commit, the request recorded.

    Returns the NoticeMail, "queued". Raises ActionError (in the user's language): not an
    address, the notice is no longer drafted, or a mail of it is on its way already."""
    require_email_address(recipient)
    with transaction.atomic():
        locked = TakedownNotice.objects.select_for_update().get(pk=notice.pk)
        if locked.status != NoticeStatus.DRAFTED:
            raise ActionError(_("The notice was sent already."))
        if locked.mails.filter(status__in=MAIL_PENDING).exists():
            raise ActionError(_("This notice is being sent already."))
        locked.body, locked.recipient = notices.render_text(locked), recipient
        locked.save(update_fields=["body", "recipient"])
        mail = NoticeMail.objects.create(notice=locked, recipient=recipient, asked_by=acting_user)
        _audit(locked, acting_user, NoticeStatus.DRAFTED, NoticeEvent.MAIL_QUEUED, notes.coded(
            "notice_mail_queued", gettext_noop("e-mail to %(recipient)s"), recipient=recipient))
        queue_after_commit("dashboard.send_notice_mail", mail.pk)
    notice.refresh_from_db()
    return mail


def do_send_case_notice(case: Case, acting_user, language: str) -> list[NoticeMail]:
    """Send ``case``'s takedown notice in ``language`` ("zh-hans" or "en") to its site's
    confirmed contact: the case's drafted notice in that language, else one drafted now from its
    confirmed pages still up (one notice per host of the site: ``do_draft_notices``' rule).

    Returns the NoticeMails queued. Raises ActionError: a state that cannot send, no confirmed
    contact, no confirmed page still up, a mail on its way, or what ``do_draft_notices`` and
    ``do_send_notice`` refuse."""
    if language not in NoticeLanguage.values:
        raise ActionError(_("Unknown language: %(language)s") % {"language": language})
    with transaction.atomic():
        case = Case.objects.select_for_update(of=("self",)).select_related("work__holder").get(pk=case.pk)
        why = why_not_sendable(case)
        if why:
            raise ActionError(why)
        recipient = case_contact(case)
        drafted = list(TakedownNotice.objects.filter(
            matches__case=case, status=NoticeStatus.DRAFTED, language=language,
            recipient_role=RecipientRole.SITE).distinct())
        if not drafted:
            pages = list(case.pages.filter(review_status=ReviewStatus.CONFIRMED,
                                           still_matching=True).select_related("work__holder"))
            if not pages:
                raise ActionError(_("The case has no confirmed page still up to cite."))
            drafted = do_draft_notices(pages, acting_user, language, recipient,
                                       resend=case.state != CaseState.CONFIRMED)
        return [do_send_notice(notice, acting_user, recipient) for notice in drafted]


def do_escalate_notice(notice: TakedownNotice, acting_user) -> TakedownNotice | None:
    """Escalate sent ``notice``, whose confirmed pages are still up, to the next rung
    (``dashboard.escalation.next_recipient``): draft a notice in its language to that
    recipient citing it (``content["escalation"]``: its date, Message-ID and the proof each
    page was still up) and record "escalated" on each case of its pages. The escalation stays
    drafted until staff send it from the case page (a platform's is filed with the case's
    complaint package). ``acting_user`` None: the scheduled escalation.

    Returns the drafted notice, or None when no rung above has a recipient yet (the reason
    kept in ``escalation_note``). Raises ActionError (in the user's language): the notice is
    not sent, was escalated already, or has no confirmed page still up."""
    with transaction.atomic():
        locked = TakedownNotice.objects.select_for_update().get(pk=notice.pk)
        if locked.status != NoticeStatus.SENT:
            raise ActionError(_("Only a sent notice can be escalated; this one is "
                                "“%(status)s”.") % {"status": locked.get_status_display()})
        earlier = locked.escalations.order_by("pk").first()
        if earlier is not None:
            raise ActionError(_("This notice was escalated already: notice #%(id)s.")
                              % {"id": earlier.pk})
        pages = list(locked.matches.filter(still_matching=True,
                                           review_status=ReviewStatus.CONFIRMED)
                     .select_related("work__holder", "case__work__holder").order_by("pk"))
        if not pages:
            raise ActionError(_("No confirmed page of this notice is still up."))
        target = escalation.next_recipient(locked)
        if target is None:
            locked.escalation_note = notes.coded("escalation_none", gettext_noop(
                "no one is known above the current recipient: no hosting provider or registrar "
                "address from RDAP, and the site is on no platform of the registry"))
            locked.save(update_fields=["escalation_note"])
            return None
        (drafted,) = do_draft_notices(pages, acting_user, locked.language,
                                      target.address, resend=True)
        drafted.recipient_role, drafted.escalation_of = target.role, locked
        drafted.content = {**drafted.content, "escalation": escalation.citation(locked)}
        drafted.save(update_fields=["recipient_role", "escalation_of", "content"])
        locked.escalation_note = ""
        locked.save(update_fields=["escalation_note"])
        reason = notes.coded("case_escalated", gettext_noop(
            "notice #%(notice)s escalated: notice #%(escalation)s drafted to %(recipient)s"),
            notice=locked.pk, escalation=drafted.pk, recipient=target.address)
        for case in {page.case for page in pages if page.case is not None}:
            AuditEvent.record(kind=AuditEvent.Kind.CASE, user=acting_user,
                              holder=case.work.holder, target=case, subject=str(case),
                              old_state=case.state, new_state=CASE_ESCALATED, reason=reason)
    return drafted


def do_record_notice_mail(mail: NoticeMail, status: str, *, reply: str = "", error: str = "",
                          message_id: str = "", next_attempt_at=None) -> NoticeMail:
    """Record one SMTP attempt of ``mail`` (worker side): ``status`` (MailStatus), the
    server's ``reply``, the ``error`` and the Message-ID. "sent" moves the notice to sent
    (``do_advance_notice``, as its asker), citing the answer and the Message-ID; retrying,
    failed and refused are recorded on the notice with the reason. A mail already sent, failed
    or refused is left as it is (a duplicate task's attempt). Returns the mail."""
    with transaction.atomic():
        mail = NoticeMail.objects.select_for_update(of=("self",)).select_related("notice").get(pk=mail.pk)
        if mail.status not in MAIL_PENDING:  # a second attempt (a resent task) came too late
            return mail
        now = timezone.now()
        mail.status, mail.attempts, mail.attempted_at = status, mail.attempts + 1, now
        mail.smtp_reply, mail.error, mail.next_attempt_at = reply, error, next_attempt_at
        if message_id:
            mail.message_id = message_id
        if status == MailStatus.SENT:
            mail.sent_at = now
        mail.save()
        if status == MailStatus.SENT:
            do_advance_notice(mail.notice, NoticeStatus.SENT, mail.asked_by, note=notes.coded(
                "notice_mail_sent", gettext_noop(
                    "e-mailed to %(recipient)s, Message-ID %(id)s, server: %(reply)s"),
                recipient=mail.recipient, id=mail.message_id, reply=reply))
        else:
            _audit(mail.notice, None, NoticeEvent.MAIL_QUEUED, _EVENTS[status], notes.coded(
                "notice_mail_failed", gettext_noop("e-mail to %(recipient)s, attempt %(n)s: "
                                                   "%(error)s"),
                recipient=mail.recipient, n=mail.attempts, error=error))
    return mail


def do_remind_notice(notice: TakedownNotice, period: int, pages_up: int,
                     recipients: list[str]) -> NoticeReminder | None:
    """Record the reminder of period ``period`` (int >= 1) that ``pages_up`` pages of sent
    ``notice`` are still up, to be mailed to ``recipients`` (addresses) on commit (task
    ``dashboard.deliver_reminder``). Returns the NoticeReminder, or None when this period's
    reminder exists already (one per notice and period)."""
    with transaction.atomic():
        reminder, created = NoticeReminder.objects.get_or_create(
            notice=notice, period=period,
            defaults={"pages_up": pages_up, "recipients": recipients})
        if not created:
            return None
        _audit(notice, None, notice.status, NoticeEvent.REMINDED, notes.coded(
            "notice_reminded", gettext_noop("%(pages)s pages still up %(days)s days after the "
                                            "notice; reminded: %(to)s"),
            pages=pages_up, days=(timezone.now() - notice.sent_at).days,
            to=", ".join(recipients) or "-"))
        queue_after_commit("dashboard.deliver_reminder", reminder.pk)
    return reminder


def do_record_reminder(reminder: NoticeReminder, sent: int, error: str = "") -> NoticeReminder:
    """Record one attempt to mail ``reminder`` (worker side, inside the task's row lock):
    ``sent`` mails the SMTP server took, ``error`` ("" when every recipient's mail was taken).
    A taken reminder gets its ``sent_at``; a failed one keeps its error for the next
    ``remind_notices`` to try again. Both are written to the notice's audit trail. Returns it."""
    with transaction.atomic():
        update = {"attempts": F("attempts") + 1, "error": error}
        if not error:
            update["sent_at"] = timezone.now()
        NoticeReminder.objects.filter(pk=reminder.pk).update(**update)
        reminder.refresh_from_db()
        if error:
            reason = notes.coded("notice_reminder_failed", gettext_noop(
                "reminder e-mail, attempt %(n)s: %(error)s"), n=reminder.attempts, error=error)
        else:
            reason = notes.coded("notice_reminder_mailed", gettext_noop(
                "reminder e-mailed, recipients: %(count)s"), count=sent)
        _audit(reminder.notice, None, NoticeEvent.REMINDED,
               NoticeEvent.MAIL_FAILED if error else NoticeEvent.REMINDED, reason)
    return reminder
