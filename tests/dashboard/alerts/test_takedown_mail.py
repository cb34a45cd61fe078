"""Takedown from inside the product, with real parts: a loopback site scanned by the Celery
worker, its takedown addresses found through the crawl library (security.txt, a mailto: link,
its contact page) and confirmed by staff, the notice sent to aiosmtpd with its evidence reports
attached and the server's answer recorded; an SMTP server down (retried until it is up), a
recipient refused with 550 (recorded, nothing lost), the sweeper of lost mails, and the reminder
of a page still up N days after its notice."""

from __future__ import annotations

from datetime import timedelta
from email.header import decode_header, make_header
from email.utils import parseaddr

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone, translation

from core.errors import ActionError
from tests.chapter import CHAPTER
from tests.scanning import scan

PART = 650  # characters of the chapter per copying page
SECURITY_TXT = "Contact: mailto:security@haoshu.example\nContact: https://haoshu.example/report\n"


@pytest.fixture
def takedown_site(copying_site):
    """The copying site with the chapter over 4 pages, whose home page links to its contact
    page and has a mailto: link, with a security.txt. Returns its base URL."""
    copying_site.pages.update(
        {f"/book/{n + 1}.html": CHAPTER[n * PART:(n + 1) * PART] for n in range(4)})
    copying_site.home_extra = ('<a href="/contact.html">联系我们</a> '
                               '<a href="mailto:editor@haoshu.example">编辑部</a>')
    copying_site.files.update({
        "/contact.html": ("text/html; charset=utf-8", "<html><head><title>好书网</title></head>"
                          "<body><p>版权投诉请发邮件至 legal@haoshu.example</p></body></html>"),
        "/.well-known/security.txt": ("text/plain; charset=utf-8", SECURITY_TXT)})
    return copying_site.url


@pytest.fixture
def staff(transactional_db, django_user_model):
    """A platform staff member (superuser) with an e-mail address."""
    return django_user_model.objects.create_superuser("boss", "boss@tracker.test", "x")


def _text(value) -> str:
    return str(make_header(decode_header(str(value))))


def _confirmed_case(ns, staff, domain="copy.example.com", pages=1):
    """A confirmed case of ``ns.work`` on ``domain`` with ``pages`` matched pages."""
    from crawler import case_actions
    from crawler.cases import open_case
    from crawler.models import Match

    for _n in range(pages):
        match = ns.new_match(domain=domain)
        case, _opened = open_case(match.work, match.domain)
        Match.objects.filter(pk=match.pk).update(case=case)
    case_actions.do_confirm_case(case, staff, "copies our book")
    return case


