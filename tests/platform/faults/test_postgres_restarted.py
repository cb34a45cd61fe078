"""Drill (d): PostgreSQL restarted while the dashboard is used.

The dashboard is served by gunicorn, as in production (Dockerfile), on a PRIVATE PostgreSQL;
logged-in users (one in Simplified Chinese, one in English) keep loading the overview and the
match list while the server crashes (immediate shutdown) and starts again. While it is down
every page answers 503 in the user's language, promptly, with no traceback; once it is back the
very next request succeeds on the same web server, whose persistent connections (CONN_MAX_AGE)
went stale (CONN_HEALTH_CHECKS drops them).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import requests
from django.conf import settings

from lib.runtime import embedded, supervisor

PAGES = ("/", "/crawler/match/")
USER, PASSWORD = "drill-admin", "drill-pw-4731"
#: Seconds a page may take at most: a page that hangs while the database is down fails.
PAGE_TIMEOUT = 30
UNAVAILABLE = {"zh-hans": "服务暂时不可用", "en": "Service temporarily unavailable"}


def _manage(env: dict, *args: str) -> None:
    result = subprocess.run([sys.executable, str(settings.BASE_DIR / "manage.py"), *args],
                            env=env, cwd=settings.BASE_DIR, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture
def dashboard(tmp_path, private_postgres, server_env, until):
    """gunicorn (1 sync worker: one persistent database connection, reused by every request)
    serving the dashboard on the private PostgreSQL, migrated, with a superuser; yields
    (base URL, the gunicorn Popen) and stops it afterwards."""
    env = server_env(tmp_path / "var", DATABASE_URL=private_postgres.service.url,
                     MONGO_URL=settings.MONGO_URL, REDIS_URL=settings.REDIS_URL,
                     DJANGO_SUPERUSER_PASSWORD=PASSWORD)
    _manage(env, "migrate", "--no-input", "-v", "0")
    _manage(env, "createsuperuser", "--no-input", "--username", USER,
            "--email", "drill@example.com")
    port = embedded.free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tracker.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", "1", "--timeout", "60"], env=env, cwd=settings.BASE_DIR,
            stdout=out, stderr=subprocess.STDOUT, preexec_fn=supervisor.die_with_parent)
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            return requests.get(f"{url}/healthz", timeout=5).status_code == 200
        except (requests.ConnectionError, requests.Timeout):
            return False

    try:
        until(healthy, "gunicorn answers /healthz", timeout=120)
        yield url, server
    finally:
        supervisor.stop(server, timeout=10)


def _load(session: requests.Session, url: str) -> requests.Response:
    return session.get(url, timeout=PAGE_TIMEOUT, allow_redirects=False)


def _all_pages_work(sessions: dict, url: str) -> None:
    for language, session in sessions.items():
        for page in PAGES:
            answer = _load(session, url + page)
            assert answer.status_code == 200, (language, page, answer.status_code,
                                               answer.text[:1000])
            assert USER in answer.text  # the user, read from the database through the session


def test_dashboard_answers_503_while_postgres_is_down_then_recovers(
        private_postgres, dashboard, dashboard_login):
    url, server = dashboard
    sessions = {language: dashboard_login(url, USER, PASSWORD, language)
                for language in UNAVAILABLE}
    _all_pages_work(sessions, url)

    # Restarted between two clicks: the web server's open connection is stale; the next
    # request must reconnect rather than fail.
    private_postgres.crash()
    private_postgres.start()
    _all_pages_work(sessions, url)

    private_postgres.crash()
    for language, session in sessions.items():
        for page in PAGES:
            answer = _load(session, url + page)  # ReadTimeout (a failure) if it hangs
            assert answer.status_code == 503, (language, page, answer.status_code,
                                               answer.text[:1000])
            assert UNAVAILABLE[language] in answer.text and "Traceback" not in answer.text
            assert int(answer.headers["Retry-After"]) > 0
            others = set(UNAVAILABLE.values()) - {UNAVAILABLE[language]}
            assert not any(other in answer.text for other in others)

    private_postgres.start()
    _all_pages_work(sessions, url)  # the very next requests, on the same web server
    assert server.poll() is None
