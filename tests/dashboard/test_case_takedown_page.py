"""The takedown part of the case page in Chromium, in both languages at 1366 and 390 px: a site
without a contact is listed as needing one, the addresses a search found are confirmed by staff
before the send form appears, and a sent notice shows its e-mail with the server's answer and
Message-ID. (Real SMTP, retries and refusals: tests/dashboard/alerts/test_takedown_mail.py.)"""

from __future__ import annotations

import threading

import pytest

LABELS = {
    "en": {"missing": "has no takedown contact", "use": "Use this address", "sent": "sent",
           "state": "notice sent"},
    "zh-hans": {"missing": "还没有删除通知联系人", "use": "使用此地址", "sent": "已发送",
                "state": "已发通知"},
}


def _fits(page, width: int) -> None:
    if width > 1000:  # at phone width the admin's own tables may scroll by a few pixels
        scroll = page.evaluate("document.scrollingElement.scrollWidth")
        assert scroll <= width, f"the case page is {scroll} px wide at {width} px"
    for selector in ("#dash-case-contact", "#dash-case-send"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_contact_confirmed_then_notice_sent_from_the_case_page(
        scenario_cases, scenario, open_page, browser_login, screenshot, language, settings):
    from crawler import case_actions, contacts
    from crawler.models import ContactSource, SiteContact
    from dashboard import tasks
    from dashboard.models import NoticeMail

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    words = LABELS[language]
    case = scenario_cases["novel"]
    case_actions.do_confirm_case(case, scenario.users.staff, "copies chapter 2")
    contact = SiteContact.objects.get(domain=case.domain)
    contacts.do_record_contact_search(contact.pk, [  # as the worker's search records them
        contacts.Found("security@example.com", ContactSource.SECURITY_TXT,
                       "https://copy.example.com/.well-known/security.txt"),
        contacts.Found("legal@example.com", ContactSource.CONTACT_PAGE,
                       "https://copy.example.com/contact.html")], 4)

    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto("/crawler/case/")
    link = page.locator("#dash-contacts-missing a")
    assert link.count() == 1
    with page.expect_navigation():
        link.click()
    assert case.domain in page.locator("#result_list").inner_text()
    screenshot(page, f"takedown-contacts-needed-{language}-1366")

    page.goto(f"/crawler/case/{case.pk}/change/")
    assert words["missing"] in page.locator("#dash-contact-missing").inner_text()
    assert page.locator("#dash-send-form").count() == 0  # nothing sent before confirmation
    assert page.locator("#dash-contact-suggestions tbody tr").count() == 2
    _fits(page, 1366)
    screenshot(page, f"case-takedown-suggestions-{language}-1366")
    with page.expect_navigation():
        page.locator("#dash-contact-suggestions tr", has_text="legal@example.com").locator(
            "button", has_text=words["use"]).click()
    assert page.locator("#dash-contact-address").inner_text() == "legal@example.com"

    page.select_option("#id_send_language", language)
    with page.expect_navigation():
        page.click("#dash-send-notice")
    row = page.locator("#dash-case-mails tbody tr")
    assert row.count() == 1 and "legal@example.com" in row.inner_text()
    assert page.locator("#dash-send-form").count() == 0  # one mail at a time

    mail = NoticeMail.objects.get()
    assert (mail.recipient, mail.notice.language) == ("legal@example.com", language)
    # the worker's task, in a thread of this process (Playwright holds this thread's event
    # loop); a session worker may try it too, its SMTP elsewhere: the first success stands
    failures = []
    worker = threading.Thread(target=lambda: failures.extend(
        [r.traceback] if (r := tasks.send_notice_mail.apply(args=[mail.pk])).failed() else []))
    worker.start()
    worker.join()
    assert failures == []
    page.reload()
    row = page.locator("#dash-case-mails tbody tr")
    mail.refresh_from_db()
    assert words["sent"] in row.inner_text() and mail.message_id in row.inner_text()
    assert words["state"] in page.locator("#dash-case-state").inner_text()
    _fits(page, 1366)
    screenshot(page, f"case-takedown-sent-{language}-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, f"case-takedown-sent-{language}-390")
    _fits(page, 390)


def test_holder_sees_the_contact_but_cannot_change_it(scenario_cases, scenario, client):
    from crawler import contacts

    case = scenario_cases["novel"]
    contacts.do_set_contact(case.domain, "legal@example.com", scenario.users.staff)
    client.force_login(scenario.users.holder_a)
    page = client.get(f"/crawler/case/{case.pk}/change/").content.decode()
    assert "legal@example.com" in page and 'id="dash-contact-form"' not in page
    response = client.post(f"/crawler/case/{case.pk}/change/",
                           {"do": "set_contact", "address": "evil@example.com"})
    assert response.status_code in (302, 403)
    assert contacts.contact_of(case.domain).address == "legal@example.com"


def test_a_removal_closes_the_case_with_its_proof_and_the_recipient_link_opens_its_page(
        scenario_cases, scenario, client, settings):
    from django.core import signing
    from django.core.files.base import ContentFile
    from django.urls import reverse

    from crawler import takedown
    from crawler.evidence.models import Capture
    case, match = scenario_cases["novel"], scenario.matches[0]
    check = takedown.record_check(match, "removed", 404, "", "HTTP 404")
    case.refresh_from_db()
    assert case.state == "removed" and case.removed_at
    capture = Capture(match=match, kind="removal", takedown_check=check, state="done",
                      version_id=match.version_id, url=match.url, bundle_sha256="ab" * 32)
    capture.bundle.save("removal.wacz", ContentFile(b"PK\x03\x04 removal bundle"))
    client.force_login(scenario.users.staff)
    page = client.get(f"/crawler/case/{case.pk}/change/").content.decode()
    proof = reverse("admin:crawler_match_bundle", args=[match.pk, capture.pk])
    assert proof in page
    assert b"removal bundle" in b"".join(client.get(proof).streaming_content)

    client.logout()  # the notice's recipient has no account: a link mailed with the notice
    token = signing.dumps({"c": capture.pk}, salt="dashboard.notice-bundle")
    answer = client.get(f"/evidence/bundle/{token}/")
    assert answer.status_code == 200 and "ab" * 32 in answer.content.decode()  # its page
    bundle = client.get(f"/evidence/notice/{token}/bundle-{capture.pk}.wacz")
    assert bundle["X-Evidence-SHA256"] == "ab" * 32
    assert b"removal bundle" in b"".join(bundle.streaming_content)
    assert client.get(f"/evidence/bundle/{token[:-2]}xx/").status_code == 404  # altered



def test_the_target_site_form_shows_its_domains_contact(scenario_cases, scenario, client):
    from crawler import contacts
    from crawler.models import SiteContact, TargetSite

    contacts.do_set_contact("copy.example.com", "legal@example.com", scenario.users.staff)
    site = TargetSite.objects.create(name="copy", start_urls=["https://www.copy.example.com/"])
    client.force_login(scenario.users.staff)
    page = client.get(f"/crawler/targetsite/{site.pk}/change/").content.decode()
    contact = SiteContact.objects.get(domain="example.com")
    assert f'href="/crawler/sitecontact/{contact.pk}/change/">example.com</a>: legal@example.com' \
        in page


ESCALATION_LABELS = {
    "en": {"waiting": "escalated by itself from", "escalation": "to the hosting provider",
           "send": "Send it to abuse@host.example", "queued": "queued for abuse@host.example",
           "funnel": "escalated"},
    "zh-hans": {"waiting": "将自", "escalation": "致托管服务商", "send": "发送至 abuse@host.example",
                "queued": "abuse@host.example", "funnel": "已升级"},
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_ignored_notice_is_escalated_to_the_host_from_the_case_page(
        scenario_cases, scenario, open_page, browser_login, screenshot, language):
    from datetime import timedelta

    from django.utils import timezone

    from crawler import case_actions, contacts, rdap_contacts
    from crawler.models import ContactSource, SiteContact
    from dashboard.models import NoticeMail, TakedownNotice
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    words = ESCALATION_LABELS[language]
    case = scenario_cases["novel"]
    staff = scenario.users.staff
    case_actions.do_confirm_case(case, staff, "copies chapter 2")
    rdap_contacts.do_record_rdap_lookup(SiteContact.objects.get(domain=case.domain).pk, [
        contacts.Found("abuse@host.example", ContactSource.RDAP_HOST, "rdap://ip/203.0.113.7")])
    [first] = do_draft_notices(case.pages.all(), staff, language, "legal@example.com")
    do_advance_notice(first, "sent", staff)
    TakedownNotice.objects.filter(pk=first.pk).update(sent_at=timezone.now() - timedelta(days=20))

    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/case/{case.pk}/change/")
    card = page.locator("#dash-case-escalation")
    assert words["waiting"] in card.inner_text()
    with page.expect_navigation():
        page.click(f"#dash-escalate-{first.pk}")
    escalation = TakedownNotice.objects.get(escalation_of=first)
    assert words["escalation"] in card.inner_text() and "abuse@host.example" in card.inner_text()
    assert page.locator(f"#dash-escalate-{first.pk}").count() == 0  # escalated once
    assert "escalated" in page.locator("#dash-case-timeline").inner_text() or \
        words["funnel"] in page.locator("#dash-case-timeline").inner_text()
    _fits(page, 1366)
    screenshot(page, f"case-escalation-drafted-{language}-1366")
    button = page.locator(f"#dash-send-escalation-{escalation.pk}")
    assert button.inner_text() == words["send"]
    with page.expect_navigation():
        button.click()
    assert words["queued"] in page.locator(".messagelist").inner_text()
    assert NoticeMail.objects.get(notice=escalation).recipient == "abuse@host.example"
    assert page.locator(f"#dash-send-escalation-{escalation.pk}").count() == 0  # on its way
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, f"case-escalation-sent-{language}-390")
    _fits(page, 390)

    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/")
    step = page.locator('#dash-case-funnel li[data-step="escalated"]')
    assert step.locator(".value").inner_text() == "1" and words["funnel"] in step.inner_text()
    screenshot(page, f"overview-funnel-escalated-{language}-1366")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_notices_of_many_cases_sent_at_once_after_saying_what_goes_where(
        scenario_cases, scenario, open_page, browser_login, screenshot, language):
    from crawler import case_actions, contacts
    from dashboard.models import NoticeMail

    staff = scenario.users.staff
    ready, no_contact = scenario_cases["novel"], scenario_cases["big"]
    for case in (ready, no_contact):
        case_actions.do_confirm_case(case, staff, "copies")
    contacts.do_set_contact(ready.domain, "legal@example.com", staff)

    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto("/crawler/case/?state__exact=confirmed")
    for case in (ready, no_contact):
        page.check(f'input[name="_selected_action"][value="{case.pk}"]')
    page.select_option('select[name="action"]', "send_case_notices")
    with page.expect_navigation():
        page.click('button[name="index"]')
    plan = page.locator("#dash-send-plan")
    assert "legal@example.com" in plan.locator(f'tr[data-case="{ready.pk}"]').inner_text()
    skipped = plan.locator(f'tr[data-case="{no_contact.pk}"]').inner_text()
    assert no_contact.domain in skipped and "legal@example.com" not in skipped
    assert NoticeMail.objects.count() == 0  # nothing sent before the confirmation
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1366
    screenshot(page, f"case-bulk-send-plan-{language}-1366")
    page.select_option('#dash-action-form select[name="language"]', language)
    with page.expect_navigation():
        page.click('#dash-action-form input[type="submit"]')
    [mail] = NoticeMail.objects.all()
    assert (mail.recipient, mail.notice.language) == ("legal@example.com", language)
    messages = page.locator(".messagelist").inner_text()
    assert f"#{no_contact.pk}" in messages and no_contact.domain in messages
    screenshot(page, f"case-bulk-send-done-{language}-1366")
