"""Takedown checks and site discovery asked for now by staff (not only by a superuser through
the periodic-task pages): "Check now" on a notice, "Check takedowns now" and "Scan now" on a
site's page, "Discover now" on the candidate list. Each is an audited action whose task a real
worker runs; the pages are shown in real Chromium in both languages at 1366 px."""


import pytest

from core.models import AuditEvent
from crawler.models import TakedownCheck
from dashboard.notice_actions import do_advance_notice, do_draft_notices
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT_SECONDS = 60
CHECK_NOW = {"zh-hans": "立即核查", "en": "Check now"}
SITE_CHECK = {"zh-hans": "立即核查删除情况", "en": "Check takedowns now"}
SCAN_NOW = {"zh-hans": "立即扫描", "en": "Scan now"}
DISCOVER = {"zh-hans": "立即发现", "en": "Discover now"}
REQUESTED = {"zh-hans": "已请求核查", "en": "check requested"}


def _sent_notice(scenario):
    from crawler.review_actions import do_review_match

    match = scenario.matches[0]
    do_review_match(match, "confirmed", "copied chapter", scenario.users.staff)
    [notice] = do_draft_notices([match], scenario.users.staff)
    do_advance_notice(notice, "sent", scenario.users.staff)
    return notice, match


def _wait_for_checks(match, count: int) -> None:
    wait_for(lambda: TakedownCheck.objects.filter(match=match).count() >= count,
             TIMEOUT_SECONDS, "the worker's takedown check")


def test_staff_check_a_notice_and_a_site_now_through_the_worker(scenario, client,
                                                               settled_worker):
    notice, match = _sent_notice(scenario)
    client.force_login(scenario.users.staff)  # platform staff, not a superuser
    answer = client.post(f"/dashboard/takedownnotice/{notice.pk}/check/")
    assert answer.status_code == 302
    event = AuditEvent.objects.about(notice).order_by("sequence").last()
    assert (event.username, event.old_state, event.new_state) == ("staff", "sent",
                                                                  "check requested")
    _wait_for_checks(match, 1)  # the worker fetched the page again and recorded what it found

    site = match.site
    assert client.post(f"/crawler/targetsite/{site.pk}/check/").status_code == 302
    event = AuditEvent.objects.about(site).order_by("sequence").last()
    assert (event.username, event.new_state) == ("staff", "check requested")
    _wait_for_checks(match, 2)

    holder = scenario.users.holder_a
    client.force_login(holder)
    assert client.post(f"/crawler/targetsite/{site.pk}/check/").status_code in (403, 404)
    assert client.get(f"/dashboard/takedownnotice/{notice.pk}/check/").status_code == 403


def test_a_drafted_notice_and_a_site_without_confirmed_matches_are_not_checked(scenario, client):
    from crawler.models import TargetSite
    from crawler.review_actions import do_review_match

    do_review_match(scenario.matches[1], "confirmed", "copied", scenario.users.staff)
    [drafted] = do_draft_notices([scenario.matches[1]], scenario.users.staff)
    empty = TargetSite.objects.create(name="empty", start_urls=["https://empty.example/"])
    client.force_login(scenario.users.staff)
    answer = client.post(f"/crawler/targetsite/{empty.pk}/check/", follow=True,
                         HTTP_ACCEPT_LANGUAGE="en")
    assert "has no confirmed match to check" in answer.content.decode()
    answer = client.post(f"/dashboard/takedownnotice/{drafted.pk}/check/", follow=True,
                         HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "通知尚为草稿" in answer.content.decode()
    assert not AuditEvent.objects.about(empty).exists()
    assert not AuditEvent.objects.about(drafted).filter(new_state="check requested").exists()


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_check_scan_and_discover_now_buttons(scenario, open_page, browser_login, screenshot,
                                             language):
    notice, match = _sent_notice(scenario)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")

    page.goto(f"/dashboard/takedownnotice/{notice.pk}/change/")
    page.get_by_role("button", name=CHECK_NOW[language], exact=True).click()
    page.wait_for_load_state("networkidle")
    assert page.locator(".messagelist .success").count() == 1
    assert REQUESTED[language] in page.locator(".dash-trail").inner_text()
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"notice-check-now-{language}-1366")

    page.goto(f"/crawler/targetsite/{match.site_id}/change/")
    assert page.locator("#dash-site-scan").inner_text().lower() == SCAN_NOW[language].lower()
    page.locator("#dash-site-check").click()
    page.wait_for_load_state("networkidle")
    assert "1" in page.locator(".messagelist").inner_text()
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"site-check-now-{language}-1366")

    page.goto("/crawler/candidatesite/")
    page.get_by_role("button", name=DISCOVER[language]).click()
    page.wait_for_load_state("networkidle")
    assert page.locator(".messagelist .success").count() == 1
    assert AuditEvent.objects.filter(new_state="discovery requested", username="staff").exists()
    screenshot(page, f"candidate-discover-now-{language}-1366")
