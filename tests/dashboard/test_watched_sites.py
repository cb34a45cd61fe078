"""A rights holder's user sees which sites are watched for its works, when each was last
scanned and when it is scanned next, in its language and at 1366 and 390 px. Screenshots
watched-sites-{en,zh-hans}-{1366,390}.png."""

from __future__ import annotations

from datetime import timedelta

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sites():
    from django.utils import timezone

    from crawler.models import ScanRun, TargetSite

    daily = TargetSite.objects.create(name="盗版小说站", start_urls=["https://www.pirate.example.co.uk/"])
    ScanRun.objects.create(site=daily, status="finished", pages_fetched=12,
                           started_at=timezone.now() - timedelta(hours=3))
    TargetSite.objects.create(name="新站", start_urls=["https://news.copy.example.org/"])
    TargetSite.objects.create(name="停用站", start_urls=["https://old.example.net/"],
                              enabled=False)
    return daily


@pytest.mark.parametrize("language,width", [("en", 1366), ("zh-hans", 1366), ("zh-hans", 390)])
def test_a_holder_sees_the_watched_sites(sites, make_user, open_page, browser_login, screenshot,
                                         language, width):
    from core.models import RightsHolder

    make_user("reader", holders=[RightsHolder.objects.create(name="星河出版社")])
    page = open_page(language)
    page.set_viewport_size({"width": width, "height": 900})
    browser_login(page, "reader")
    page.click("#dash-watched-link")
    rows = page.locator("#dash-watched-sites tbody tr")
    assert rows.count() == 2  # the disabled site is not watched
    first = rows.nth(0).inner_text() + rows.nth(1).inner_text()
    assert "\texample.co.uk\t" in first and "\texample.org\t" in first  # registered domains
    watched = page.locator(f"#dash-watched-sites tr[data-site='{sites.pk}']")
    assert ("finished" if language == "en" else "已完成") in watched.locator("[data-field=last]").inner_text()
    next_scan = watched.locator("[data-field=next]").inner_text()
    assert next_scan[:2] == "20" and next_scan[4] == "-"  # a date: the daily schedule's next run
    assert page.inner_text("#content h1") == ("Watched sites" if language == "en" else "监测站点")
    screenshot(page, f"watched-sites-{language}-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
