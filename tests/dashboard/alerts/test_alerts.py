"""Alerts end to end: the cases a stored-page search opened or grew reach a real SMTP server
(aiosmtpd: one mail per user) and a real HTTP receiver on loopback (one event per case) through
the session's Celery worker; the delivery log says what happened; takedown changes are alerted
per match; the digest groups by work and domain in the user's language."""

from __future__ import annotations

import json
import time

import pytest

from dashboard.alerts import webhooks
from dashboard.alerts.models import AlertPreference, Delivery, WebhookEndpoint
from dashboard.alerts.tasks import send_digest, send_search_case_alerts
from tests.dashboard.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)


def _body(message) -> str:
    return message.get_payload(decode=True).decode(message.get_content_charset() or "utf-8")


def _subject(message) -> str:
    from email.header import decode_header, make_header

    return str(make_header(decode_header(message["Subject"])))


def _delivery(wait_for, what, **filters) -> Delivery:
    return wait_for(lambda: Delivery.objects.filter(**filters).first(), what=what)


def _text(message) -> str:
    """The plain-text part of a mail (the whole body of a single-part one)."""
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    return _body(part)


def test_a_copy_found_by_a_search_is_mailed_once_per_case_with_links_and_unsubscribe(
        holder_with_user, smtp_server, idle_worker, wait_for, client):
    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="en", min_score=0.5)
    match = ns.new_match(score=0.87)
    wait_for(lambda: smtp_server.messages, what="the alert mail")
    mail = smtp_server.messages[0]
    assert mail["To"] == "editor@holder.test"
    assert _subject(mail) == ("Stored pages searched for new works — new cases: 1, cases with "
                              "new pages: 0")
    body = _text(mail)
    assert f"https://tracker.test/crawler/case/{match.case_id}/change/" in body
    assert "“星河往事” on example.com: 1 pages, 1 found by this search (new)" in body  # state in en
    assert "rewritten" not in body and "洗稿" not in body  # a plain copy
    delivery = _delivery(wait_for, "the delivery row", search=match.search, status="sent")
    assert (delivery.channel, delivery.attempts, delivery.recipient) == ("email", 1,
                                                                         "editor@holder.test")
    assert list(delivery.cases.all()) == [match.case]

    # the search's alert task delivered twice: nothing new is sent
    assert send_search_case_alerts.delay(match.search.pk).get(timeout=60) == 0
    assert Delivery.objects.filter(search=match.search).count() == 1
    # a later search grows the case with a page below the user's minimum score: no alert
    low = ns.new_match(score=0.3)
    assert send_search_case_alerts.delay(low.search.pk).get(timeout=60) == 0
    assert not Delivery.objects.filter(search=low.search).exists()
    assert len(smtp_server.messages) == 1
    # one above it: one mail about the grown case
    ns.new_match(score=0.8)
    wait_for(lambda: len(smtp_server.messages) == 2, what="the grown case's mail")
    assert _subject(smtp_server.messages[1]).endswith("new cases: 0, cases with new pages: 1")
    assert "3 pages, 1 found by this search" in _text(smtp_server.messages[1])

    # the unsubscribe link works without login: GET asks, POST turns the mails off
    link = next(w for w in body.split() if "/alerts/unsubscribe/" in w)
    path = link.removeprefix("https://tracker.test")
    assert "".join(mail["List-Unsubscribe"].split()) == f"<{link}>"  # folded header
    assert client.get(path).status_code == 200
    assert AlertPreference.objects.get(user=ns.user).email_enabled
    assert "Immediate alert mails are off" in client.post(path).content.decode()
    assert not AlertPreference.objects.get(user=ns.user).email_enabled
    assert client.post(path[:-3] + "xx/").status_code == 404  # altered token


def test_smtp_down_the_mail_waits_and_is_retried(holder_with_user, smtp_server, idle_worker,
                                                 wait_for):
    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="zh-hans")
    smtp_server.stop()
    match = ns.new_match()
    retrying = _delivery(wait_for, "a failed attempt", search=match.search, status="retrying")
    assert "Connection refused" in retrying.last_error or "Errno" in retrying.last_error
    smtp_server.start()
    wait_for(lambda: smtp_server.messages, what="the mail after the server came back")
    assert _subject(smtp_server.messages[0]).startswith("已存网页中检索新作品 — 新案件：1")
    delivery = _delivery(wait_for, "the sent delivery", search=match.search, status="sent")
    assert delivery.attempts >= 2 and delivery.last_error == ""


