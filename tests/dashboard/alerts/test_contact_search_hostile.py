"""The contact search on a hostile site: a 300-character ``mailto:`` (longer than any address
SMTP carries and than the suggestion's column) and other junk (an address Django's EmailValidator refuses) are skipped, the valid addresses
of the same pages are stored, and the search ends "done" at once (run by the task itself, on
the real crawler, PostgreSQL and Redis), so a new one can be asked for."""

from __future__ import annotations

import pytest
from django.utils import timezone

LONG = "a" * 276 + "@evil.example.com"  # 293 characters, 300 with "mailto:"
BAD_LABEL = "ok@" + "d" * 70 + ".example"  # short, but a DNS label of 70 characters


@pytest.fixture
def hostile_site(copying_site):
    copying_site.home_extra = (f'<a href="mailto:{LONG}">x</a> <a href="/contact.html">联系我们</a>'
                               f'<a href="mailto:{BAD_LABEL}">y</a>'
                               '<a href="mailto:editor@haoshu.example">编辑部</a>')
    copying_site.files["/contact.html"] = (
        "text/html; charset=utf-8",
        f"<html><body><p>写信给 {'b' * 70}@evil.example.com 或 legal@haoshu.example。</p>\n"
        f'<a href="mailto:{LONG},ok@haoshu.example">all</a></body></html>')
    return copying_site


def test_a_too_long_mailto_is_skipped_and_the_search_ends(holder_with_user, hostile_site,
                                                          platform_stores):
    from crawler import contacts, tasks
    from crawler.cases import open_case
    from crawler.models import ContactSuggestion, Match, SiteContact

    assert len("mailto:" + LONG) == 300
    work = holder_with_user.work
    case, _ = open_case(work, "127.0.0.1")
    Match.objects.create(work=work, page_id="a" * 24, version_id="a" * 24,
                         url=hostile_site.url + "/book/1.html", domain="127.0.0.1", title="第1章",
                         score=0.9, containment_page=0.8, containment_work=0.1, case=case,
                         passages=[], first_seen=timezone.now(), last_seen=timezone.now())
    contact = contacts.do_search_contacts("127.0.0.1", None)

    tasks.find_contacts.apply(args=[contact.pk]).get()

    contact.refresh_from_db()
    assert contact.search == "done", contact.search_note
    assert set(ContactSuggestion.objects.values_list("address", flat=True)) == {
        "editor@haoshu.example", "legal@haoshu.example", "ok@haoshu.example"}
    contacts.do_search_contacts("127.0.0.1", None)  # not refused: the last one ended
    assert SiteContact.objects.get(pk=contact.pk).search == "searching"


def test_the_library_refuses_addresses_longer_than_smtp_allows():
    from lib.crawl.contacts import mailto_addresses, normal_address, written_addresses

    assert normal_address("mailto:" + LONG) is None
    assert normal_address("b" * 65 + "@x.example") is None  # local part over 64
    assert normal_address("b" * 64 + "@x.example") == "b" * 64 + "@x.example"
    assert mailto_addresses(f'<a href="mailto:{LONG},ok@x.example">m</a>') == ["ok@x.example"]
    assert written_addresses(f"<p>{'c' * 300}@x.example ok@x.example</p>") == ["ok@x.example"]
