"""Cases: one per (work, registered domain), opened as pages are recorded, moved by notices,
takedown checks and whitelists, each move in the audit trail; the migration of existing
matches into cases on the test PostgreSQL."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from fingerprint.engine import Match as EngineMatch
from fingerprint.engine import Passage
from lib.crawl.domains import registered_domain
from lib.crawl.pagestore import Page, PageVersion


def test_registered_domain_uses_the_public_suffix_list_offline():
    assert registered_domain("News.Example.COM.") == "example.com"
    assert registered_domain("book.sina.com.cn") == "sina.com.cn"
    assert registered_domain("a.b.github.io") == "b.github.io"  # a private suffix
    assert registered_domain("127.0.0.1") == "127.0.0.1"
    assert registered_domain("localhost") == "localhost"


@pytest.fixture
def holders(db):
    from core.models import RightsHolder, Work

    a = RightsHolder.objects.create(name="星河出版社")
    b = RightsHolder.objects.create(name="晨光文化传媒")
    text = "天地玄黄宇宙洪荒" * 200
    work_a = Work.objects.create(holder=a, reference="A-1", title="西游记", length=len(text),
                                 status="indexed")
    work_b = Work.objects.create(holder=b, reference="B-1", title="红楼梦", length=len(text),
                                 status="indexed")
    return a, b, work_a, work_b


def _record(url: str, works, scan=None, n: int = 1):
    """Record the engine finding ``works`` on the page ``url`` (page id from ``n``)."""
    from urllib.parse import urlsplit

    from crawler.matching import record_matches

    page_id, version_id = f"{n:024x}", f"{n + 1000:024x}"
    page = Page(id=page_id, canonical_url=url, domain=urlsplit(url).hostname)
    version = PageVersion(id=version_id, page_id=page_id, canonical_url=url, text="x" * 100)
    found = [EngineMatch(str(w.uid), 0.9, 0.8, 0.3, [Passage(0, 50, 10, 60)]) for w in works]
    return record_matches(page, version, scan, found)


def _trail(case):
    from core.models import AuditEvent

    return list(AuditEvent.objects.about(case).order_by("sequence")
                .values_list("old_state", "new_state"))


def test_pages_of_one_work_on_one_site_are_one_case_across_hosts_and_scans(holders):
    from crawler.models import Case, Match, ScanRun, TargetSite

    _a, _b, work_a, _ = holders
    site = TargetSite.objects.create(name="copies")
    first, second = (ScanRun.objects.create(site=site) for _ in range(2))
    for n, url in enumerate(["https://www.copy.example.com/1", "https://m.copy.example.com/2",
                             "https://copy.example.com/3"], start=1):
        _record(url, [work_a], first, n)
    _record("https://www.copy.example.com/4", [work_a], second, 4)
    _record("https://elsewhere.example.org/1", [work_a], second, 5)

    cases = {c.domain: c for c in Case.objects.all()}
    assert sorted(cases) == ["example.com", "example.org"]
    case = cases["example.com"]
    assert case.pages.count() == 4 and case.first_scan == first and case.state == "new"
    assert Match.objects.filter(case__isnull=True).count() == 0
    assert _trail(case) == [("", "new")]


def test_two_holders_on_one_page_get_two_cases_each_seen_by_its_holder_only(holders,
                                                                            django_user_model):
    from core.scoping import scope
    from crawler.models import Case

    a, b, work_a, work_b = holders
    _record("https://copy.example.com/both", [work_a, work_b])
    assert Case.objects.count() == 2
    user_a = django_user_model.objects.create_user("a")
    a.users.add(user_a)
    user_b = django_user_model.objects.create_user("b")
    b.users.add(user_b)
    assert [c.work for c in scope(Case.objects.all(), user_a, "work__holder")] == [work_a]
    assert [c.work for c in scope(Case.objects.all(), user_b, "work__holder")] == [work_b]


def test_a_case_on_a_whitelisted_domain_is_dismissed_with_that_reason(holders, django_user_model):
    from django.utils import translation

    from crawler.models import Case
    from crawler.review_actions import do_whitelist_domain

    a, _b, work_a, _ = holders
    _record("https://www.partner.example.com/1", [work_a])
    case = Case.objects.get()
    staff = django_user_model.objects.create_user("staff")
    do_whitelist_domain(a, "partner.example.com", staff, "licensed partner")
    case.refresh_from_db()
    assert case.state == "dismissed"
    with translation.override("en"):
        assert case.state_reason_words == "the domain partner.example.com is whitelisted"
    with translation.override("zh-hans"):
        assert "partner.example.com" in case.state_reason_words
        assert "whitelisted" not in case.state_reason_words
    assert _trail(case) == [("", "new"), ("new", "dismissed")]


def test_case_goes_from_new_to_removed_and_reopens_when_a_page_comes_back(holders,
                                                                          django_user_model):
    from core.errors import ActionError
    from crawler import case_actions
    from crawler.models import Case, CheckOutcome, Match
    from crawler.takedown import record_check
    from dashboard.notice_actions import do_advance_notice, do_draft_notices

    _a, _b, work_a, _ = holders
    for n in range(1, 4):
        _record(f"https://copy.example.com/{n}", [work_a], n=n)
    case = Case.objects.get()
    staff = django_user_model.objects.create_user("staff")
    with pytest.raises(ActionError):
        case_actions.do_confirm_case(case, staff, "  ")
    case_actions.do_confirm_case(case, staff, "the whole novel, chapter by chapter")
    assert set(case.pages.values_list("review_status", flat=True)) == {"confirmed"}
    with pytest.raises(ActionError):  # a confirmed case cannot be confirmed again
        case_actions.do_confirm_case(case, staff, "again")

    notice, = do_draft_notices(case.pages.all(), staff, "en")
    do_advance_notice(notice, "sent", staff)
    case.refresh_from_db()
    assert case.state == "notice_sent" and case.notice_sent_at is not None

    pages = list(case.pages.order_by("pk"))
    record_check(pages[0], CheckOutcome.PRESENT, 200, "ab" * 32, "")
    case.refresh_from_db()
    assert case.state == "still_up"
    for page in pages:
        record_check(page, CheckOutcome.REMOVED, 404, "", "HTTP 404")
    case.refresh_from_db()
    assert case.state == "removed" and case.removed_at is not None
    assert not Match.objects.filter(case=case, still_matching=True).exists()

    record_check(pages[1], CheckOutcome.PRESENT, 200, "cd" * 32, "")  # the page is back
    case.refresh_from_db()
    assert case.state == "reopened"
    assert [new for _old, new in _trail(case)] == [
        "new", "confirmed", "notice_sent", "still_up", "removed", "reopened"]


def test_a_page_found_again_on_a_removed_site_reopens_its_case(holders):
    from crawler.cases import move
    from crawler.models import Case

    _a, _b, work_a, _ = holders
    _record("https://copy.example.com/1", [work_a], n=1)
    case = Case.objects.get()
    move(case, "removed", None, "test")
    _record("https://copy.example.com/2", [work_a], n=2)  # a new page
    case.refresh_from_db()
    assert case.state == "reopened" and case.pages.count() == 2
    move(case, "removed", None, "test")
    _record("https://copy.example.com/1", [work_a], n=1)  # the first page matching again
    case.refresh_from_db()
    assert case.state == "reopened" and case.pages.count() == 2


def test_bulk_actions_act_on_what_they_can_and_say_what_they_skipped(holders, django_user_model):
    from django.utils import translation

    from crawler import case_actions
    from crawler.models import Case

    _a, _b, work_a, work_b = holders
    _record("https://one.example.com/1", [work_a], n=1)
    _record("https://two.example.net/1", [work_a, work_b], n=2)
    staff = django_user_model.objects.create_user("staff")
    dismissed = Case.objects.get(work=work_b)
    case_actions.do_dismiss_case(dismissed, staff, "a quotation")
    with translation.override("en"):
        result = case_actions.do_bulk_case("confirm", Case.objects.order_by("pk"), staff,
                                           "copies")
    assert len(result.done) == 2
    assert [(c.pk, why) for c, why in result.skipped] == [
        (dismissed.pk, "A case that is “dismissed” cannot become “confirmed”.")]


@pytest.mark.django_db(transaction=True)
def test_existing_matches_migrate_into_cases_on_postgresql():
    assert connection.vendor == "postgresql"
    executor = MigrationExecutor(connection)
    before = [("crawler", "0009_case")]
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    holder = apps.get_model("core", "RightsHolder").objects.create(name="Press A")
    work_model = apps.get_model("core", "Work")
    novel = work_model.objects.create(holder=holder, reference="n", title="西游记", length=9)
    poems = work_model.objects.create(holder=holder, reference="p", title="唐诗", length=9)
    match_model = apps.get_model("crawler", "Match")

    def page(n, work, host, **fields):
        return match_model.objects.create(
            work=work, page_id=f"{n:024x}", version_id=f"{n:024x}", url=f"https://{host}/{n}",
            domain=host, score=0.9, containment_page=0.5, containment_work=0.2, **fields)

    a = page(1, novel, "www.copy.example.com", review_status="confirmed")
    b = page(2, novel, "m.copy.example.com")
    c = page(3, poems, "copy.example.com", review_status="false_positive")
    d = page(4, novel, "gone.example.net", still_matching=False)
    apps.get_model("crawler", "TakedownCheck").objects.create(match=d, outcome="removed",
                                                              http_status=404)
    e = page(5, poems, "partner.example.org")
    apps.get_model("crawler", "WhitelistedDomain").objects.create(holder=holder,
                                                                  domain="partner.example.org")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    from crawler.models import Case, Match

    states = {(c.work.reference, c.domain): c.state for c in Case.objects.all()}
    assert states == {("n", "example.com"): "confirmed", ("p", "example.com"): "dismissed",
                      ("n", "example.net"): "removed", ("p", "example.org"): "dismissed"}
    novel_case = Case.objects.get(work__reference="n", domain="example.com")
    assert set(Match.objects.filter(case=novel_case).values_list("pk", flat=True)) == {a.pk, b.pk}
    assert Match.objects.get(pk=c.pk).case.work.reference == "p"
    assert Match.objects.get(pk=d.pk).case.removed_at is not None
    assert Match.objects.get(pk=e.pk).case.state == "dismissed"
    assert not Match.objects.filter(case__isnull=True).exists()
