"""RDAP suggestions end to end, on a real Celery worker, PostgreSQL and a loopback RDAP and
IANA-bootstrap server: the lookup asked with the site search meets a 429 with Retry-After, then
malformed JSON, retries with backoff and ends "done" with the registrar's and the host's abuse
addresses as suggestions, each with its source; an abuse address with CRLF or of 300
characters is refused with its reason while the others are kept; a lookup whose task was lost
never stays "searching". (``rdap``: the session's loopback server, tests/conftest.py.)"""

from __future__ import annotations

import time
from datetime import timedelta

from django.utils import timezone

from lib.crawl import rdap_server
from lib.crawl.rdap_server import Answer, json_answer

CRLF = "abuse@evil.example\r\nBcc: everyone@evil.example"
LONG = "a" * 283 + "@evil.example"  # 296 characters


def _case(domain: str, host: str):
    """A case on ``domain`` with one page on ``host`` (an address literal: the tests have no
    DNS, so the page stands for one whose host resolved to it)."""
    from core.models import RightsHolder, Work
    from crawler.cases import open_case
    from crawler.models import Match

    holder = RightsHolder.objects.create(name="示例出版社")
    work = Work.objects.create(holder=holder, title="西游记")
    case, _ = open_case(work, domain)
    Match.objects.create(work=work, page_id="a" * 24, version_id="a" * 24,
                         url=f"http://{host}/book/1.html", domain=host, title="第1章", score=0.9,
                         containment_page=0.8, containment_work=0.1, case=case, passages=[],
                         first_seen=timezone.now(), last_seen=timezone.now())
    return case


def _wait_done(contact, seconds: float = 90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        contact.refresh_from_db()
        if contact.rdap != "searching":
            return contact
        time.sleep(0.5)
    raise AssertionError(f"the RDAP lookup is still searching: {contact.rdap_note}")


def test_faults_are_retried_and_every_address_keeps_its_source(rdap, settled_worker):
    from core import notes
    from core.models import AuditEvent
    from crawler import contacts
    from crawler.models import ContactSuggestion

    rdap.answers["/domain/pirate.example"] = [
        Answer(429, b'{"errorCode": 429}', {"Retry-After": "1"}),
        Answer(200, b'{"objectClassName": "domain", "entities": ['),
        json_answer(rdap_server.domain_record("pirate.example", "Registrar Inc",
                                              "abuse@registrar.example"))]
    network = rdap_server.network_record("127.0.0.0/8", "Hosting Ltd", "abuse@hosting.example")
    network["entities"].append({"objectClassName": "entity", "roles": ["abuse"], "vcardArray": [
        "vcard", [["fn", {}, "text", "x"], ["email", {}, "text", CRLF],
                  ["email", {}, "text", LONG]]]})
    rdap.answers["/ip/127.0.0.1"] = [json_answer(network)]
    _case("pirate.example", "127.0.0.1")

    contact = contacts.do_search_contacts("pirate.example", None)
    contact = _wait_done(contact)

    assert contact.rdap == "done", notes.in_english(contact.rdap_note)
    assert contact.rdap_attempts == 3  # 429, malformed JSON, then the answer
    assert rdap.hits.count("/domain/pirate.example") == 3
    found = dict(ContactSuggestion.objects.filter(contact=contact).values_list("address", "source"))
    assert found == {"abuse@registrar.example": "rdap_registrar",
                     "abuse@hosting.example": "rdap_host"}
    assert {(r["address"], r["source"], r["reason"]) for r in contact.refused} == {
        (CRLF, "rdap_host", "a line break"),
        (LONG[:80], "rdap_host", "longer than 254 characters")}
    assert "2 addresses found, 2 refused" in notes.in_english(contact.rdap_note)
    trail = [notes.in_english(e.reason) for e in AuditEvent.objects.about(contact)]
    assert any("RDAP attempt 1 failed" in r and "HTTP 429" in r for r in trail)
    assert any("RDAP attempt 2 failed" in r and "not JSON" in r for r in trail)


def test_a_lookup_that_keeps_failing_ends_failed_with_the_reason(rdap, db, settings):
    """Eager run (the task's own code, its retries run at once): a server that answers 503
    every time -> asked RDAP_MAX_RETRIES + 1 times, then failed with the reason."""
    from core import notes
    from crawler import contacts, tasks
    from crawler.models import ContactSuggestion

    rdap.answers["/domain/down.example"] = [Answer(503, b"maintenance")]
    rdap.answers["/ip/127.0.0.1"] = [Answer(404, b"{}")]
    _case("down.example", "127.0.0.1")
    contact = contacts.do_search_contacts("down.example", None)

    tasks.find_rdap_contacts.apply(args=[contact.pk])

    contact.refresh_from_db()
    assert contact.rdap == "failed"
    tries = settings.RDAP_MAX_RETRIES + 1
    assert f"RDAP lookup failed after {tries} attempts" in notes.in_english(contact.rdap_note)
    assert (contact.rdap_attempts, rdap.hits.count("/domain/down.example")) == (tries, tries)
    assert "HTTP 503" in notes.in_english(contact.rdap_note)
    assert not ContactSuggestion.objects.filter(contact=contact).exists()


def test_a_lost_lookup_is_asked_again_then_failed(db, settings):
    from core import notes
    from crawler.models import SiteContact
    from crawler.rdap_contacts import sweep_lookups

    old = timezone.now() - timedelta(seconds=settings.CONTACT_SEARCH_STUCK_SECONDS + 1)
    retried = SiteContact.objects.create(domain="retried.example", rdap="searching",
                                         rdap_asked_at=old, rdap_attempts=1)
    spent = SiteContact.objects.create(domain="spent.example", rdap="searching", rdap_asked_at=old,
                                       rdap_attempts=settings.CONTACT_SEARCH_MAX_ATTEMPTS)
    assert sorted(sweep_lookups()) == sorted([retried.pk, spent.pk])
    retried.refresh_from_db()
    spent.refresh_from_db()
    assert (retried.rdap, retried.rdap_attempts) == ("searching", 2)
    assert spent.rdap == "failed"
    assert "no answer from the worker" in notes.in_english(spent.rdap_note)
