"""No words of the other language leak into a page: the work form's upload help and labels, the
audit trail's notice names and count, the sidebar's order; the API docs are linked from every
dashboard page. Plus the English audit trail in real Chromium at 1366 px."""

import html
import re

import pytest
from django.test import Client
from django.utils import translation

from crawler.review_actions import do_review_match
from dashboard.notice_actions import do_draft_notices

from .conftest import PASSWORD


def _client(user, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_work_form_help_and_labels_follow_the_language(scenario):
    english = _client(scenario.users.holder_a, "en").get("/core/work/add/").content.decode()
    assert "at most 50 MB" in english and "最大 50 MB" not in english
    assert ">File:</label>" in english and ">Or paste the text:</label>" in english
    chinese = _client(scenario.users.holder_a, "zh-hans").get("/core/work/add/").content.decode()
    assert "最大 50 MB" in chinese and "at most 50 MB" not in chinese


def test_audit_trail_names_a_notice_in_the_readers_language(scenario):
    with translation.override("zh-hans"):  # drafted by a Chinese-speaking user
        do_review_match(scenario.matches[0], "confirmed", "整章转载", scenario.users.staff)
        [notice] = do_draft_notices(scenario.matches[:1], scenario.users.staff)
    english = _client(scenario.users.staff, "en").get("/core/auditevent/").content.decode()
    assert f"Notice #{notice.pk} to copy.example.com" in english
    assert "通知书" not in english.split('id="result_list"')[1]
    assert re.search(r"\b2 audit events\b", english) and "audit trail</" not in english
    chinese = _client(scenario.users.staff, "zh-hans").get("/core/auditevent/").content.decode()
    assert str(notice) not in english and "Notice #" not in chinese.split('id="result_list"')[1]


def test_sidebar_keeps_one_order_in_both_languages_and_links_the_api_docs(scenario):
    orders = {}
    for language in ("zh-hans", "en"):
        html = _client(scenario.users.staff, language).get("/crawler/match/").content.decode()
        sidebar = html[html.index('id="nav-sidebar"'):]
        orders[language] = re.findall(r'<a href="(/[a-z_]+/[a-z_]+/)"', sidebar)
        assert 'id="dash-api-docs" href' in html or 'href="/api/v1/docs/" id="dash-api-docs"' in html
    assert orders["zh-hans"] == orders["en"] and len(orders["en"]) >= 8


def test_an_alert_a_stored_page_search_and_a_summary_mail_are_named_in_the_readers_language(
        scenario):
    # their names head their pages and the audit trail: no English word in a Chinese one
    from datetime import date

    from crawler.models import RematchJob
    from dashboard.alerts.models import Delivery, SummaryMail

    staff = scenario.users.staff
    search = RematchJob.objects.create(state="finished", pages_total=16, pages_searched=16)
    alert = Delivery.objects.create(kind="cases", channel="email", search=search, user=staff,
                                    recipient="staff@example.com")
    summary = SummaryMail.objects.create(user=staff, cadence="monthly", recipient="s@example.com",
                                         period_start=date(2026, 10, 1),
                                         period_end=date(2026, 11, 1))
    pages = [f"/crawler/rematchjob/{search.pk}/change/", f"/alerts/delivery/{alert.pk}/change/",
             f"/alerts/summarymail/{summary.pk}/change/"]
    names = {"en": [f"#{search.pk} (finished): 16 of 16 pages searched",
                    f"e-mail to staff@example.com: stored-page search #{search.pk}",
                    "staff: monthly takedown summary from 2026-10-01"],
             "zh-hans": [f"#{search.pk}（已完成）：已检索 16 / 16 个网页",
                         f"电子邮件 发往 staff@example.com：已存网页检索 #{search.pk}",
                         "staff：2026-10-01 起的每月维权摘要"]}
    for language, expected in names.items():
        client = _client(staff, language)
        titles = [html.unescape(re.search(r"<title>(.*?) \|", client.get(path).content.decode())[1])
                  for path in pages]
        assert titles == expected


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_audit_trail_in_the_browser(scenario, open_page, browser_login, screenshot, language):
    with translation.override("en" if language == "zh-hans" else "zh-hans"):  # the other one
        do_review_match(scenario.matches[0], "confirmed", "copied", scenario.users.staff)
        do_draft_notices(scenario.matches[:1], scenario.users.staff)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "staff")
    page.goto("/core/auditevent/")
    rows = page.inner_text("#result_list")
    assert ("Notice #" in rows) == (language == "en") and ("通知书 #" in rows) == (language != "en")
    screenshot(page, f"audit-trail-{language}-1366")


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_scheduler_pages_say_the_schedule_in_words(scenario, open_page, browser_login, screenshot,
                                                   language, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.com", PASSWORD)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "root")
    page.goto("/django_celery_beat/periodictask/")
    text = page.inner_text("#content")
    words = {"zh-hans": "每天 03:00 (Asia/Shanghai)", "en": "daily at 03:00 (Asia/Shanghai)"}
    assert words[language] in text, text  # the demo site's scan, not its crontab's text
    assert "(m/h/dM/MY/d)" not in text and "Task Name" not in text
    assert "Axes" not in page.inner_text("#nav-sidebar")
    screenshot(page, f"scheduler-tasks-{language}-1366")

    from django_celery_beat.models import CrontabSchedule

    CrontabSchedule.objects.create(minute="30", hour="3", day_of_month="1",
                                   timezone="Asia/Shanghai")  # none of daily, weekly, hourly
    page.goto("/django_celery_beat/crontabschedule/")
    text = page.inner_text("#result_list")
    monthly = {"zh-hans": "在 03:30, 每月的 1 号", "en": "At 03:30, on day 1 of the month"}
    assert words[language].split(" (")[0] in text and monthly[language] in text, text
    assert "(m/h/dM/MY/d)" not in text and "Human" not in page.inner_text("#content")
    screenshot(page, f"scheduler-crontabs-{language}-1366")

    # a task's page: named, offered and said in words, with no script the policy blocks
    blocked = []
    page.on("console", lambda message: blocked.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.goto("/django_celery_beat/periodictask/")
    page.click("#result_list tbody tr a")
    page.wait_for_load_state("networkidle")
    assert words[language] in page.inner_text(".breadcrumbs") and not blocked, blocked
    text = page.inner_text("#content")
    assert "(m/h/dM/MY/d)" not in text and "Crontab translation" not in text
    assert "AM" not in page.inner_text(".field-crontab_words .readonly")
    assert ("Schedule" in text) == (language == "en") and ("调度计划" in text) == (language != "en")
    page.select_option("#id_crontab", label=f"{monthly[language]} (Asia/Shanghai)")
    assert page.inner_text(".field-crontab_words .readonly") == \
        f"{monthly[language]} (Asia/Shanghai)"
    screenshot(page, f"scheduler-task-{language}-1366")
