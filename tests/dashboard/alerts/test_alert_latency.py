"""The issue's alert target, end to end: a copy found by a stored-page search (crawler.rematch,
the crawler's own matching with the platform engine) reaches the loopback SMTP server and the
webhook receiver within one minute of the search's end, as one case, through the real Celery
worker."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from core.connections import get_mongo_db
from core.engine import get_engine
from crawler import rematch
from crawler.models import Match
from dashboard.alerts import webhooks
from dashboard.alerts.models import AlertPreference, Delivery, WebhookEndpoint
from lib.crawl.pagestore import PageStore
from tests.chapter import CHAPTER

pytestmark = pytest.mark.django_db(transaction=True)
TARGET_SECONDS = 60  # "within one minute of the match being recorded"


def test_a_copy_found_by_a_search_reaches_smtp_and_webhook_within_a_minute(
        holder_with_user, smtp_server, receiver, idle_worker, platform_stores, wait_for):
    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="en")
    WebhookEndpoint.objects.create(holder=ns.holder, name="ops", url=receiver.url,
                                   secret="s3cret")
    get_engine().add_work(ns.work.engine_id, CHAPTER)
    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    url = "https://copy.example.com/xyj/1.html"
    text = "盗版小说网 · 最新章节\n\n" + CHAPTER[:2000] + "\n\n下载APP看全本"
    saved = store.save(canonical_url=url, url=url, final_url=url, domain="copy.example.com",
                       site_id=None, scan_id=None, status=200, outcome="fetched", reason="",
                       headers={}, validators={}, body=text.encode(), text=text, title="第一回",
                       published=None, encoding="utf-8", extraction={}, links=[])

    job = rematch.run([ns.work.pk], get_engine(), store)
    recorded = time.monotonic()
    assert (job.state, job.matches_new) == ("finished", 1)
    match = Match.objects.get()
    assert match.page_id == saved.page_id and match.first_scan_id is None
    wait_for(lambda: smtp_server.messages and receiver.requests, timeout=TARGET_SECONDS,
             what="the alert mail and the webhook POST")
    assert time.monotonic() - recorded < TARGET_SECONDS
    text = next(p for p in smtp_server.messages[0].walk() if p.get_content_type() == "text/plain")
    assert f"/crawler/case/{match.case_id}/change/" in text.get_payload(decode=True).decode()
    headers, body = receiver.requests[0]
    assert webhooks.verify("s3cret", headers["X-Tracker-Timestamp"], body,
                           headers["X-Tracker-Signature"])

    def both_sent():
        sent = list(Delivery.objects.filter(search=job, status="sent").order_by("channel"))
        return sent if len(sent) == 2 else None

    # the worker records a delivery "sent" a moment after the server received it
    sent = wait_for(both_sent, what="both deliveries recorded as sent")
    assert [d.channel for d in sent] == ["email", "webhook"]
    assert all(d.sent_at - job.finished_at < timedelta(seconds=TARGET_SECONDS) for d in sent)
