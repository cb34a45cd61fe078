"""Swagger UI (/api/v1/docs/) and Redoc (/api/v1/redoc/) in real headless Chromium under the
site's Content-Security-Policy: the operations render and the browser reports no CSP violation
and no script error; the project's own words (page title, introduction, links) are in the
reader's language. Screenshots: test-artifacts/api-{swagger,redoc}-{en,zh-hans}.png."""

import pytest

pytestmark = pytest.mark.browser

# every securitypolicyviolation event of the page, kept for the test to read
WATCH_CSP = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"""


TITLE = {"en": "Copyright tracker API", "zh-hans": "版权追踪 API"}
BACK = {"en": "Back to the dashboard", "zh-hans": "返回管理后台"}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("path, operation, name", [
    ("/api/v1/docs/", ".opblock-summary-path[data-path='/api/v1/alerts/webhooks/']",
     "api-swagger"),
    ("/api/v1/redoc/", "text=List the webhook endpoints of your rights holders", "api-redoc")])
def test_api_docs_render_under_the_csp(scenario, open_page, browser_login, screenshot, path,
                                       operation, name, language):
    page = open_page(language)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(WATCH_CSP)
    browser_login(page, "staff")
    answer = page.goto(path)
    assert "Content-Security-Policy" in answer.headers or \
        "content-security-policy" in answer.headers
    page.wait_for_selector(operation, state="attached", timeout=30_000)
    page.wait_for_load_state("networkidle")
    assert page.title() == TITLE[language]
    assert page.locator(f"a:has-text('{BACK[language]}')").first.is_visible()
    screenshot(page, f"{name}-{language}")
    # Redoc's sidebar always shows Redocly's logo from cdn.redoc.ly: the CSP blocks it (no
    # request leaves) and Redoc hides the broken image; nothing else may be blocked
    blocked = [v for v in page.evaluate("window.__csp") if "cdn.redoc.ly/" not in v]
    assert blocked == []
    assert errors == []
