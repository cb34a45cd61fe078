"""A work's ingestion status refreshes by itself: the works list and the work's page poll it
while the work is pending, and "pending" becomes "indexed" without a reload (real Chromium,
both languages at 1366 px); the status endpoint answers only the works the user may see."""

import pytest
from django.test import Client

from core.models import Work

INDEXED = {"zh-hans": "已入库", "en": "indexed"}
PENDING = {"zh-hans": "排队中", "en": "pending"}


def test_status_endpoint_is_scoped_to_the_users_works(scenario):
    mine = Work.objects.create(holder=scenario.a, reference="P-1", title="待入库", status="pending")
    theirs = Work.objects.create(holder=scenario.b, reference="P-2", title="别家", status="pending")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(scenario.users.holder_a)
    answer = client.get(f"/core/work/status/?id={mine.pk}&id={theirs.pk}").json()
    assert answer == {"works": [{"id": mine.pk, "status": "pending", "label": "排队中",
                                 "done": False, "error": ""}]}
    assert client.get("/core/work/status/?id=x").status_code == 400


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_pending_turns_indexed_without_a_reload(scenario, open_page, browser_login, screenshot,
                                                language):
    work = Work.objects.create(holder=scenario.a, reference="P-3", title="新登记的作品",
                               status="pending")
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "holder_a")
    for url in ("/core/work/", f"/core/work/{work.pk}/change/"):
        Work.objects.filter(pk=work.pk).update(status="pending")
        page.goto(url)
        cell = page.locator(f'[data-work-status][data-id="{work.pk}"]')
        assert cell.inner_text() == PENDING[language]
        screenshot(page, f"work-status-pending-{url.count('/')}-{language}-1366")
        Work.objects.filter(pk=work.pk).update(status="indexed")  # as the worker does
        page.wait_for_function(
            "([id, word]) => document.querySelector(`[data-work-status][data-id=\"${id}\"]`)"
            ".textContent === word", arg=[work.pk, INDEXED[language]], timeout=15_000)
    screenshot(page, f"work-status-indexed-{language}-1366")