def test_addresses_found_on_the_site_confirmed_then_the_notice_mailed_with_its_reports(
        holder_with_user, indexed_chapter, takedown_site, smtp_server, staff, idle_worker,
        wait_for):
    from core.models import AuditEvent
    from crawler import case_actions, contacts
    from crawler.models import Case, CaseState, SiteContact, TargetSite
    from dashboard import evidence_reports, notice_actions, notice_mail
    from dashboard.models import NoticeMail

    ns = holder_with_user
    indexed_chapter(ns.holder)
    site = TargetSite.objects.create(name="好书网", start_urls=[takedown_site + "/"],
                                     delay_seconds=0)
    assert scan(site.pk)["matches_new"] == 4
    case = Case.objects.get()
    contact = SiteContact.objects.get(domain=case.domain)
    assert contact.address == ""  # listed as needing one
    assert list(contacts.missing_contacts()) == [case.domain]
    case_actions.do_confirm_case(case, staff, "整本复制")

    contacts.do_search_contacts(case.domain, staff)
    wait_for(lambda: SiteContact.objects.filter(pk=contact.pk, search="done").exists(),
             what="the address search")
    found = set(contact.suggestions.values_list("address", "source"))
    assert found == {("security@haoshu.example", "security_txt"),
                     ("editor@haoshu.example", "mailto"),
                     ("legal@haoshu.example", "contact_page")}
    with translation.override("en"), pytest.raises(ActionError, match="no confirmed takedown"):
        notice_actions.do_send_case_notice(case, staff, "zh-hans")  # a suggestion is not enough
    assert not smtp_server.messages

    contacts.do_set_contact(case.domain, "legal@haoshu.example", staff)
    ns.holder.email = "rights@xinghe.example"
    ns.holder.save()
    [mail] = notice_actions.do_send_case_notice(case, staff, "zh-hans")
    with translation.override("en"), pytest.raises(ActionError, match="being sent already"):
        notice_actions.do_send_case_notice(case, staff, "zh-hans")
    mail = wait_for(lambda: NoticeMail.objects.filter(pk=mail.pk, status__in=(
        "sent", "refused", "failed")).first(), timeout=120, what="the notice mailed")
    assert mail.status == "sent", (mail.status, mail.smtp_reply, mail.error)
    [message] = smtp_server.messages
    assert message["To"] == "legal@haoshu.example"
    # from the holder, sent by the platform; dated in the platform's zone (Asia/Shanghai)
    assert parseaddr(_text(message["From"])) == ("星河出版社", "rights@xinghe.example")
    assert parseaddr(message["Sender"])[1] == parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    assert message["Date"].endswith("+0800")
    assert message["Message-ID"] == mail.message_id
    assert mail.smtp_reply.startswith("250") and mail.attempts == 1 and mail.sent_at
    assert "西游记" in _text(message["Subject"]) and "127.0.0.1" in _text(message["Subject"])
    parts = [p for p in message.walk() if not p.is_multipart()]
    text = parts[0].get_payload(decode=True).decode()
    assert "侵权内容删除通知书" in text and takedown_site + "/book/1.html" in text
    assert "可应要求提供" not in text and "____" not in text  # says what is attached; signed
    assert "权利人：星河出版社（经办人：boss）" in text
    reports = [p.get_payload(decode=True) for p in parts if p.get_content_type() == "application/pdf"]
    assert len(reports) == 3 and all(r.startswith(b"%PDF") for r in reports)  # NOTICE_MAIL_MAX_REPORTS
    first = mail.notice.matches.order_by("pk").first()
    with translation.override("zh-hans"):
        kept = evidence_reports.kept_report_pdf(first, staff)  # made once, kept
    with override_settings(NOTICE_MAIL_MAX_ATTACHMENT_BYTES=len(kept) + 1):  # room for one
        capped = notice_mail.compose(mail)
    assert [content for _name, content, _type in capped.attachments] == [kept]
    assert "未附上（超过邮件大小上限）" in capped.body

    case.refresh_from_db()
    assert case.state == CaseState.NOTICE_SENT and case.notice_sent_at
    notice = mail.notice
    notice.refresh_from_db()
    assert notice.status == "sent" and notice.recipient == "legal@haoshu.example"
    trail = list(AuditEvent.objects.about(notice).order_by("sequence"))
    assert [e.new_state for e in trail] == ["drafted", "mail queued", "sent"]
    assert mail.message_id in trail[-1].reason and trail[-1].username == "boss"
    assert AuditEvent.objects.about(contact).filter(new_state="contact set").count() == 1


