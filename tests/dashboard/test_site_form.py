"""The target site's form in real Chromium, both languages at 1366 px: only the schedule fields
the chosen frequency uses are shown (and posted), and the page offers "Scan now"."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_schedule_fields_follow_the_frequency(scenario, open_page, browser_login, screenshot,
                                              language):
    from django_celery_beat.models import PeriodicTask

    from crawler.models import ScanRun

    site = scenario.matches[0].site
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    page.goto(f"/crawler/targetsite/{site.pk}/change/")
    visible = {name: page.locator(f".form-row.field-{name}").is_visible()
               for name in ("schedule_time", "schedule_weekday", "schedule_minute")}
    assert visible == {"schedule_time": True, "schedule_weekday": False, "schedule_minute": False}
    screenshot(page, f"site-form-daily-{language}-1366")
    page.select_option("#id_schedule_frequency", "hourly")
    assert page.locator(".form-row.field-schedule_minute").is_visible()
    assert not page.locator(".form-row.field-schedule_time").is_visible()
    page.fill("#id_schedule_minute", "20")
    page.fill("#id_start_urls", "https://copy.example.com/novel/")
    screenshot(page, f"site-form-hourly-{language}-1366")
    page.click("input[name=_continue]")
    page.wait_for_load_state("networkidle")
    assert page.locator(".errorlist").count() == 0, page.locator(".errorlist").all_inner_texts()
    tab = PeriodicTask.objects.get(pk=site.periodic_task_id).crontab
    assert (tab.minute, tab.hour) == ("20", "*")
    page.locator("#dash-site-scan").click()
    page.wait_for_load_state("networkidle")
    assert ScanRun.objects.filter(site=site, trigger="admin").exists()
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"site-scanned-now-{language}-1366")
