"""Alerts of cases: a real scan (Celery worker) of a loopback site that copies one work over
many pages gives one case, one mail (aiosmtpd: an HTML and a plain-text part in the user's
language, a link to the case, the product's sender) and one signed webhook event; a later scan
that finds more pages sends one mail about the grown case; the delivery log names the case."""

from __future__ import annotations

import json

from dashboard.alerts import webhooks
from tests.chapter import CHAPTER
from tests.scanning import scan

PART = 650  # characters of the chapter per copying page


def test_a_scan_copying_one_work_over_many_pages_gives_one_case_and_one_mail(
        holder_with_user, indexed_chapter, copying_site, smtp_server, receiver, idle_worker,
        wait_for):
    from crawler.models import Case, TargetSite
    from dashboard.alerts.actions import do_save_webhook, do_update_alert_preferences
    from dashboard.alerts.models import Delivery, WebhookEndpoint

    ns = holder_with_user
    work = indexed_chapter(ns.holder)
    do_update_alert_preferences(ns.user, email_enabled=True, language="zh-hans")
    do_save_webhook(WebhookEndpoint(holder=ns.holder, name="cms", url=receiver.url,
                                    secret="s3cret"), None)
    for n in range(5):
        copying_site.pages[f"/book/{n + 1}.html"] = CHAPTER[n * PART:(n + 1) * PART]
    site = TargetSite.objects.create(name="好书网", start_urls=[copying_site.url + "/"],
                                     delay_seconds=0)

    first = scan(site.pk)
    assert first["status"] == "finished" and first["matches_new"] == 5
    case = Case.objects.get()
    assert (case.work, case.domain, case.pages.count(), case.first_scan_id) == (
        work, "127.0.0.1", 5, first["scan"])
    wait_for(lambda: Delivery.objects.filter(status="sent").count() == 2,
             what="the mail and the webhook event sent")
    assert len(smtp_server.messages) == 1 and len(receiver.requests) == 1
    mail = smtp_server.messages[0]
    assert mail["From"] == "Copyright tracker <alerts@copyright-tracker.localhost>"
    assert mail["To"] == "editor@holder.test"
    assert "新案件：1，新增网页的案件：0" in _header(mail["Subject"])
    parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in mail.walk()
             if not p.is_multipart()}
    assert set(parts) == {"text/plain", "text/html"}
    link = f"https://tracker.test/crawler/case/{case.pk}/change/"
    assert link in parts["text/plain"] and f'href="{link}"' in parts["text/html"]
    assert "新案件" in parts["text/plain"] and "西游记" in parts["text/html"]
    headers, body = receiver.requests[0]
    assert webhooks.verify("s3cret", headers["X-Tracker-Timestamp"], body,
                           headers["X-Tracker-Signature"])
    event = json.loads(body)
    assert (event["event"], event["case"]["id"], event["case"]["pages"]) == (
        "case.new", case.pk, 5)
    log = Delivery.objects.get(channel="email")
    assert list(log.cases.all()) == [case] and log.scan_id == first["scan"]

    # one more page of the same work on the same site: the case grows, one more mail
    for n in range(5, 6):
        copying_site.pages[f"/book/{n + 1}.html"] = CHAPTER[n * PART:(n + 1) * PART]
    second = scan(site.pk)
    assert second["matches_new"] == 1 and Case.objects.count() == 1
    wait_for(lambda: Delivery.objects.filter(status="sent").count() == 4,
             what="the second mail and webhook event sent")
    assert len(smtp_server.messages) == 2 and len(receiver.requests) == 2
    assert json.loads(receiver.requests[1][1])["event"] == "case.grown"
    text = [p for p in smtp_server.messages[1].walk() if p.get_content_type() == "text/plain"][0]
    assert "新增网页的案件" in text.get_payload(decode=True).decode()


def _header(value) -> str:
    from email.header import decode_header, make_header

    return str(make_header(decode_header(str(value))))
