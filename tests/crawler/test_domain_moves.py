"""Target sites that move to another domain, on loopback (a "domain" here is a host name or a
127.x address, each site at its own port):

- a site on 127.0.0.1 that answers 301 to the same paths on "localhost" (which the workers'
  SSRF allow list reaches): its scan meets the redirects, the check after the scan proposes
  "localhost" as moved from it, with the redirects as evidence in the candidate list (English
  and Chinese); promoting it makes a target site with the old one's settings, schedule and
  whitelist, audited; the old site's case stays open and a scan of the new site finds the copy;
- a site that stops answering (503 only) and reappears on 127.0.0.3 with the same pages: once
  its last scans read no page, the candidate serving its pages at the same paths is proposed
  as moved from it, an unrelated candidate (127.0.0.2) is not.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import translation

from lib.crawl.pipeline import Crawler
from tests.chapter import CHAPTER
from tests.scanning import scan

NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 6
SECOND = "话说那猴王得了道，回到花果山，与众猴欢会，又往东海借兵器，闹了龙宫。" * 8


def page(title: str, text: str, links: str = "") -> bytes:
    paras = "".join(f"<p>{p}</p>" for p in text.split("\n") if p.strip())
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{paras}"
            f"</article>{links}</body></html>").encode()


def serve(on, routes: dict[str, bytes]):
    """Serve ``routes`` ({path: HTML bytes}) on TestSite ``on``; returns it."""
    for path, body in routes.items():
        on.route(path, on.Reply(200, {"Content-Type": "text/html; charset=utf-8"}, body))
    return on


def wait_for_candidate(domain: str, seconds: float = 60.0):
    """The CandidateSite of ``domain`` once the worker's check after a scan has written it."""
    from crawler.models import CandidateSite

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = CandidateSite.objects.filter(domain=domain, moved_from__isnull=False).first()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"no move to {domain} proposed within {seconds} s")