def test_smtp_down_is_retried_until_it_is_up_and_a_refused_recipient_is_recorded(
        holder_with_user, smtp_server, staff, idle_worker, wait_for):
    from core.models import AuditEvent
    from crawler import contacts
    from crawler.models import CaseState
    from dashboard import notice_actions
    from dashboard.models import NoticeMail

    ns = holder_with_user
    smtp_server.stop()  # the port answers nothing
    case = _confirmed_case(ns, staff)
    contacts.do_set_contact(case.domain, "abuse@copy.example.com", staff)
    [mail] = notice_actions.do_send_case_notice(case, staff, "en")
    down = wait_for(lambda: NoticeMail.objects.filter(pk=mail.pk, status="retrying",
                                                      attempts__gte=2).first(),
                    what="the mail retried while SMTP is down")
    assert "Connection refused" in down.error or "ConnectionRefused" in down.error
    assert down.next_attempt_at is not None
    case.refresh_from_db()
    assert case.state == CaseState.CONFIRMED  # nothing was sent yet
    smtp_server.start()
    sent = wait_for(lambda: NoticeMail.objects.filter(pk=mail.pk, status="sent").first(),
                    what="the mail sent once SMTP is up")
    assert sent.smtp_reply.startswith("250") and sent.error == ""
    assert [m["To"] for m in smtp_server.messages] == ["abuse@copy.example.com"]
    assert "Takedown notice" in _text(smtp_server.messages[0]["Subject"])

    other = _confirmed_case(ns, staff, domain="mirror.example.net")
    contacts.do_set_contact(other.domain, "gone@mirror.example.net", staff)
    smtp_server.refused.add("gone@mirror.example.net")
    [refused] = notice_actions.do_send_case_notice(other, staff, "en")
    refused = wait_for(lambda: NoticeMail.objects.filter(pk=refused.pk, status="refused").first(),
                       what="the recipient refused")
    assert refused.smtp_reply.startswith("550 5.1.1") and refused.attempts == 1
    other.refresh_from_db()
    assert other.state == CaseState.CONFIRMED and refused.notice.status == "drafted"
    assert AuditEvent.objects.about(refused.notice).filter(new_state="mail refused").exists()
    # the contact corrected, the same drafted notice goes out
    contacts.do_set_contact(other.domain, "legal@mirror.example.net", staff)
    [again] = notice_actions.do_send_case_notice(other, staff, "en")
    assert again.notice_id == refused.notice_id
    wait_for(lambda: NoticeMail.objects.filter(pk=again.pk, status="sent").exists(),
             what="the corrected mail sent")
    assert len(smtp_server.messages) == 2


def test_sweeper_fails_a_lost_mail_and_sends_again_a_forgotten_one(
        holder_with_user, smtp_server, staff, idle_worker, wait_for, settings):
    from core import notes
    from dashboard import tasks
    from dashboard.models import NoticeMail
    from dashboard.notice_actions import do_draft_notices

    ns = holder_with_user
    old = timezone.now() - timedelta(seconds=settings.NOTICE_MAIL_STUCK_SECONDS + 60)
    lost_case = _confirmed_case(ns, staff, domain="lost-copy.com")
    forgotten_case = _confirmed_case(ns, staff, domain="forgotten-copy.net")
    [lost_draft] = do_draft_notices(lost_case.pages.all(), staff, "en")
    [draft] = do_draft_notices(forgotten_case.pages.all(), staff, "en")
    # the states a lost task leaves: retried to the last try then gone with the broker; queued
    # long ago and never sent to the broker
    lost = NoticeMail.objects.create(notice=lost_draft, recipient="a@lost-copy.com",
                                     asked_by=staff, asked_at=old, attempted_at=old,
                                     status="retrying", attempts=settings.NOTICE_MAIL_MAX_RETRIES)
    forgotten = NoticeMail.objects.create(notice=draft, recipient="b@forgotten-copy.net",
                                          asked_by=staff, asked_at=old)
    swept = tasks.sweep_notice_mails()
    assert swept == {"failed": [lost.pk], "requeued": [forgotten.pk]}
    lost.refresh_from_db()
    assert lost.status == "failed" and "no answer from the worker" in notes.in_english(lost.error)
    wait_for(lambda: NoticeMail.objects.filter(pk=forgotten.pk, status="sent").exists(),
             what="the forgotten mail sent")
    assert [m["To"] for m in smtp_server.messages] == ["b@forgotten-copy.net"]


