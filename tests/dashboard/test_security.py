"""Security headers on dashboard pages, `manage.py check --deploy` with the production
settings of .env.example, and the Content-Security-Policy against the dashboard's own scripts
in a real browser."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings

from tests.dashboard.conftest import PASSWORD


@pytest.mark.django_db
def test_dashboard_page_sends_security_headers(client, make_user):
    client.force_login(make_user("staff", staff_role=True))
    response = client.get("/")
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert "Strict-Transport-Security" not in response  # plain HTTP (make run, tests)


def _env_example() -> dict[str, str]:
    lines = (settings.BASE_DIR / ".env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


@pytest.mark.slow
def test_check_deploy_is_clean_with_the_production_settings(tmp_path):
    # Not DJANGO_ALLOW_ASYNC_UNSAFE either: set while this module's browser test runs (the
    # chromium fixture), it is an error under --deploy, and no deployment sets it.
    env = {name: value for name, value in os.environ.items()
           if name not in ("DATABASE_URL", "MONGO_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    env.update(_env_example())
    # As the file says: every secret changed (its placeholder key is refused on purpose).
    env.update(SECRET_KEY=secrets.token_urlsafe(50), TRACKER_VAR_DIR=str(tmp_path),
               MEDIA_ROOT=str(tmp_path / "media"), STATIC_ROOT=str(tmp_path / "static"))
    result = subprocess.run([sys.executable, str(settings.BASE_DIR / "manage.py"), "check",
                             "--deploy", "--fail-level", "WARNING"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    # The placeholder key itself is flagged: a deployment that forgot to change it is told.
    env["SECRET_KEY"] = _env_example()["SECRET_KEY"]
    result = subprocess.run([sys.executable, str(settings.BASE_DIR / "manage.py"), "check",
                             "--deploy", "--fail-level", "WARNING"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr + result.stdout


@pytest.mark.browser
def test_pages_run_their_scripts_under_the_policy(scenario, open_page, browser_login):
    page = open_page("en")
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.add_init_script("document.addEventListener('securitypolicyviolation', e => "
                         "console.error('Content Security Policy: ' + e.violatedDirective))")
    browser_login(page, "staff")
    page.wait_for_function("document.documentElement.dataset.chartsReady === '1'")  # overview.js
    match = scenario.matches[0]
    page.goto(f"/crawler/match/{match.pk}/change/")
    page.wait_for_selector("#dash-evidence")
    page.click("#dash-next")  # evidence.js
    assert page.inner_text("[data-role=counter]") == "Passage 2 of 2"
    with page.expect_navigation():  # language.js submits the language menu
        page.select_option("#dash-language-select", "zh-hans")
    assert page.evaluate("document.documentElement.lang") == "zh-hans"
    assert violations == []


@pytest.mark.django_db
@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/x", ""])
def test_login_with_an_off_site_next_lands_on_the_dashboard(client, make_user, next_url):
    make_user("holder-login")
    response = client.post(f"/login/?next={next_url}", {"username": "holder-login",
                                                        "password": PASSWORD,
                                                        "next": next_url}, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert response.status_code == 200 and response.wsgi_request.user.is_authenticated
