"""Discovery of candidate sites in a loopback network of three sites: the target site
(127.0.0.1) has a matched page that links to a mirror (127.0.0.2) copying the work and to a news
site (127.0.0.3) that does not; its unmatched index links to a fourth host. Discovery proposes
the mirror and only it; staff make it a target site or dismiss a candidate for good; the rights
holder whose work the mirror copies sees it, another holder does not."""

import dataclasses
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from lib.crawl.pipeline import Crawler
from tests.chapter import CHAPTER
from tests.scanning import scan

NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 6


def page(title: str, text: str, links: str = "") -> bytes:
    paras = "".join(f"<p>{p}</p>" for p in text.split("\n") if p.strip())
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{paras}"
            f"</article>{links}</body></html>").encode()


@pytest.fixture
def serve(site_on):
    """``serve(host, {path: HTML bytes}) -> base URL``: a loopback site on ``host``."""

    def start(host: str, routes: dict[str, bytes]) -> str:
        other = site_on(host)
        for path, body in routes.items():
            other.route(path, other.Reply(200, {"Content-Type": "text/html; charset=utf-8"}, body))
        return other.base

    return start


@pytest.mark.django_db(transaction=True)
def test_discovery_proposes_the_linked_mirror_only(idle_worker, site, serve, config,
                                                   platform_stores, indexed_chapter, client):
    from core.connections import get_mongo_db, get_redis
    from core.engine import get_engine
    from core.models import RightsHolder
    from core.roles import HOLDER_GROUP, ensure_groups
    from crawler.candidate_actions import do_dismiss_candidate, do_promote_candidate
    from crawler.discovery import discover
    from crawler.models import CandidateSite, Match, TargetSite

    holder, other = RightsHolder.objects.create(name="测试出版社"), RightsHolder.objects.create(name="别家")
    work = indexed_chapter(holder)
    mirror = serve("127.0.0.2", {"/xyj/1.html": page("西游记 第一回 镜像", CHAPTER[:4000])})
    news = serve("127.0.0.3", {"/news/1.html": page("本地新闻", NEWS)})
    friends = (f"<a href='{mirror}/xyj/1.html'>镜像站</a><a href='{news}/news/1.html'>新闻</a>"
               "<a href='/about.html'>关于</a>")
    site.route("/", site.html("<a href='/book/1.html'>第一回</a>"
                              "<a href='http://127.0.0.4:9/ads.html'>广告</a>"))
    site.route("/book/1.html", site.Reply(200, {"Content-Type": "text/html; charset=utf-8"},
                                          page("西游记 第一回", CHAPTER[2000:6000], friends)))
    call_command("add_site", "目标站", site.url("/"), "--delay", "0", stdout=io.StringIO())
    assert scan("目标站")["matches_new"] == 1
    assert Match.objects.get().url == site.url("/book/1.html")

    # this process's crawler may reach the other loopback addresses; the workers' may not
    crawler = Crawler(dataclasses.replace(config, allow_addresses=("127.0.0.0/29",)),
                      get_redis(), get_mongo_db())
    sampled = discover(crawler, get_engine())
    assert sorted(c.domain for c in sampled) == ["127.0.0.2", "127.0.0.3"]  # not .4: unmatched page
    status = dict(CandidateSite.objects.values_list("domain", "status"))
    assert status == {"127.0.0.2": "proposed", "127.0.0.3": "no_match"}
    found = CandidateSite.objects.get(domain="127.0.0.2")
    assert (found.link_count, found.pages_sampled, found.matches_found) == (1, 1, 1)
    assert found.linked_from == [site.url("/book/1.html")] and list(found.works.all()) == [work]
    assert CandidateSite.objects.get(domain="127.0.0.3").pages_sampled == 1

    # the rights holder whose work it copies sees the candidate, another holder does not
    ensure_groups()
    from django.contrib.auth.models import Group

    for name, owner in (("owner", holder), ("stranger", other)):
        user = get_user_model().objects.create_user(name, password="x", is_staff=True)
        user.groups.add(Group.objects.get(name=HOLDER_GROUP))
        owner.users.add(user)
    client.force_login(get_user_model().objects.get(username="owner"))
    assert "127.0.0.2" in client.get("/crawler/candidatesite/").content.decode()
    client.force_login(get_user_model().objects.get(username="stranger"))
    assert "127.0.0.2" not in client.get("/crawler/candidatesite/").content.decode()

    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    target = do_promote_candidate(found, staff)
    assert target.allowed_domains == ["127.0.0.2"] and target.start_urls[0] == mirror + "/"
    do_dismiss_candidate(CandidateSite.objects.get(domain="127.0.0.3"), staff, "新闻站，无关")
    assert discover(crawler, get_engine()) == []  # neither is proposed again
    assert dict(CandidateSite.objects.values_list("domain", "status")) == {
        "127.0.0.2": "promoted", "127.0.0.3": "dismissed"}
    assert TargetSite.objects.filter(allowed_domains=["127.0.0.2"]).count() == 1


@pytest.mark.django_db
def test_a_candidate_with_no_readable_page_is_sampled_again_then_marked_unreadable(
        config, platform_stores, settings):
    from core.connections import get_mongo_db, get_redis
    from core.engine import get_engine
    from crawler.discovery import sample
    from crawler.models import CandidateSite

    settings.DISCOVERY_SAMPLE_ATTEMPTS = 2
    crawler = Crawler(config, get_redis(), get_mongo_db())
    candidate = CandidateSite.objects.create(domain="10.0.0.1", link_count=1,
                                             sample_urls=["http://10.0.0.1/copy.html"])
    sample(candidate, crawler, get_engine())
    candidate.refresh_from_db()
    assert (candidate.status, candidate.sample_attempts) == ("new", 1)  # tried again next pass
    # the SSRF guard refused it: the note says so, not robots.txt, in the reader's language
    from django.utils import translation

    from core import notes

    english = notes.in_english(candidate.note)
    assert english.startswith("pages not read: http://10.0.0.1/copy.html: private address "
                              "refused (") and "robots" not in english
    with translation.override("zh-hans"):
        assert notes.in_words(candidate.note).startswith(
            "未能读取的网页：http://10.0.0.1/copy.html：拒绝访问内网地址（")
    sample(candidate, crawler, get_engine())
    candidate.refresh_from_db()
    assert (candidate.status, candidate.sample_attempts) == ("unreadable", 2)


@pytest.mark.django_db
def test_a_promoted_candidate_counts_links_and_pages_apart(client):
    from django.utils import translation

    from crawler.candidate_actions import do_promote_candidate
    from crawler.models import CandidateSite, TargetSite

    candidate = CandidateSite.objects.create(
        domain="localhost", status="proposed", link_count=2, linked_from=["http://a.example/1"],
        sample_urls=["http://localhost/x.html", "http://localhost/y.html"])
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(boss)
    page = client.get(f"/crawler/candidatesite/{candidate.pk}/change/",
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '["' not in page and '<a class="dash-url" href="http://localhost/y.html"' in page
    promoted = client.post("/crawler/candidatesite/", {
        "action": "promote", "_selected_action": [candidate.pk]}, follow=True,
        HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "localhost is now the target site" in promoted and "Localhost" not in promoted
    site = TargetSite.objects.get(name="localhost")  # promoted by an English-speaking user
    assert site.notes == "Found by discovery: 2 links from 1 page."
    with translation.override("zh-hans"):
        candidate = CandidateSite.objects.create(domain="b.example", status="proposed",
                                                 link_count=3, linked_from=["http://a.example/1"])
        assert do_promote_candidate(candidate, boss).notes == "由站点发现找到：来自1 个网页的3 个链接。"
