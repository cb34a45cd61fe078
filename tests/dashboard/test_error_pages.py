"""The 403, 404, 500 and 503 pages: in the reader's language, in the dashboard's colours, with
a way back; in real Chromium at 1366 px in both languages (screenshots in test-artifacts/)."""

import pytest
import redis
from django.test import Client, RequestFactory
from django.utils import translation

WORDS = {"zh-hans": {403: "无权访问", 404: "找不到页面", 500: "服务器错误", 503: "服务暂时不可用"},
         "en": {403: "Access denied", 404: "Page not found", 500: "Server error",
                503: "Service temporarily unavailable"}}


def _client(user, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_error_pages_speak_the_readers_language_in_the_dashboards_style(scenario, language):
    from core.views import server_error

    holder = _client(scenario.users.holder_a, language)
    pages = {403: holder.get("/crawler/targetsite/"),  # staff only
             404: holder.get(f"/crawler/match/{scenario.matches[2].pk}/change/")}  # another holder's
    for status, error in ((500, ValueError("a bug")),
                          (503, redis.exceptions.ConnectionError("redis down"))):
        request = RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE=language)
        try:
            raise error
        except Exception:
            with translation.override(language):  # as LocaleMiddleware left it
                pages[status] = server_error(request)
    for status, response in pages.items():
        html = response.content.decode()
        assert response.status_code == status
        assert WORDS[language][status] in html, (status, html[:400])
        assert "dashboard/dashboard.css" in html and 'href="/"' in html
        other = WORDS["en" if language == "zh-hans" else "zh-hans"][status]
        assert other not in html


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_error_pages_in_the_browser(scenario, open_page, browser_login, screenshot, language):
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "holder_a")
    for status, url in ((403, "/crawler/targetsite/"), (404, "/no/such/page/")):
        assert page.goto(url).status == status
        assert page.locator("h1").inner_text() == WORDS[language][status]
        assert page.evaluate("getComputedStyle(document.querySelector('#header'))"
                             ".backgroundColor") != "rgba(0, 0, 0, 0)"  # styled
        screenshot(page, f"error-{status}-{language}-1366")
