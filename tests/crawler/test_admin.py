"""Admin pages of the crawler's models: staff see sites and scans; a holder sees only its own
whitelisted domains; "Scan now" records a run."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from crawler.models import ScanRun, TargetSite, WhitelistedDomain
from tracker.core.models import RightsHolder
from tracker.core.roles import HOLDER_GROUP, ensure_groups

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(user)
    return client


def test_staff_pages_and_scan_now(staff, platform_stores):
    site = TargetSite.objects.create(name="站点", start_urls=["http://127.0.0.1:9/"])
    assert staff.get("/crawler/targetsite/").status_code == 200
    page = staff.get(f"/crawler/targetsite/{site.pk}/change/")
    assert page.status_code == 200 and "periodictask" in page.content.decode()
    staff.post("/crawler/targetsite/", {"action": "scan_now", "_selected_action": [site.pk]})
    run = ScanRun.objects.get(site=site)
    assert run.trigger == "admin" and run.status == "running"
    assert staff.get("/crawler/scanrun/").status_code == 200
    added = staff.post("/crawler/targetsite/add/", {
        "name": "新站", "start_urls": "http://news.example.cn/\nhttp://news.example.cn/rss.xml\n",
        "allowed_domains": "", "path_patterns": "^/news/\n[", "max_depth": 3, "max_pages": 100,
        "delay_seconds": 2, "enabled": "on", "notes": ""})
    assert list(added.context["adminform"].form.errors) == ["path_patterns"]  # "[" is no regex
    staff.post("/crawler/targetsite/add/", {
        "name": "新站", "start_urls": "http://news.example.cn/\nhttp://news.example.cn/rss.xml\n",
        "allowed_domains": "", "path_patterns": "^/news/", "max_depth": 3, "max_pages": 100,
        "delay_seconds": 2, "enabled": "on", "needs_browser": "on", "notes": ""})
    new = TargetSite.objects.get(name="新站")
    assert new.needs_browser and new.rules().needs_browser  # its pages go to the render queue
    assert new.start_urls == ["http://news.example.cn/", "http://news.example.cn/rss.xml"]
    assert new.allowed_domains == ["news.example.cn"] and new.periodic_task is not None
    staff.post("/crawler/scanrun/", {"action": "cancel", "_selected_action": [run.pk]})
    from crawler import scans

    assert scans.get_crawler().frontier(run.pk).state().cancelled
    scans.finish(run.pk)
    assert ScanRun.objects.get(pk=run.pk).status == "cancelled"


def test_holder_sees_only_its_whitelist(client):
    mine, other = RightsHolder.objects.create(name="甲"), RightsHolder.objects.create(name="乙")
    user = get_user_model().objects.create_user("h", "h@example.com", "x", is_staff=True)
    ensure_groups()  # the "Rights holders" role must carry the whitelist permissions
    user.groups.add(Group.objects.get(name=HOLDER_GROUP))
    mine.users.add(user)
    own = WhitelistedDomain.objects.create(holder=mine, domain="Mine.Example.com")
    theirs = WhitelistedDomain.objects.create(holder=other, domain="theirs.example.com")
    assert own.domain == "mine.example.com"
    client.force_login(user)
    listing = client.get("/crawler/whitelisteddomain/").content.decode()
    assert "mine.example.com" in listing and "theirs.example.com" not in listing
    assert client.get(f"/crawler/whitelisteddomain/{theirs.pk}/change/").status_code == 404
    assert client.get("/crawler/targetsite/").status_code == 403
