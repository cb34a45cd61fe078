"""A page that copies a text registered as several works is reported against each of them, and
each match names the others: the evidence view says "the same text is registered as N works",
naming a holder's own works and counting the other holders' as a rights conflict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db

ARTICLE = Path(__file__).resolve().parents[1] / "dashboard" / "fixtures" / "renmin-ribao-article.json"


def test_a_copy_of_a_text_registered_three_times_is_one_finding_of_three_works(platform_stores):
    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from crawler.matching import record_matches
    from crawler.models import Match
    from dashboard.evidence import same_text_works
    from lib.crawl.pagestore import Page, PageVersion

    text = json.loads(ARTICLE.read_text(encoding="utf-8"))["text"]
    a, b = RightsHolder.objects.create(name="甲社"), RightsHolder.objects.create(name="乙社")
    works = [Work.objects.create(holder=holder, reference=ref, title=title, kind="news",
                                 length=len(text), status="indexed")
             for holder, ref, title in ((a, "A-1", "初版"), (a, "A-2", "再版"), (b, "B-1", "乙社稿"))]
    engine = get_engine()
    for work in works:
        engine.add_work(work.engine_id, text)
    page_text = "转载 · 今日要闻\n\n" + text + "\n\n责任编辑：佚名"
    page = Page(id=f"{1:024x}", canonical_url="https://copy.example.com/a.html",
                domain="copy.example.com")
    version = PageVersion(id=f"{2:024x}", page_id=page.id, canonical_url=page.canonical_url,
                          text=page_text)

    record_matches(page, version, None, engine.match(page_text))

    matches = {m.work_id: m for m in Match.objects.all()}
    assert set(matches) == {w.pk for w in works}
    for work in works:
        assert matches[work.pk].same_text == sorted(w.pk for w in works if w != work)
    said = same_text_works(matches[works[0].pk])
    assert (said["count"], [w.title for w in said["own"]], said["others"]) == (3, ["再版"], 1)
    said_to_b = same_text_works(matches[works[2].pk])
    assert (said_to_b["own"], said_to_b["others"]) == ([], 2)


def test_the_evidence_view_says_so(platform_stores, client, django_user_model):
    from core.models import RightsHolder, Work
    from crawler.models import Match
    from tests.dashboard.conftest import store_page

    holder = RightsHolder.objects.create(name="甲社")
    first, second = (Work.objects.create(holder=holder, reference=r, title=t, kind="news",
                                         length=100, status="indexed")
                     for r, t in (("A-1", "初版"), ("A-2", "再版")))
    page_id, version_id = store_page("https://copy.example.com/b.html", "正文" * 60, "转载")
    match = Match.objects.create(work=first, page_id=page_id, version_id=version_id,
                                 url="https://copy.example.com/b.html", domain="copy.example.com",
                                 title="转载", score=0.9, containment_page=0.9,
                                 containment_work=0.9, passages=[], same_text=[second.pk])
    staff = django_user_model.objects.create_superuser("boss", password="pw-12345678")
    client.force_login(staff)
    with translation.override("en"):
        page = client.get(f"/crawler/match/{match.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert page.status_code == 200
    assert "The same text is registered as 2 works." in html and "再版" in html
    assert f'<a href="{reverse("admin:core_work_change", args=[second.pk])}">再版</a>' in html