def test_a_page_still_up_reminds_staff_once_per_period(
        holder_with_user, smtp_server, staff, idle_worker, wait_for, settings):
    from core.models import AuditEvent
    from dashboard import tasks
    from dashboard.alerts.actions import do_update_alert_preferences
    from dashboard.models import NoticeReminder, TakedownNotice
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    do_update_alert_preferences(staff, language="en")  # the editor keeps the default, zh-hans
    case = _confirmed_case(holder_with_user, staff, pages=2)
    [notice] = do_draft_notices(case.pages.all(), staff, "en", "abuse@copy.example.com")
    do_advance_notice(notice, "sent", staff)
    assert tasks.remind_notices() == []  # sent today: too early
    TakedownNotice.objects.filter(pk=notice.pk).update(
        sent_at=timezone.now() - timedelta(days=settings.NOTICE_REMINDER_DAYS, hours=1))
    [created] = tasks.remind_notices()
    assert tasks.remind_notices() == []  # one per period
    reminder = wait_for(lambda: NoticeReminder.objects.filter(pk=created,
                                                              sent_at__isnull=False).first(),
                        what="the reminder mailed")
    assert reminder.period == 1 and reminder.pages_up == 2
    assert "boss@tracker.test" in reminder.recipients
    [mail] = [m for m in smtp_server.messages if m["To"] == "boss@tracker.test"
              and _text(m["Subject"]) == "Still up after the notice: copy.example.com"]
    assert "editor@holder.test" not in reminder.recipients  # neither staff nor its sender
    body = mail.get_payload(decode=True).decode()
    assert f"/crawler/case/{case.pk}/change/" in body
    trail = AuditEvent.objects.about(notice)
    assert trail.filter(new_state="reminded").exclude(old_state="reminded").count() == 1
    [mailed] = trail.filter(old_state="reminded", new_state="reminded")
    with translation.override("en"):
        assert mailed.reason_label == f"reminder e-mailed, recipients: {len(reminder.recipients)}"


def _mailed(notice, staff, wait_for):
    """``staff`` sends drafted ``notice`` to its recipient through the worker and SMTP;
    returns the NoticeMail."""
    from dashboard import notice_actions
    from dashboard.models import NoticeMail

    mail = notice_actions.do_send_notice(notice, staff, notice.recipient)
    mail = wait_for(lambda: NoticeMail.objects.filter(pk=mail.pk, status__in=(
        "sent", "refused", "failed")).first(), timeout=120, what="the notice mailed")
    assert mail.status == "sent", (mail.status, mail.error)
    return mail