def _endpoint(ns, receiver, **fields) -> WebhookEndpoint:
    return WebhookEndpoint.objects.create(holder=ns.holder, name="ops", url=receiver.url,
                                          secret="s3cret", **fields)


def test_webhooks_are_signed_json_and_wecom_markdown(holder_with_user, receiver, idle_worker,
                                                     wait_for):
    ns = holder_with_user
    _endpoint(ns, receiver)
    _endpoint(ns, receiver, format="wecom", language="zh-hans", min_score=0.5)
    match = ns.new_match(score=0.9)
    wait_for(lambda: len(receiver.requests) >= 2, what="both webhook POSTs")
    bodies = {}
    for headers, body in receiver.requests:
        timestamp, signature = headers["X-Tracker-Timestamp"], headers["X-Tracker-Signature"]
        assert webhooks.verify("s3cret", timestamp, body, signature)
        assert not webhooks.verify("wrong", timestamp, body, signature)
        assert not webhooks.verify("s3cret", timestamp, body + b" ", signature)
        payload = json.loads(body)
        bodies[payload.get("msgtype", "json")] = payload
    event = bodies["json"]
    assert (event["event"], event["search"], event["scan"]) == ("case.new", match.search.pk, None)
    assert (event["case"]["id"], event["case"]["pages"]) == (match.case_id, 1)
    assert event["case"]["new_pages_rewritten"] == 0
    case_url = f"https://tracker.test/crawler/case/{match.case_id}/change/"
    assert event["case"]["url"] == case_url
    content = bodies["markdown"]["markdown"]["content"]
    assert content.startswith("**新案件：《星河往事》在 example.com") and case_url in content
    wait_for(lambda: Delivery.objects.filter(search=match.search, status="sent").count() == 2,
             what="two sent deliveries")
    # a case grown by a page below the WeCom endpoint's minimum score: the JSON endpoint only
    low = ns.new_match(score=0.2)
    wait_for(lambda: len(receiver.requests) == 3, what="the third POST")
    assert json.loads(receiver.requests[2][1])["event"] == "case.grown"
    assert list(Delivery.objects.filter(search=low.search).values_list(
        "endpoint__format", flat=True)) == ["json"]


def test_a_case_of_rewritten_copies_says_so_in_the_mail_and_the_webhooks(
        holder_with_user, smtp_server, receiver, idle_worker, wait_for):
    # staff tell a rewrite (洗稿) from a copy before opening the case: the mail's line and
    # table, the JSON event and the WeCom message count the new pages that are rewritten
    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="zh-hans")
    _endpoint(ns, receiver)
    _endpoint(ns, receiver, format="wecom", language="en")
    match = ns.new_match(kind="rewritten")
    wait_for(lambda: smtp_server.messages and len(receiver.requests) >= 2,
             what="the mail and both webhook POSTs")
    case_url = f"https://tracker.test/crawler/case/{match.case_id}/change/"
    text = _text(smtp_server.messages[0])
    assert f"本次检索发现 1 个（新）；其中 1 个新网页为洗稿（改写） {case_url}" in text, text
    html = _body(next(p for p in smtp_server.messages[0].walk()
                      if p.get_content_type() == "text/html"))
    assert "其中洗稿" in html
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "alert-rewritten-case-zh-hans.html").write_text(html, encoding="utf-8")  # to look at
    bodies = {json.loads(body).get("msgtype", "json"): json.loads(body)
              for _, body in receiver.requests}
    assert bodies["json"]["case"]["new_pages_rewritten"] == 1
    assert (f"1 found by this search (new); 1 of the new pages is a rewritten copy (洗稿) "
            f"{case_url}") in bodies["markdown"]["markdown"]["content"]


def test_webhook_500_is_retried_until_it_succeeds(holder_with_user, receiver, idle_worker,
                                                  wait_for):
    ns = holder_with_user
    receiver.replies = [(500, {}), (503, {}), (200, {})]
    endpoint = _endpoint(ns, receiver)
    match = ns.new_match()
    delivery = _delivery(wait_for, "the delivery after retries", search=match.search,
                         status="sent")
    assert delivery.attempts == 3 and delivery.http_status == 200
    assert len(receiver.requests) == 3
    endpoint.refresh_from_db()
    assert endpoint.consecutive_failures == 0 and endpoint.enabled


