"""A page that copies a chapter registered alone and inside its whole-novel work is reported
against both works, and each match names the other: the evidence view says that the chapter is
part of the novel, and that the novel holds the chapter, in English and in Chinese. An unrelated
registered work is not reported.

Samples: the 红楼梦 chapters and People's Daily news of tests/fingerprint/fixtures/engine/
(SOURCES.md there).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.utils import translation

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fingerprint" / "fixtures" / "engine"


def test_a_copied_chapter_is_recorded_against_the_chapter_and_its_novel(platform_stores, client,
                                                                        django_user_model):
    from core.connections import get_mongo_db
    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.matching import match_version
    from crawler.models import Match
    from lib.crawl.pagestore import PageStore
    from tests.dashboard.conftest import store_page

    chapters = json.loads((FIXTURES / "hongloumeng_chapters.json").read_text(encoding="utf-8"))
    news = json.loads((FIXTURES / "peoples_daily.json").read_text(encoding="utf-8"))["news"][0]
    novel_text = "\n".join(c["text"] for c in chapters)
    holder = RightsHolder.objects.create(name="甲出版社")
    texts = {"第八回": chapters[1]["text"], "红楼梦（全本）": novel_text, "新闻": news}
    works = {title: Work.objects.create(holder=holder, reference=title, title=title, kind="novel",
                                        length=len(text), status="indexed")
             for title, text in texts.items()}
    engine = get_engine()
    for title, text in texts.items():
        engine.add_work(works[title].engine_id, text)
    url = "https://copy.example.com/hlm/8.html"
    page_id, version_id = store_page(url, "首页 > 小说 > 正文\n" + chapters[1]["text"] + "\n上一章 目录 下一章",
                                     "第八回")
    store = PageStore(get_mongo_db())

    match_version(engine, store.page(page_id), store.version(version_id), None)

    chapter, novel = works["第八回"], works["红楼梦（全本）"]
    rows = {m.work_id: m for m in Match.objects.all()}
    assert set(rows) == {chapter.pk, novel.pk}
    assert (rows[chapter.pk].part_of_works, rows[chapter.pk].part_works) == ([novel.pk], [])
    assert (rows[novel.pk].part_of_works, rows[novel.pk].part_works) == ([], [chapter.pk])
    assert rows[chapter.pk].score == 1.0 and rows[chapter.pk].same_text == []

    staff = django_user_model.objects.create_superuser("boss", password="pw-12345678")
    client.force_login(staff)
    said = {}
    for language in ("en", "zh-hans"):
        with translation.override(language):
            for work in (chapter, novel):
                page = client.get(f"/crawler/match/{rows[work.pk].pk}/change/",
                                  HTTP_ACCEPT_LANGUAGE=language)
                assert page.status_code == 200
                said[language, work.reference] = page.content.decode()
    assert "This work is part of another registered work, which the page copies too:" in \
        said["en", "第八回"] and "红楼梦（全本）</a>" in said["en", "第八回"]
    assert "本作品是另一部已登记作品的一部分" in said["zh-hans", "第八回"]
    assert "This work holds other registered works, which the page copies too:" in \
        said["en", "红楼梦（全本）"] and "第八回</a>" in said["en", "红楼梦（全本）"]
    assert "本作品包含其他已登记的作品" in said["zh-hans", "红楼梦（全本）"]
    assert "part of another" not in said["en", "红楼梦（全本）"]