def test_an_ignored_notice_climbs_to_the_host_then_the_registrar_citing_the_one_before(
        holder_with_user, smtp_server, staff, idle_worker, wait_for, settings):
    from core.models import AuditEvent
    from crawler import contacts, rdap_contacts, takedown
    from crawler.models import ContactSource, SiteContact
    from dashboard import case_figures, notices, summary_figures, tasks
    from dashboard.models import TakedownNotice
    from dashboard.notice_actions import do_draft_notices

    ns = holder_with_user
    case = _confirmed_case(ns, staff)
    page = case.pages.get()
    contact = SiteContact.objects.get(domain=case.domain)
    rdap_contacts.do_record_rdap_lookup(contact.pk, [  # as the worker's RDAP lookup stores them
        contacts.Found("abuse@host.example", ContactSource.RDAP_HOST, "rdap://ip/203.0.113.7"),
        contacts.Found("abuse@registrar.example", ContactSource.RDAP_REGISTRAR,
                       "rdap://domain/example.com")])
    [first] = do_draft_notices([page], staff, "en", "legal@copy.example.com")
    first_mail = _mailed(first, staff, wait_for)
    first.refresh_from_db()
    assert tasks.escalate_notices() == []  # sent today: not yet due
    takedown.record_check(page, "present", 200, "ab" * 32, "still copying")
    TakedownNotice.objects.filter(pk=first.pk).update(
        sent_at=timezone.now() - timedelta(days=settings.NOTICE_ESCALATE_DAYS, hours=1))
    first.refresh_from_db()

    [host_id] = tasks.escalate_notices()
    assert tasks.escalate_notices() == []  # once per notice
    host = TakedownNotice.objects.get(pk=host_id)
    assert (host.status, host.recipient, host.recipient_role) == (
        "drafted", "abuse@host.example", "host")
    assert host.escalation_of == first and list(host.matches.all()) == [page]
    text = notices.render_text(host)
    assert "To: abuse@host.example" in text and "# Earlier notice" not in text
    assert f"sent notice #{first.pk} about these pages to legal@copy.example.com" in text
    assert f"(e-mail Message-ID {first_mail.message_id})" in text
    assert f"{page.url}: still up at " in text and "(HTTP 200)" in text
    assert "as the hosting provider of copy.example.com" in text
    with translation.override("en"):
        [event] = AuditEvent.objects.about(case).filter(new_state="escalated")
        assert event.new_label == "escalated" and event.username == ""
        assert event.reason_label == (f"notice #{first.pk} escalated: notice #{host.pk} "
                                      f"drafted to abuse@host.example")

    host_mail = _mailed(host, staff, wait_for)
    message = next(m for m in smtp_server.messages if m["To"] == "abuse@host.example")
    assert message["Message-ID"] == host_mail.message_id
    body = next(p for p in message.walk() if not p.is_multipart()).get_payload(decode=True)
    assert first_mail.message_id in body.decode()
    TakedownNotice.objects.filter(pk=host.pk).update(
        sent_at=timezone.now() - timedelta(days=settings.NOTICE_ESCALATE_DAYS, hours=1))

    [registrar_id] = tasks.escalate_notices()
    registrar = TakedownNotice.objects.get(pk=registrar_id)
    assert (registrar.recipient, registrar.recipient_role, registrar.escalation_of) == (
        "abuse@registrar.example", "registrar", host)
    assert f"(e-mail Message-ID {host_mail.message_id})" in notices.render_text(registrar)
    _mailed(registrar, staff, wait_for)
    TakedownNotice.objects.filter(pk=registrar.pk).update(
        sent_at=timezone.now() - timedelta(days=settings.NOTICE_ESCALATE_DAYS, hours=1))

    assert tasks.escalate_notices() == []  # no platform in the registry above the registrar
    registrar.refresh_from_db()
    with translation.override("en"):
        assert registrar.escalation_note_words.startswith("no one is known above")
    start = timezone.now() - timedelta(days=1)
    assert summary_figures.escalations(ns.holder, start, timezone.now()) == 2
    steps = {s["key"]: s["count"] for s in case_figures.funnel(staff, 30)["steps"]}
    assert (steps["notice_sent"], steps["escalated"], steps["removed"]) == (1, 1, 0)


def test_an_escalation_in_chinese_and_what_cannot_be_escalated(
        holder_with_user, staff, settings):
    from crawler import takedown
    from dashboard import notice_actions, notices
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    case = _confirmed_case(holder_with_user, staff, domain="weibo.com")  # a demo platform
    page = case.pages.get()
    [first] = do_draft_notices([page], staff, "zh-hans", "legal@weibo.com")
    with translation.override("en"), pytest.raises(ActionError, match="Only a sent notice"):
        notice_actions.do_escalate_notice(first, staff)
    do_advance_notice(first, "sent", staff)

    platform = notice_actions.do_escalate_notice(first, staff)  # no RDAP address: the platform
    assert platform.recipient_role == "platform" and platform.recipient.startswith("https://")
    text = notices.render_text(platform)
    assert "# 此前通知" not in text and "此前通知" in text
    assert "权利人已于 " in text and f"向 legal@weibo.com 发出第 {first.pk} 号通知" in text
    assert "贵方作为 weibo.com 的平台" in text and "Message-ID" not in text  # not mailed
    with translation.override("en"), pytest.raises(ActionError, match="escalated already"):
        notice_actions.do_escalate_notice(first, staff)
    takedown.record_check(page, "removed", 404, "", "gone")
    do_advance_notice(platform, "sent", staff)
    with translation.override("en"), pytest.raises(ActionError, match="still up"):
        notice_actions.do_escalate_notice(platform, staff)