def test_a_webhook_that_times_out_is_retried(holder_with_user, receiver, idle_worker, wait_for):
    ns = holder_with_user
    receiver.replies = [(200, {}, 3.0), (200, {})]  # TRACKER_WEBHOOK_TIMEOUT is 1 s here
    _endpoint(ns, receiver)
    match = ns.new_match()
    delivery = _delivery(wait_for, "the delivery after the timeout", search=match.search,
                         status="sent")
    assert delivery.attempts == 2 and len(receiver.requests) == 2


def test_redirect_to_a_private_address_is_refused_and_repeated_failures_disable(
        holder_with_user, receiver, smtp_server, idle_worker, wait_for):
    ns = holder_with_user
    receiver.replies = [(302, {"Location": "http://10.1.2.3/internal"})]
    endpoint = _endpoint(ns, receiver)
    first = ns.new_match()
    refused = _delivery(wait_for, "the refused delivery", search=first.search, status="refused")
    assert "10.1.2.3" in refused.last_error and "private" in refused.last_error
    assert refused.http_status == 302 and refused.attempts == 1  # not retried
    second = ns.new_match()
    _delivery(wait_for, "the second refusal", search=second.search, status="refused")
    endpoint.refresh_from_db()
    assert not endpoint.enabled and endpoint.consecutive_failures == 2  # TRACKER_WEBHOOK_MAX_FAILURES
    wait_for(lambda: smtp_server.messages, what="the notice to the holder's user")
    assert "ops" in _subject(smtp_server.messages[0])
    assert len(receiver.requests) == 2  # the redirect was never followed
    third = ns.new_match()
    assert send_search_case_alerts.delay(third.search.pk).get(timeout=60) == 0  # disabled


def test_digest_groups_by_work_and_domain_in_the_users_language_and_survives_smtp_down(
        holder_with_user, smtp_server, idle_worker, wait_for):
    from core.models import Work

    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="zh-hans", email_enabled=False)
    other = Work.objects.create(holder=ns.holder, reference="XH-2", title="月下行", kind="novel",
                                length=500, status="indexed")
    a1 = ns.new_match(domain="b.example.net")
    a2 = ns.new_match(domain="a.example.org")
    a3 = ns.new_match(domain="a.example.org", score=0.5)
    b1 = ns.new_match(domain="a.example.org", work=other)
    smtp_server.stop()
    result = send_digest.delay(ns.user.pk)
    wait_for(lambda: result.state == "RETRY" or result.ready(), what="a retried digest")
    assert not Delivery.objects.filter(kind="digest").exists()  # nothing marked while down
    smtp_server.start()
    assert result.get(timeout=60) == 4
    (mail,) = smtp_server.messages
    assert _subject(mail) == "每日摘要：您的作品有 4 个新副本"
    lines = _body(mail).splitlines()
    heads = [line for line in lines if line and not line.startswith(" ")]
    assert heads[1:3] == ["作品：星河往事（星河出版社）", "作品：月下行（星河出版社）"]
    text = "\n".join(lines)
    assert text.index("星河往事") < text.index("月下行")
    first_work = text[text.index("星河往事"):text.index("月下行")]
    assert first_work.index("a.example.org") < first_work.index("b.example.net")
    assert first_work.index(a2.url) < first_work.index(a3.url)  # higher score first
    for m in (a1, a2, a3, b1):
        assert f"https://tracker.test/crawler/match/{m.pk}/change/" in text
    assert "/alerts/unsubscribe/" in heads[-1]
    assert Delivery.objects.filter(kind="digest", status="sent").count() == 4
    assert send_digest.delay(ns.user.pk).get(timeout=60) == 0  # each match in one digest
    assert len(smtp_server.messages) == 1