@pytest.mark.django_db(transaction=True)
def test_a_site_moved_by_301_is_proposed_and_promoted_with_its_settings(
        settled_worker, site, site_on, platform_stores, indexed_chapter, client):
    from core.models import AuditEvent, RightsHolder
    from crawler.models import Case, TargetSite, WhitelistedDomain
    from crawler.review_actions import do_whitelist_domain
    from crawler.schedule import WEEKLY, Timing, read
    from crawler.site_actions import do_save_site

    work = indexed_chapter()
    partner = RightsHolder.objects.create(name="授权合作方")
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    new = serve(site_on("localhost"), {
        "/": page("小说站", "欢迎光临", "<a href='/book/1.html'>第一回</a>"),
        "/book/1.html": page("西游记 第一回", CHAPTER[2000:6000])})
    serve(site, {"/": page("小说站", "欢迎光临", "<a href='/book/1.html'>第一回</a>"),
                 "/book/1.html": page("西游记 第一回", CHAPTER[2000:6000])})
    weekly = Timing(WEEKLY, 4, 30, 2)
    old = do_save_site(TargetSite(
        name="旧站", start_urls=[site.url("/"), site.url("/book/1.html")], path_patterns=["^/(book/)?"],
        max_depth=2, max_pages=40, delay_seconds=0.0, notes="盗版小说站"), staff, ["created"],
        timing=weekly)
    do_whitelist_domain(partner, "127.0.0.1", staff, "授权转载")
    assert scan("旧站")["matches_new"] == 1
    case = Case.objects.get(work=work)
    assert (case.domain, case.state) == ("127.0.0.1", "new")

    # the site moves: every page answers 301 to the same path on the new domain
    for path in ("/", "/book/1.html"):
        site.route(path, site.Reply(301, {"Location": new.url(path)}))
    summary = scan("旧站")
    assert summary["errors"] == {"redirect_out_of_scope": 2}
    candidate = wait_for_candidate("localhost")
    assert (candidate.status, candidate.moved_from_id) == ("proposed", old.pk)
    assert candidate.move_evidence["kind"] == "redirect"
    assert [(p["from"], p["to"], p["status"]) for p in candidate.move_evidence["pages"]] == [
        (site.url("/"), new.url("/"), 301), (site.url("/book/1.html"), new.url("/book/1.html"), 301)]
    proposed = AuditEvent.objects.get(subject="localhost", new_state="proposed")
    assert proposed.user is None
    with translation.override("en"):
        assert proposed.reason_label == "moved from 旧站"

    # the candidate list says where it moved from, and why, in the reader's language
    client.force_login(staff)
    listing = client.get("/crawler/candidatesite/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert (f"moved from 旧站: 2 permanent redirects (301), e.g. {site.url('/')} → "
            f"{new.url('/')}") in listing
    listing = client.get("/crawler/candidatesite/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"从“旧站”迁来：2 个永久重定向（301），如 {site.url('/')} → {new.url('/')}" in listing
    detail = client.get(f"/crawler/candidatesite/{candidate.pk}/change/",
                        HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"{site.url('/book/1.html')} 返回 301 → {new.url('/book/1.html')}" in detail

    # promotion carries the settings, the schedule and the whitelist over, audited
    answer = client.post("/crawler/candidatesite/", {"action": "promote",
                                                     "_selected_action": [candidate.pk]},
                         HTTP_ACCEPT_LANGUAGE="en", follow=True).content.decode()
    assert "localhost is now the target site localhost." in answer
    moved = TargetSite.objects.get(name="localhost")
    assert moved.start_urls == [new.url("/"), new.url("/book/1.html")]
    assert moved.allowed_domains == ["localhost"]
    assert (moved.path_patterns, moved.max_depth, moved.max_pages, moved.delay_seconds,
            moved.enabled, moved.needs_browser) == (["^/(book/)?"], 2, 40, 0.0, True, False)
    assert read(moved) == weekly and moved.notes.startswith("Moved from 旧站 (127.0.0.1).")
    assert "盗版小说站" in moved.notes
    assert set(WhitelistedDomain.objects.values_list("holder__name", "domain")) == {
        ("授权合作方", "127.0.0.1"), ("授权合作方", "localhost")}
    candidate.refresh_from_db()
    assert (candidate.status, candidate.target_site) == ("promoted", moved)
    promoted = AuditEvent.objects.get(subject="localhost", new_state="promoted")
    assert promoted.user == staff
    with translation.override("en"):
        assert promoted.reason_label == f"moved from 旧站: target site #{moved.pk}"
    assert AuditEvent.objects.filter(kind="site", subject="localhost", new_state="created").exists()
    assert AuditEvent.objects.filter(kind="whitelist", subject="localhost", user=staff).exists()

    # the old site and its case stay; the new site is scanned like the old one was
    old.refresh_from_db()
    assert old.enabled and old.allowed_domains == ["127.0.0.1"]
    assert Case.objects.get(domain="127.0.0.1").state == "new"
    assert scan("localhost")["matches_new"] == 1
    assert Case.objects.get(domain="localhost").work == work


@pytest.mark.django_db(transaction=True)
def test_a_site_that_stops_answering_is_found_again_on_a_candidate_serving_its_pages(
        settled_worker, site, site_on, config, platform_stores, indexed_chapter, client,
        settings):
    from core.connections import get_mongo_db, get_redis
    from core.engine import get_engine
    from crawler import domain_moves
    from crawler.discovery import discover
    from crawler.models import CandidateSite, ScanRun

    settings.MOVE_SILENT_SCANS = 2
    indexed_chapter()
    again = serve(site_on("127.0.0.3"), {
        "/": page("新小说站", "新网址"),
        "/book/1.html": page("西游记 第一回 - 新站", CHAPTER[2000:6000]),
        "/book/2.html": page("第二回", SECOND)})
    other = serve(site_on("127.0.0.2"), {
        "/news/1.html": page("本地新闻", NEWS),
        "/book/1.html": page("本地新闻 第一期", NEWS[::-1])})
    friends = (f"<a href='{again.url('/book/1.html')}'>最新网址</a>"
               f"<a href='{other.url('/news/1.html')}'>新闻</a>")
    serve(site, {"/": page("小说站", "欢迎", "<a href='/book/1.html'>1</a><a href='/book/2.html'>2</a>"),
                 "/book/1.html": page("西游记 第一回 - 旧站", CHAPTER[2000:6000], friends),
                 "/book/2.html": page("第二回", SECOND)})
    call_command("add_site", "旧站", site.url("/"), "--delay", "0")
    assert scan("旧站")["matches_new"] == 1
    # this process's crawler may reach the other loopback addresses; the workers' may not
    crawler = Crawler(dataclasses.replace(config, allow_addresses=("127.0.0.0/29",)),
                      get_redis(), get_mongo_db())
    discover(crawler, get_engine())
    assert set(CandidateSite.objects.values_list("domain", flat=True)) == {"127.0.0.2", "127.0.0.3"}
    assert not CandidateSite.objects.filter(moved_from__isnull=False).exists()

    # the site stops answering: one scan that reads nothing is not enough
    for path in ("/", "/book/1.html", "/book/2.html", "/robots.txt"):
        site.route(path, site.Reply(503, {"Content-Type": "text/html"}, b"down"))
    assert scan("旧站")["pages_fetched"] == 0
    assert domain_moves.check_scan(ScanRun.objects.first(), crawler) == []
    assert scan("旧站")["pages_fetched"] == 0
    found = domain_moves.check_scan(ScanRun.objects.first(), crawler)
    assert [c.domain for c in found] == ["127.0.0.3"]
    moved = CandidateSite.objects.get(domain="127.0.0.3")
    assert moved.status == "proposed" and moved.moved_from.name == "旧站"
    assert sorted((p["old"], p["new"], p["same"]) for p in moved.move_evidence["pages"]) == [
        (site.url("/book/1.html"), again.url("/book/1.html"), "text"),
        (site.url("/book/2.html"), again.url("/book/2.html"), "title")]
    assert CandidateSite.objects.get(domain="127.0.0.2").moved_from is None

    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(boss)
    listing = client.get("/crawler/candidatesite/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "moved from 旧站: 2 of 2 pages the same; its last 2 scans read no page" in listing
    listing = client.get("/crawler/candidatesite/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "从“旧站”迁来：最近 2 次扫描未读到网页，2 个网页中有 2 个相同" in listing
    detail = client.get(f"/crawler/candidatesite/{moved.pk}/change/",
                        HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert (f"{site.url('/book/2.html')} = {again.url('/book/2.html')}: same title "
            "(100% of the text shared)") in detail


def test_text_similarity_counts_shared_shingles():
    from crawler.domain_moves import text_similarity

    assert text_similarity(CHAPTER[:3000], CHAPTER[:3000]) == 1.0
    assert text_similarity(CHAPTER[:3000], " ".join(CHAPTER[:3000])) == 1.0  # spacing ignored
    assert 0.8 < text_similarity(CHAPTER[:3000], CHAPTER[:3000] + NEWS) < 1.0
    assert text_similarity(CHAPTER[:3000], NEWS) < 0.05
    assert text_similarity("", NEWS) == 0.0
