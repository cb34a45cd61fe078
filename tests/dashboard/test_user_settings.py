"""Each person's time zone: chosen on the "My settings" page (audited), it moves every time the
evidence view and the match list show, with the UTC offset; people who never chose one see
Asia/Shanghai (+0800). Plus the page itself in a browser, in zh-hans and English at 1366 px."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from django.test import Client

from core.models import AuditEvent, UserSettings

NEW_YORK = ZoneInfo("America/New_York")


def client_for(user, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _shown(moment, zone) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S %z")


def _fetched_at(html: str) -> str:
    return re.search(r'Fetched at</dt><dd>([^<]+)</dd>', html).group(1)


def test_chosen_time_zone_moves_evidence_and_list_times(scenario):
    match = scenario.matches[0]
    staff = client_for(scenario.users.staff)
    evidence_url = f"/crawler/match/{match.pk}/change/"

    before = staff.get(evidence_url).content.decode()
    assert _shown(match.first_seen, ZoneInfo("Asia/Shanghai")) in before  # the default, +0800
    captured = _fetched_at(before)
    assert captured.endswith("+0800")

    response = staff.post("/settings/", {"time_zone": "America/New_York"})
    assert response.status_code == 302
    after = staff.get(evidence_url).content.decode()
    shown = _shown(match.first_seen, NEW_YORK)
    assert shown in after and shown[-5:] in ("-0500", "-0400")
    assert _shown(match.first_seen, ZoneInfo("Asia/Shanghai")) not in after
    assert _fetched_at(after).endswith(("-0500", "-0400")) and _fetched_at(after) != captured

    listing = staff.get("/crawler/match/").content.decode()
    tooltip = match.first_seen.astimezone(NEW_YORK).isoformat(sep=" ", timespec="seconds")
    assert tooltip.endswith(("-05:00", "-04:00")) and f'title="{tooltip}"' in listing

    # others keep the platform's zone
    holder = client_for(scenario.users.holder_a).get(evidence_url).content.decode()
    assert _shown(match.first_seen, ZoneInfo("Asia/Shanghai")) in holder

    event = AuditEvent.objects.filter(kind="settings").get()
    assert (event.username, event.old_state, event.new_state) == (
        scenario.users.staff.username, "Asia/Shanghai", "America/New_York")


def test_unknown_time_zone_is_refused_in_the_users_language(scenario):
    staff = client_for(scenario.users.staff, "zh-hans")
    page = staff.get("/settings/").content.decode()
    assert "我的设置" in page and 'value="Asia/Shanghai" selected' in page
    response = staff.post("/settings/", {"time_zone": "Mars/Olympus_Mons"})
    assert response.status_code == 200 and "选择一个有效的选项" in response.content.decode()
    assert not UserSettings.objects.exists() and not AuditEvent.objects.filter(
        kind="settings").exists()


def test_alert_mail_times_are_in_the_recipients_zone(scenario):
    from core.user_actions import do_update_user_settings
    from dashboard.alerts.messages import delivery_mail
    from dashboard.alerts.models import Delivery

    match, user = scenario.matches[0], scenario.users.holder_a
    user.email = "holder-a@example.org"
    delivery = Delivery(user=user, match=match, kind="immediate", channel="email")
    assert _shown(match.first_seen, ZoneInfo("Asia/Shanghai"))[:16] in delivery_mail(
        delivery, "en").body

    do_update_user_settings(user, user, time_zone="America/New_York")
    body = delivery_mail(delivery, "en").body
    shown = match.first_seen.astimezone(NEW_YORK).strftime("%Y-%m-%d %H:%M %z")
    assert f"First seen: {shown}" in body and shown.endswith(("-0500", "-0400"))


def test_settings_page_in_a_browser(scenario, open_page, browser_login, screenshot):
    for language, heading, saved in (("zh-hans", "我的设置", "您的设置已保存。"),
                                     ("en", "My settings", "Your settings were saved.")):
        page = open_page(language)
        page.set_viewport_size({"width": 1366, "height": 800})
        browser_login(page, "holder_a")
        page.click("#user-tools a[href='/settings/']")
        assert page.inner_text("#content h1") == heading
        page.select_option("#id_time_zone", "Europe/London")
        page.click("#dash-user-settings input[type=submit]")
        assert saved in page.inner_text(".messagelist")
        assert page.input_value("#id_time_zone") == "Europe/London"
        assert page.inner_text("[data-field=now]").endswith("+0000")
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"user-settings-{language}")
        UserSettings.objects.all().delete()


def test_notice_trail_times_carry_the_users_offset(scenario):
    from core.user_actions import do_update_user_settings
    from crawler.review_actions import do_review_match
    from dashboard.notice_actions import do_draft_notices

    staff = scenario.users.staff
    do_review_match(scenario.matches[0], "confirmed", "整章转载，未获授权", staff)
    notice = do_draft_notices(scenario.matches[:1], staff)[0]
    drafted = AuditEvent.objects.about(notice).get()
    do_update_user_settings(staff, staff, time_zone="America/New_York")
    page = client_for(staff).get(f"/dashboard/takedownnotice/{notice.pk}/change/")
    assert page.status_code == 200
    assert f"<td>{_shown(drafted.at, NEW_YORK)}</td>" in page.content.decode()


def test_rights_conflict_and_match_list_show_times_in_the_users_zone(scenario):
    from datetime import datetime, timedelta

    from core.models import RightsConflict, Work

    registered = datetime(2026, 3, 1, 2, 30, tzinfo=ZoneInfo("UTC"))  # 1 March in UTC only
    Work.objects.filter(pk=scenario.novel.pk).update(created_at=registered)
    Work.objects.filter(pk=scenario.news.pk).update(created_at=registered + timedelta(days=1))
    conflict = RightsConflict.objects.create(existing=scenario.novel, claimed=scenario.news,
                                             containment=0.9)
    staff = client_for(scenario.users.staff)
    staff.post("/settings/", {"time_zone": "America/New_York"})
    page = staff.get(f"/core/rightsconflict/{conflict.pk}/change/").content.decode()
    assert "2026-02-28 21:30 -0500" in page and "2026-03-01 21:30 -0500" in page

    listing = staff.get("/crawler/match/").content.decode()
    first_seen = scenario.matches[0].first_seen.astimezone(NEW_YORK)
    # the time, not the date alone
    assert f"<span>{first_seen:%Y-%m-%d}</span> <span>{first_seen:%H:%M}</span>" in listing
