"""Admin pages of the crawler's models: staff see sites and scans; a holder sees only its own
whitelisted domains; "Scan now" records a run."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from core.models import RightsHolder
from core.roles import HOLDER_GROUP, ensure_groups
from crawler.models import ScanRun, TargetSite, WhitelistedDomain

pytestmark = pytest.mark.django_db
# The schedule fields of the target site's form, as a browser submits them unchanged (the
# fields a daily schedule does not use are disabled by dashboard/schedule.js).
DAILY_AT_3 = {"schedule_frequency": "daily", "schedule_time": "03:00"}


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(user)
    return client


def test_staff_pages_and_scan_now(staff, platform_stores):
    site = TargetSite.objects.create(name="站点", start_urls=["http://127.0.0.1:9/"])
    assert staff.get("/crawler/targetsite/").status_code == 200
    page = staff.get(f"/crawler/targetsite/{site.pk}/change/")
    assert page.status_code == 200 and 'value="03:00"' in page.content.decode()
    staff.post("/crawler/targetsite/", {"action": "scan_now", "_selected_action": [site.pk]})
    run = ScanRun.objects.get(site=site)
    assert run.trigger == "admin" and run.status == "running"
    assert staff.get("/crawler/scanrun/").status_code == 200
    added = staff.post("/crawler/targetsite/add/", {
        "name": "新站", "start_urls": "http://news.example.cn/\nhttp://news.example.cn/rss.xml\n",
        "allowed_domains": "", "path_patterns": "^/news/\n[", "max_depth": 3, "max_pages": 100,
        "delay_seconds": 2, "enabled": "on", "notes": "", **DAILY_AT_3})
    assert list(added.context["adminform"].form.errors) == ["path_patterns"]  # "[" is no regex
    staff.post("/crawler/targetsite/add/", {
        "name": "新站", "start_urls": "http://news.example.cn/\nhttp://news.example.cn/rss.xml\n",
        "allowed_domains": "", "path_patterns": "^/news/", "max_depth": 3, "max_pages": 100,
        "delay_seconds": 2, "enabled": "on", "needs_browser": "on", "notes": "", **DAILY_AT_3})
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


def site_form(site, **changes) -> dict:
    """The target site's change form as posted, with ``changes``."""
    return {"name": site.name, "start_urls": "\n".join(site.start_urls), "allowed_domains": "",
            "path_patterns": "", "max_depth": 3, "max_pages": 100, "delay_seconds": 2,
            "enabled": "on", "notes": "", **DAILY_AT_3, **changes}