def test_a_malformed_email_address_is_refused_in_the_preferences_form(holder_with_user, client):
    ns = holder_with_user
    ns.user.is_superuser = True
    ns.user.save()
    client.force_login(ns.user)
    mine = client.get("/alerts/alertpreference/mine/")
    assert mine.status_code == 302
    response = client.post(mine.url, {"email": "editor@@holder", "email_enabled": "on",
                                      "min_score": "0.5", "language": "en"},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()
    ns.user.refresh_from_db()
    assert ns.user.email == "editor@holder.test"
    response = client.post(mine.url, {"email": "new@holder.test", "min_score": "0.7",
                                      "language": "en"})
    assert response.status_code == 302
    pref = AlertPreference.objects.get(user=ns.user)
    assert (pref.email_enabled, pref.min_score, pref.user.email) == (False, 0.7, "new@holder.test")


def test_webhook_admin_is_scoped_per_holder_and_refuses_private_urls(holder_with_user, client):
    from django.contrib.auth.models import Group

    from core.models import RightsHolder
    from core.roles import HOLDER_GROUP, ensure_groups

    ns = holder_with_user
    ensure_groups()
    ns.user.groups.add(Group.objects.get(name=HOLDER_GROUP))
    other = RightsHolder.objects.create(name="Other Press")
    WebhookEndpoint.objects.create(holder=other, name="theirs", url="https://example.com/h")
    mine = WebhookEndpoint.objects.create(holder=ns.holder, name="ours", url="https://example.com/m")
    client.force_login(ns.user)
    listing = client.get("/alerts/webhookendpoint/", headers={"Accept-Language": "en"})
    assert "ours" in listing.content.decode() and "theirs" not in listing.content.decode()
    theirs = WebhookEndpoint.objects.get(name="theirs")
    assert client.get(f"/alerts/webhookendpoint/{theirs.pk}/change/").status_code == 404
    response = client.post("/alerts/webhookendpoint/add/", {
        "holder": ns.holder.pk, "name": "intranet", "url": "http://10.0.0.5/hook",
        "secret": "x", "format": "json", "language": "en", "min_score": "0", "enabled": "on"},
        headers={"Accept-Language": "en"})
    assert response.status_code == 200
    assert "This address may not be contacted: private" in response.content.decode()
    assert list(WebhookEndpoint.objects.filter(holder=ns.holder)) == [mine]


def test_a_takedown_removal_and_return_are_alerted_once_each(holder_with_user, smtp_server,
                                                             receiver, idle_worker, wait_for):
    from crawler.models import CheckOutcome
    from crawler.takedown import record_check

    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="en")
    _endpoint(ns, receiver)
    match = ns.new_match()
    wait_for(lambda: smtp_server.messages and receiver.requests, what="the new-case alerts")
    removed = record_check(match, CheckOutcome.REMOVED, 404, "", "gone")
    wait_for(lambda: len(smtp_server.messages) == 2 and len(receiver.requests) == 2,
             what="the removal alerts")
    mail = smtp_server.messages[1]
    assert _subject(mail) == "Case closed as removed: “星河往事” on copy.example.com"
    assert "HTTP status 404" in _body(mail) and "(state: removed)" in _body(mail)
    payload = json.loads(receiver.requests[1][1])
    assert payload["event"] == "match.removed"
    assert (payload["check"]["id"], payload["check"]["http_status"]) == (removed.pk, 404)
    record_check(match, CheckOutcome.REMOVED, 404, "", "still gone")  # no change: no alert
    record_check(match, CheckOutcome.PRESENT, 200, "ab" * 32, "")
    wait_for(lambda: len(smtp_server.messages) == 3, what="the reopened alert")
    assert _subject(smtp_server.messages[2]) == "Copy back: “星河往事” on copy.example.com"
    wait_for(lambda: Delivery.objects.filter(status="sent").count() == 6, what="6 sent deliveries")
    assert sorted(Delivery.objects.values_list("kind", flat=True)) == [
        "cases", "cases", "removed", "removed", "reopened", "reopened"]


def test_a_case_of_two_pages_both_removed_is_one_mail_that_says_the_case_is_closed(
        holder_with_user, smtp_server, idle_worker, wait_for):
    from crawler.models import CaseState, CheckOutcome
    from crawler.takedown import record_check

    ns = holder_with_user
    AlertPreference.objects.create(user=ns.user, language="en")
    first, second = ns.new_match(), ns.new_match()
    assert first.case_id == second.case_id
    record_check(first, CheckOutcome.REMOVED, 404, "", "gone")  # one page still up: no mail
    record_check(second, CheckOutcome.REMOVED, 410, "", "gone")
    wait_for(lambda: Delivery.objects.filter(kind="removed", channel="email", status="sent"),
             what="the case's removal mail")
    time.sleep(2)  # room for a second removal mail, were one queued

    def removal_mails():
        return [m for m in smtp_server.messages if "removed" in _subject(m)]

    [mail] = removal_mails()
    first.case.refresh_from_db()
    assert first.case.state == CaseState.REMOVED
    assert _subject(mail) == "Case closed as removed: “星河往事” on copy.example.com"
    body = _body(mail)
    assert first.url in body and second.url in body and "(state: removed)" in body
