"""The takedown summary per holder: chosen weekly or monthly in the alert preferences, mailed by
the session's Celery worker through a loopback SMTP server (aiosmtpd) as HTML with the same page
as a PDF, in the user's language, once per user and period even when the task runs twice or the
SMTP server was down."""

from __future__ import annotations

import re
import subprocess
from datetime import date, datetime, timedelta
from email.header import decode_header, make_header

from dashboard.alerts.models import AlertPreference, SummaryMail
from dashboard.alerts.summary import last_period


def test_periods_are_the_last_whole_week_or_month_in_the_users_zone():
    from zoneinfo import ZoneInfo

    shanghai = ZoneInfo("Asia/Shanghai")
    # Saturday 2026-02-28 20:00 UTC is Sunday March 1, 04:00 in Shanghai
    now = datetime(2026, 2, 28, 20, 0, tzinfo=ZoneInfo("UTC"))
    assert last_period("weekly", now, shanghai) == (date(2026, 2, 16), date(2026, 2, 23))
    assert last_period("weekly", now, ZoneInfo("UTC")) == (date(2026, 2, 16), date(2026, 2, 23))
    assert last_period("monthly", now, shanghai) == (date(2026, 2, 1), date(2026, 3, 1))
    assert last_period("monthly", now, ZoneInfo("UTC")) == (date(2026, 1, 1), date(2026, 2, 1))


def _parts(message) -> tuple[str, str, bytes]:
    """(subject, HTML part, PDF attachment bytes) of a received mail."""
    html = pdf = None
    for part in message.walk():
        if part.get_content_type() == "text/html":
            html = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
        elif part.get_content_type() == "application/pdf":
            pdf = part.get_payload(decode=True)
    return str(make_header(decode_header(message["Subject"]))), html, pdf


def _pdf_text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "summary.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout


def test_the_weekly_summary_reports_the_holders_figures_once_as_html_and_pdf(
        holder_with_user, smtp_server, idle_worker, wait_for, tmp_path):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from core.models import AuditEvent
    from core.timezones import zone_of
    from crawler.case_actions import do_confirm_case
    from crawler.cases import open_case
    from crawler.models import Case
    from dashboard.alerts.actions import do_queue_summaries, do_update_alert_preferences
    from dashboard.alerts.summary import bounds
    from dashboard.alerts.tasks import send_summaries

    ns = holder_with_user
    english = get_user_model().objects.create_user("manager", "manager@holder.test", "x")
    ns.holder.users.add(english)
    do_update_alert_preferences(ns.user, language="zh-hans", summary="weekly",
                                email_enabled=False, digest_enabled=False)
    do_update_alert_preferences(english, language="en", summary="weekly",
                                email_enabled=False, digest_enabled=False)
    later = timezone.now() + timedelta(days=7)  # the week before `later` holds "now"
    start, end = bounds(*last_period("weekly", later, zone_of(ns.user)), zone_of(ns.user))

    confirmed, _ = open_case(ns.work, "confirmed.example")
    do_confirm_case(confirmed, ns.user, "copies chapter 1")
    removed, _ = open_case(ns.work, "removed.example")
    Case.objects.filter(pk=removed.pk).update(
        state="removed", notice_sent_at=start + timedelta(hours=1),
        removed_at=start + timedelta(days=3, hours=1))
    ignoring, _ = open_case(ns.work, "ignoring.example")
    Case.objects.filter(pk=ignoring.pk).update(
        state="still_up", opened_at=start - timedelta(days=40),
        notice_sent_at=end - timedelta(days=20))
    AuditEvent.record(kind=AuditEvent.Kind.CASE, user=ns.user, holder=ns.holder,
                      target=ignoring, subject="ignoring.example", old_state="still_up",
                      new_state="escalated", reason="to the host")

    smtp_server.stop()
    assert len(do_queue_summaries(now=later)) == 2
    wait_for(lambda: SummaryMail.objects.filter(status="retrying").count() == 2,
             what="the summaries waiting for the SMTP server")
    assert do_queue_summaries(now=later) == []  # the period is recorded: nothing new
    smtp_server.start()
    wait_for(lambda: SummaryMail.objects.filter(status="sent").count() == 2,
             what="both summaries sent")
    assert len(smtp_server.messages) == 2

    by_recipient = {m["To"]: m for m in smtp_server.messages}
    subject, html, pdf = _parts(by_recipient["editor@holder.test"])
    first, last = start.date().isoformat(), (end.date() - timedelta(days=1)).isoformat()
    assert subject == f"每周维权摘要：{first} 至 {last}"
    figures = dict(re.findall(r'<th align="left"[^>]*>([^<]+)</th><td align="right"[^>]*>'
                              r"([^<]+)</td>", html))
    assert figures == {"发现的案件": "2", "确认的案件": "1", "发出的通知": "1",
                       "升级的案件": "1", "删除的案件": "1", "从通知到删除的时间中位数": "3.0 天"}
    assert "ignoring.example" in html and "removed.example" not in html
    text = _pdf_text(pdf, tmp_path)
    assert "星河出版社" in text and "ignoring.example" in text
    assert re.search(r"升级的案件\s+1", text) and re.search(r"时间中位数\s+3.0 天", text)

    subject, html, pdf = _parts(by_recipient["manager@holder.test"])
    assert subject == f"Weekly takedown summary, {first} to {last}"
    figures = dict(re.findall(r'<th align="left"[^>]*>([^<]+)</th><td align="right"[^>]*>'
                              r"([^<]+)</td>", html))
    assert figures == {"Cases found": "2", "Cases confirmed": "1", "Notices sent": "1",
                       "Cases escalated": "1", "Cases removed": "1",
                       "Median time from notice to removal": "3.0 days"}
    text = _pdf_text(pdf, tmp_path)
    assert re.search(r"Cases found\s+2", text) and "ignoring.example" in text
    assert AlertPreference.objects.get(user=english).summary == "weekly"

    # the beat task, today: last week's summaries once, however often it runs
    assert send_summaries.delay().get(timeout=60) == 2
    assert send_summaries.delay().get(timeout=60) == 0
    wait_for(lambda: SummaryMail.objects.filter(status="sent").count() == 4,
             what="last week's summaries sent")
    assert len(smtp_server.messages) == 4