def test_schedule_on_the_sites_own_form(staff, platform_stores):
    from django_celery_beat.models import PeriodicTask

    from core.models import AuditEvent

    site = TargetSite.objects.create(name="周更", start_urls=["http://127.0.0.1:9/"])
    url = f"/crawler/targetsite/{site.pk}/change/"
    staff.post(url, site_form(site, schedule_frequency="weekly", schedule_time="04:30",
                              schedule_weekday="3"))
    tab = PeriodicTask.objects.get(pk=site.periodic_task_id).crontab
    assert (tab.minute, tab.hour, tab.day_of_week, str(tab.timezone)) == (
        "30", "4", "3", "Asia/Shanghai")
    event = AuditEvent.objects.filter(kind="site").latest("sequence")
    assert "crontab 30 4 * * 3 Asia/Shanghai" in event.reason and event.username == "boss"
    listing = staff.get("/crawler/targetsite/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "每周星期三 04:30" in listing
    assert "weekly on Wednesday at 04:30" in staff.get(
        "/crawler/targetsite/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    staff.post(url, site_form(site, schedule_frequency="hourly", schedule_time="",
                              schedule_minute="15"))
    tab = PeriodicTask.objects.get(pk=site.periodic_task_id).crontab
    assert (tab.minute, tab.hour, tab.day_of_week) == ("15", "*", "*")
    refused = staff.post(url, site_form(site, schedule_time="25:00", schedule_minute="15"),
                         HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "schedule_time" in refused.context["adminform"].form.errors
    assert PeriodicTask.objects.get(pk=site.periodic_task_id).crontab.minute == "15"  # kept
    staff.post(url, site_form(site, notes="只改备注", schedule_frequency="hourly",
                              schedule_time="", schedule_minute="15"))
    assert PeriodicTask.objects.get(pk=site.periodic_task_id).crontab.hour == "*"


def test_scan_messages_in_chinese(staff, platform_stores):
    site = TargetSite.objects.create(name="消息", start_urls=["http://127.0.0.1:9/"])
    page = staff.post("/crawler/targetsite/", {"action": "scan_now", "_selected_action": [site.pk]},
                      HTTP_ACCEPT_LANGUAGE="zh-hans", follow=True).content.decode()
    run = ScanRun.objects.get(site=site)
    assert f"消息：扫描 #{run.pk} 运行中" in page
    page = staff.post("/crawler/scanrun/", {"action": "cancel", "_selected_action": [run.pk]},
                      HTTP_ACCEPT_LANGUAGE="zh-hans", follow=True).content.decode()
    assert "已取消 1 次扫描" in page and "scan(s)" not in page
    from crawler import scans

    scans.finish(run.pk)
    listing = staff.get("/crawler/scanrun/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "控制台" in listing and ">admin<" not in listing  # the trigger in words
    from datetime import UTC

    from django.utils import timezone

    sites = staff.get("/crawler/targetsite/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    local, utc = (f"{t:%Y-%m-%d %H:%M}" for t in (timezone.localtime(run.started_at),
                                                   run.started_at.astimezone(UTC)))
    assert local != utc and local in sites and utc not in sites  # the last scan in local time


def test_a_superusers_crontab_is_kept(staff, platform_stores):
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    site = TargetSite.objects.create(name="六小时", start_urls=["http://127.0.0.1:9/"])
    every_6h = CrontabSchedule.objects.create(minute="0", hour="*/6", timezone="Asia/Shanghai")
    PeriodicTask.objects.filter(pk=site.periodic_task_id).update(crontab=every_6h)
    listing = staff.get("/crawler/targetsite/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "由超级用户设置" in listing
    staff.post(f"/crawler/targetsite/{site.pk}/change/", site_form(site, notes="只改备注"))
    assert PeriodicTask.objects.get(pk=site.periodic_task_id).crontab_id == every_6h.pk


def test_the_site_form_keeps_only_the_schedule_fields_its_frequency_uses(staff, platform_stores):
    from django_celery_beat.models import PeriodicTask

    site = TargetSite.objects.create(name="十点半", start_urls=["http://127.0.0.1:9/"])
    url = f"/crawler/targetsite/{site.pk}/change/"
    staff.post(url, site_form(site, schedule_time="10:30"))
    tab = PeriodicTask.objects.get(pk=site.periodic_task_id).crontab
    assert (tab.hour, tab.minute) == ("10", "30")
    form = staff.get(url).context["adminform"].form
    assert form["schedule_time"].value().strftime("%H:%M") == "10:30"
    assert form["schedule_minute"].value() is None  # no hourly "minute 30" shown for it
    assert form["schedule_weekday"].value() is None
    refused = staff.post(url, site_form(site, schedule_frequency="hourly", schedule_time="11:45",
                                        schedule_minute="5"), HTTP_ACCEPT_LANGUAGE="en")
    assert refused.context["adminform"].form.errors["schedule_time"] == [
        "Not used by hourly scans: leave it empty."]
    refused = staff.post(url, site_form(site, schedule_minute="45"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert refused.context["adminform"].form.errors["schedule_minute"] == ["每天扫描不使用此项：请留空。"]
    assert PeriodicTask.objects.get(pk=site.periodic_task_id).crontab.minute == "30"  # kept
    listing = staff.get("/crawler/targetsite/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "daily scans" not in listing and "Enable scheduled scans" in listing


@pytest.mark.parametrize("url, kind", [
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://2852039166/latest/", "link-local"),  # 169.254.169.254 in decimal
    ("http://0x7f000001:8000/", "loopback"),
    ("http://localhost/", "loopback"),
    ("http://[::1]/", "loopback"),
    ("http://10.0.0.7/", "private"),
])
def test_a_site_on_a_forbidden_address_is_refused_with_the_ssrf_reason(staff, url, kind):
    """The admin form and the API refuse a start URL whose host is a forbidden address literal,
    saying so (not a scan later reporting "forbidden by robots.txt")."""
    from django.test import override_settings
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(get_user_model().objects.get(username="boss"))
    with override_settings(CRAWLER={}):  # no address allowed, as in production
        form = staff.post("/crawler/targetsite/add/", {
            "name": "内网", "start_urls": url, "allowed_domains": "", "path_patterns": "",
            "max_depth": 1, "max_pages": 10, "delay_seconds": 1, "notes": "", **DAILY_AT_3},
            headers={"accept-language": "en"})
        errors = form.context["adminform"].form.errors["start_urls"]
        answer = api.post("/api/v1/sites/", {"name": "内网", "start_urls": [url]},
                                format="json", headers={"accept-language": "zh-hans"})
    assert f"is a {kind} address" in errors[0] and "refused by the SSRF guard" in errors[0]
    assert answer.status_code == 400, answer.content
    assert "SSRF 防护拒绝" in answer.json()["fields"]["start_urls"][0]
    assert not TargetSite.objects.exists()
