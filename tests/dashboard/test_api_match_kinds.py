"""The REST API says what kind of match each row is (a copy, or a rewritten copy, 洗稿) and,
for a work registered inside another (a chapter registered alone and inside its whole novel),
which registered works hold it and which it holds: in the match list, the match detail and a
case's pages, over real HTTP against the live server."""

from __future__ import annotations

import pytest

from .test_api import api  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def test_a_copied_chapter_and_its_novel_are_two_matches_that_name_each_other(scenario, api):  # noqa: F811
    from core.connections import get_mongo_db
    from core.engine import get_engine
    from core.models import Work
    from crawler.cases import open_case
    from crawler.matching import match_version
    from crawler.models import Match
    from lib.crawl.pagestore import PageStore

    from .conftest import store_page

    second = scenario.novel.sections[1]
    chapter_text = scenario.novel_text[second["start"]:second["end"]]
    chapter = Work.objects.create(holder=scenario.a, reference="XYJ-002", title="西游记 第二回",
                                  kind="novel", length=len(chapter_text), status="indexed")
    engine = get_engine()
    engine.add_work(chapter.engine_id, chapter_text)
    url = "https://another-copy.example.com/xyj/2.html"
    page_id, version_id = store_page(url, "小说频道\n\n" + chapter_text + "\n\n下一章", "第二回")
    store = PageStore(get_mongo_db())
    match_version(engine, store.page(page_id), store.version(version_id), None)
    rows = {m.work_id: m for m in Match.objects.filter(page_id=page_id)}
    assert set(rows) == {chapter.pk, scenario.novel.pk}

    client = api(scenario.users.holder_a)
    listed = {r["work"]: r for r in client.get(
        "matches/", params={"domain": "another-copy.example.com"}).json()["results"]}
    assert {w: (r["kind"], r["part_of_works"], r["part_works"]) for w, r in listed.items()} == {
        chapter.pk: ("copy", [scenario.novel.pk], []),
        scenario.novel.pk: ("copy", [], [chapter.pk])}
    detail = client.get(f"matches/{rows[chapter.pk].pk}/").json()
    assert (detail["kind"], detail["part_of_works"], detail["part_works"]) == \
        ("copy", [scenario.novel.pk], [])
    case, _ = open_case(chapter, "another-copy.example.com")
    assert rows[chapter.pk].case_id == case.pk
    pages = client.get(f"cases/{case.pk}/pages/").json()["results"]
    assert [(p["work"], p["part_of_works"]) for p in pages] == [(chapter.pk, [scenario.novel.pk])]


def test_a_rewritten_copy_says_so(scenario, api):  # noqa: F811
    from crawler.models import Match, MatchKind

    rewritten = scenario.matches[1]
    Match.objects.filter(pk=rewritten.pk).update(kind=MatchKind.REWRITTEN)
    client = api(scenario.users.staff)
    kinds = {r["id"]: r["kind"] for r in client.get("matches/").json()["results"]}
    assert kinds == {m.pk: "rewritten" if m == rewritten else "copy" for m in scenario.matches}
    detail = client.get(f"matches/{rewritten.pk}/").json()
    assert (detail["kind"], detail["part_of_works"], detail["part_works"]) == ("rewritten", [], [])
    # a client picks the 洗稿 out, as the match list's filter does
    only = client.get("matches/", params={"kind": "rewritten"}).json()["results"]
    assert [r["id"] for r in only] == [rewritten.pk]
    copies = client.get("matches/", params={"kind": "copy"}).json()["results"]
    assert sorted(r["id"] for r in copies) == sorted(m.pk for m in scenario.matches
                                                     if m != rewritten)
    wrong = client.get("matches/", params={"kind": "washed"})
    assert wrong.status_code == 400 and "kind" in wrong.json()["fields"], wrong.text
