"""Takedown verification through a real Celery worker: a copied page on a
loopback site is crawled and matched, a notice citing it is sent; the page then answers 404 and
the scheduled check (dashboard.verify_takedowns) marks the match removed and moves the notice to
"removed" with the evidence; the page restored, the next check reopens the match; a regular scan
meeting the URL gone again records the removal too."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone, translation

from core import notes
from core.models import AuditEvent, RightsHolder, Work
from crawler import review_actions, takedown
from crawler.models import CheckOutcome, Match, TakedownCheck
from dashboard import tasks as dashboard_tasks
from dashboard.notice_actions import do_advance_notice, do_draft_notices
from tests.chapter import CHAPTER
from tests.scanning import scan

pytestmark = pytest.mark.django_db(transaction=True)
COPY = "<html><head><title>西游记 第一回</title></head><body><article>{}</article></body></html>".format(
    "".join(f"<p>{p}</p>" for p in CHAPTER[:3000].split("\n") if p.strip()))
OTHER = "<html><body><article><p>{}</p></article></body></html>".format(
    "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8)


def test_takedown_removed_then_restored(idle_worker, site, indexed_chapter):
    indexed_chapter()
    page = [site.html(COPY)]
    site.route("/", site.html('<a href="/copy.html">copy</a>'))
    site.route("/copy.html", lambda h: page[0])
    out = io.StringIO()
    call_command("add_site", "转载站", site.url("/"), "--delay", "0", stdout=out)
    site_id = int(out.getvalue())
    assert scan(site_id)["matches_new"] == 1
    match = Match.objects.get()
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    review_actions.do_review_match(match, "confirmed", "reprint", boss)
    [notice] = do_draft_notices([match], boss)
    do_advance_notice(notice, "sent", boss)

    page[0] = site.Reply(404, {"Content-Type": "text/html"}, b"<html>gone</html>")
    result = dashboard_tasks.verify_takedowns.delay().get(timeout=120)
    assert result == {"checked": 1, "notices_removed": [notice.pk]}
    match.refresh_from_db(), notice.refresh_from_db()
    assert not match.still_matching and notice.status == "removed" and notice.removed_at
    check = TakedownCheck.objects.get(match=match)
    assert (check.outcome, check.http_status, check.scan) == ("removed", 404, None)
    moved = AuditEvent.objects.about(notice).order_by("sequence").last()
    assert moved.new_state == "removed" and "HTTP 404" in moved.reason and match.url in moved.reason
    assert AuditEvent.objects.about(match).filter(new_state="removed").exists()

    page[0] = site.html(COPY)  # the copy comes back
    dashboard_tasks.verify_takedowns.delay().get(timeout=120)
    match.refresh_from_db()
    assert match.still_matching
    back = TakedownCheck.objects.filter(match=match).first()
    assert (back.outcome, back.http_status) == (CheckOutcome.PRESENT, 200) and back.text_sha256
    assert AuditEvent.objects.about(match).filter(new_state="still matching").exists()

    page[0] = site.html(OTHER)  # rewritten: no passage of the work left
    dashboard_tasks.verify_takedowns.delay().get(timeout=120)
    match.refresh_from_db()
    assert not match.still_matching
    gone = TakedownCheck.objects.filter(match=match).first()
    assert notes.in_english(gone.note) == "the page no longer contains the matched passages"
    with translation.override("zh-hans"):  # read in the reader's language
        assert notes.in_words(gone.note) == "网页已不再包含匹配的段落"
        reason = AuditEvent.objects.about(match).order_by("-sequence").first().reason_label
        assert reason.startswith(f"删除核查 #{gone.pk}，") and "网页已不再包含匹配的段落" in reason

    page[0] = site.html(COPY)
    dashboard_tasks.verify_takedowns.delay().get(timeout=120)
    match.refresh_from_db()
    assert match.still_matching
    page[0] = site.Reply(410, {"Content-Type": "text/html"}, b"")  # a regular scan meets it gone
    summary = scan(site_id)
    match.refresh_from_db()
    assert not match.still_matching
    by_scan = TakedownCheck.objects.filter(match=match).first()
    assert (by_scan.outcome, by_scan.http_status, by_scan.scan_id) == ("removed", 410, summary["scan"])
    page[0] = site.html(COPY)  # back with the same text: the next scan reopens it
    summary = scan(site_id)
    match.refresh_from_db()
    assert match.still_matching
    back = TakedownCheck.objects.filter(match=match).first()
    assert (back.outcome, back.scan_id) == ("present", summary["scan"])


def test_a_change_is_signalled_after_commit(platform_stores, client):
    holder = RightsHolder.objects.create(name="信号出版社")
    work = Work.objects.create(holder=holder, reference="s", title="s", length=1, status="indexed")
    match = Match.objects.create(work=work, page_id="p" * 24, version_id="v" * 24,
                                 url="http://copies.example/a.html", domain="copies.example",
                                 score=0.9, containment_page=0.9, containment_work=0.1)
    seen = []

    def receiver(sender, match, check, change, **kwargs):
        seen.append((match.pk, check.outcome, change, match.still_matching))

    takedown.takedown_changed.connect(receiver)
    try:
        takedown.record_check(match, CheckOutcome.UNREACHABLE, None, "", "timeout")
        takedown.record_check(match, CheckOutcome.REMOVED, 404, "", "HTTP 404")
        takedown.record_check(match, CheckOutcome.REMOVED, 404, "", "HTTP 404")
        takedown.record_check(match, CheckOutcome.CHANGED, 200, "ab" * 32, "")
    finally:
        takedown.takedown_changed.disconnect(receiver)
    assert seen == [(match.pk, "removed", "removed", False), (match.pk, "changed", "reopened", True)]
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "x"))
    listing = client.get("/crawler/takedowncheck/", HTTP_ACCEPT_LANGUAGE="en")
    html = listing.content.decode()
    assert listing.status_code == 200
    assert html.count('<td class="field-outcome">changed but still copying</td>') == 1  # the row
    assert '<a href="?outcome__exact=changed">changed but still copying</a>' in html  # filter
    assert client.get("/crawler/rematchjob/").status_code == 200


def test_a_copy_back_reopens_its_removed_notice_and_last_seen_keeps_the_last_sighting(
        settled_worker, platform_stores):  # the worker idle before and after
    from datetime import timedelta

    holder = RightsHolder.objects.create(name="回归出版社")
    work = Work.objects.create(holder=holder, reference="b", title="b", length=1, status="indexed")
    seen_at = timezone.now() - timedelta(days=3)
    match = Match.objects.create(work=work, page_id="p" * 24, version_id="v" * 24,
                                 url="http://copies.example/back.html", domain="copies.example",
                                 score=0.9, containment_page=0.9, containment_work=0.1,
                                 review_status="confirmed", last_seen=seen_at)
    boss = get_user_model().objects.create_superuser("boss2", "b2@example.com", "x")
    [notice] = do_draft_notices([match], boss)
    do_advance_notice(notice, "sent", boss)

    takedown.record_check(match, CheckOutcome.REMOVED, 404, "", "HTTP 404")
    do_advance_notice(notice, "removed", None)
    match.refresh_from_db()
    assert not match.still_matching and match.last_seen == seen_at  # the check saw no copy

    back = takedown.record_check(match, CheckOutcome.PRESENT, 200, "ab" * 32, "")
    match.refresh_from_db(), notice.refresh_from_db()
    assert match.still_matching and match.last_seen >= back.checked_at - timedelta(seconds=1)
    assert notice.status == "sent" and notice.removed_at is None
    event = AuditEvent.objects.about(notice).order_by("sequence").last()
    assert (event.old_state, event.new_state) == ("removed", "sent")
    with translation.override("zh-hans"):
        assert match.url in event.reason_label and "删除核查" in event.reason_label


def test_takedown_trail_reads_in_the_readers_language_and_time_zone(settled_worker, site,
                                                                     platform_stores):
    import re
    import zoneinfo

    holder = RightsHolder.objects.create(name="译文出版社")
    work = Work.objects.create(holder=holder, reference="t", title="t", length=1, status="indexed")
    site.route("/gone.html", lambda h: site.Reply(404, {"Content-Type": "text/html"}, b"gone"))
    match = Match.objects.create(work=work, page_id="p" * 24, version_id="v" * 24,
                                 url=site.url("/gone.html"), domain="127.0.0.1", score=0.9,
                                 containment_page=0.9, containment_work=0.1,
                                 review_status="confirmed")
    boss = get_user_model().objects.create_superuser("boss3", "b3@example.com", "x")
    with translation.override("en"):  # the sender works in English; the reader in Chinese
        [notice] = do_draft_notices([match], boss)
        do_advance_notice(notice, "sent", boss, note="emailed")
    assert dashboard_tasks.check_notice(notice.pk)["notices_removed"] == [notice.pk]
    check = TakedownCheck.objects.get(match=match)
    local = timezone.localtime(check.checked_at, zoneinfo.ZoneInfo("Asia/Shanghai"))
    events = [*AuditEvent.objects.about(notice), *AuditEvent.objects.about(match)]
    with translation.override("zh-hans"), timezone.override("Asia/Shanghai"):
        reasons = " | ".join(e.reason_label for e in events)
    assert "发送的文字 SHA-256" in reasons and "已核实删除" in reasons and "已删除" in reasons
    assert f"{local:%Y-%m-%d %H:%M} +0800" in reasons
    english = re.findall(r"\b(?:present|removed|text sent|UTC|check)\b", reasons)
    assert not english, reasons
