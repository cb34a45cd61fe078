"""Every count shown beside a link equals the rows that link lists, for staff and for a holder's
user while a second holder's data is present: the scan list, a scan's page, the overview
(review figures, top sites and works, open notices, recent scans, the case funnel), the case
list's state counts, the match and case lists' filter choices and the cases alert mail.

The data: scan 1 found four pages of holder A (three of them parts of one chapter) and one
of holder B; scan 2 (a rescan) saw one of A's pages again and found one more of B; each run's
stored figure is wrong on purpose (task attempts counted twice, as after a killed worker)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

pytestmark = pytest.mark.usefixtures("platform_stores")


@pytest.fixture
def data(db, make_user):
    from types import SimpleNamespace

    from core.models import RightsHolder, Work
    from crawler import case_actions
    from crawler.cases import open_case
    from crawler.models import Match, ScanRun, TargetSite
    from dashboard.models import TakedownNotice

    a = RightsHolder.objects.create(name="星河出版社")
    b = RightsHolder.objects.create(name="晨光文化传媒")
    novel = Work.objects.create(holder=a, reference="A-1", title="西游记", length=9000,
                                status="indexed")
    news = Work.objects.create(holder=b, reference="B-1", title="人民日报", length=900,
                               status="indexed")
    site = TargetSite.objects.create(name="demo")
    scan1 = ScanRun.objects.create(site=site, status="finished", matches_found=10)
    scan2 = ScanRun.objects.create(site=site, status="finished", matches_found=3)
    counter = iter(range(1, 1000))

    def page(work, url, first, last, status="new", part_of=""):
        n = next(counter)
        host = url.split("/")[2]
        case, _ = open_case(work, host)
        return Match.objects.create(
            work=work, page_id=f"{n:024x}", version_id=f"{n:024x}", url=url, domain=host,
            part_of=part_of, score=0.9, containment_page=0.5, containment_work=0.1,
            first_scan=first, last_scan=last, review_status=status, site=site, case=case)

    chapter = "https://copy.example.com/xyj/2.html"
    page(novel, chapter, scan1, scan1, part_of=chapter)
    page(novel, "https://copy.example.com/xyj/2_2.html", scan1, scan1, part_of=chapter)
    page(novel, "https://copy.example.com/xyj/2_3.html", scan1, scan1, part_of=chapter)
    seen_again = page(novel, "https://mirror.example.net/xyj/1.html", scan1, scan2, "confirmed")
    page(news, "https://news.example.org/a/1.html", scan1, scan1)
    page(news, "https://news.example.org/a/2.html", scan2, scan2, "confirmed")
    staff = make_user("staff", staff_role=True)
    case_actions.do_confirm_case(seen_again.case, staff, "copied")
    for holder in (a, b):
        TakedownNotice.objects.create(holder=holder, domain="copy.example.com")
        TakedownNotice.objects.create(holder=holder, domain="gone.example.com",
                                      status="removed")
    return SimpleNamespace(scans=[scan1, scan2], users={
        "staff": staff, "holder_a": make_user("holder_a", holders=[a]),
        "holder_b": make_user("holder_b", holders=[b])})


def _client(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def _listed(client, href: str) -> int:
    """The rows the admin list at ``href`` shows (its result count, all pages together)."""
    response = client.get(unescape(href))
    assert response.status_code == 200, href
    return response.context["cl"].result_count


def _pairs(html: str, pattern: str) -> list[tuple[str, int]]:
    return [(href, int(n)) for href, n in re.findall(pattern, html)]


def _check(client, pairs: list[tuple[str, int]]) -> None:
    assert pairs
    shown = {href: n for href, n in pairs}
    assert shown == {href: _listed(client, href) for href in shown}


USERS = ["staff", "holder_a", "holder_b"]


def test_the_scan_list_and_each_scan_page(data):
    client = _client(data.users["staff"])  # a holder's users see the scans on the overview
    html = client.get("/crawler/scanrun/").content.decode()
    pairs = _pairs(html, r'<a href="([^"]*\?scan=\d+)">(\d+)</a>')
    assert len(pairs) == 2
    _check(client, pairs)
    for scan in data.scans:
        page = client.get(f"/crawler/scanrun/{scan.pk}/change/").content.decode()
        _check(client, _pairs(page, r'<a href="([^"]*\?scan=\d+)" data-field="matches">(\d+)</a>'))


def test_the_rows_counted_are_the_stored_ones_in_the_users_scope(data):
    from crawler.progress import listed_matches

    scan1, scan2 = data.scans
    assert [listed_matches(scan1.pk, data.users[w]) for w in USERS] == [3, 2, 1]
    assert [listed_matches(scan2.pk, data.users[w]) for w in USERS] == [2, 1, 1]


@pytest.mark.parametrize("who", USERS)
def test_the_overview(data, who):
    client = _client(data.users[who])
    html = client.get("/").content.decode()
    kpis = _pairs(html, r'<a href="([^"]+)">\s*<div class="value">(\d+)</div>')
    assert len(kpis) == 3  # awaiting review, confirmed, open notices
    tops = _pairs(html, r'<tr><td><a href="([^"]+)">[^<]*</a></td><td>(\d+)</td>')
    scans = _pairs(html, r'<a href="([^"]*\?scan=\d+)" data-field="matches">(\d+)</a>')
    funnel = _pairs(html, r'<li data-step="\w+"><a href="([^"]+)">\s*<span class="value">(\d+)')
    assert len(funnel) == 5  # found, confirmed, notice sent, escalated, removed
    for pairs in (kpis, tops, scans, funnel):
        _check(client, pairs)


@pytest.mark.parametrize("who", USERS)
def test_the_case_list_state_counts(data, who):
    client = _client(data.users[who])
    html = client.get("/crawler/case/").content.decode()
    counts = _pairs(html, r'<a(?: class="[^"]*")? href="([^"]+)"[^>]*>(?:<span class="dash-badge '
                          r'\w+">[^<]*</span>|all) <span class="dash-count">(\d+)</span>')
    assert len(counts) == 8  # all, and each state
    _check(client, counts)


@pytest.mark.parametrize("who", USERS)
@pytest.mark.parametrize("listing", ["/crawler/match/", "/crawler/case/"])
def test_the_filter_choices_of_the_match_and_case_lists(data, who, listing):
    client = _client(data.users[who])
    html = client.get(listing).content.decode()
    choices = _pairs(html, r'<a href="(\?(?:domain|work__id__exact)=[^"]+)"[^>]*>[^<(]* \((\d+)\)</a>')
    assert choices
    _check(client, [(f"{listing}{href}", n) for href, n in choices])


def test_the_cases_mail_counts_the_pages_its_case_page_lists(data):
    from crawler.models import Case
    from dashboard.alerts.case_messages import cases_mail
    from dashboard.alerts.models import Delivery

    user = data.users["holder_a"]
    user.email = "a@holder.test"
    user.save()
    scan1 = data.scans[0]
    delivery = Delivery.objects.create(kind="cases", channel="email", scan=scan1, user=user,
                                       recipient=user.email)
    mine = Case.objects.filter(work__holder__users=user)
    delivery.cases.set(mine)
    body = cases_mail(delivery, "en").body
    client = _client(user)
    for case in mine:
        shown = int(re.search(rf"on {re.escape(case.domain)}: (\d+) pages", body).group(1))
        page = client.get(f"/crawler/case/{case.pk}/change/")
        assert shown == page.context["page_total"] == len(page.context["pages"].object_list)
