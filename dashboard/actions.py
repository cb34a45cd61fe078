"""The dashboard's actions: takedown notices are drafted and advanced only here, each change
atomic and recorded in the audit trail with the acting user.

Takedown notice: drafted -> sent -> removed / counter-notice, each move dated. Reviewing matches
and whitelisting domains are the crawler's actions (``crawler.actions``).
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from crawler import cases
from crawler.lib.pagestore import sha256
from crawler.models import ReviewStatus
from dashboard import notices
from dashboard.models import (
    MAIL_PENDING,
    NOTICE_DATE_FIELDS,
    NOTICE_TRANSITIONS,
    ApiToken,
    NoticeLanguage,
    NoticeStatus,
    TakedownNotice,
)
from tracker.core import notes
from tracker.core.errors import ActionError
from tracker.core.models import AccessState, AuditEvent
from tracker.core.models.audit import CHECK_REQUESTED
from tracker.core.queueing import queue_after_commit


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


def do_issue_api_token(token: ApiToken, acting_user) -> str:
    """Save the new, unsaved ``token`` (its name set) for ``acting_user`` and record it.

    Returns:
        The raw token, to be shown once (only its SHA-256 is stored).
    """
    with transaction.atomic():
        token.user = acting_user
        raw = token.issue()
        token.save()
        AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                          target=token, subject=str(token), old_state="",
                          new_state=AccessState.ACTIVE,
                          reason=notes.coded("token_issued", gettext_noop("API token issued")))
    return raw


def do_revoke_api_tokens(tokens, acting_user) -> int:
    """Revoke each token of ``tokens`` (an ApiToken queryset) still active, for good, and record
    each revocation.

    Returns:
        The number of tokens revoked.
    """
    revoked = 0
    with transaction.atomic():
        for token in tokens.select_for_update().filter(revoked_at__isnull=True):
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                              target=token, subject=str(token), old_state=AccessState.ACTIVE,
                              new_state=AccessState.REVOKED, reason=notes.coded(
                                  "token_revoked", gettext_noop("API token revoked")))
            revoked += 1
    return revoked


def do_delete_api_tokens(tokens, acting_user) -> int:
    """Delete each token of ``tokens`` (an ApiToken queryset), which ends its access for good,
    and record each deletion.

    Returns:
        The number of tokens deleted.
    """
    deleted = 0
    with transaction.atomic():
        for token in tokens.select_for_update():
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                              target=None, subject=str(token),
                              old_state=AccessState.REVOKED if token.revoked_at
                              else AccessState.ACTIVE, new_state=AccessState.DELETED,
                              reason=notes.coded("token_deleted",
                                                 gettext_noop("API token deleted")))
            token.delete()
            deleted += 1
    return deleted
