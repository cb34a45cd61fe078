"""API rate limits hold across web processes and restarts: gunicorn with several workers, as in
production, counts every request of a token against one budget kept in Redis."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import requests
from django.conf import settings

from lib.runtime import embedded, supervisor

from .test_api import token_for

pytestmark = pytest.mark.django_db(transaction=True)

RATE = 10  # requests per minute for the test's token
WORKERS = 3


def _gunicorn(env: dict[str, str], port: int, log) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tracker.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", str(WORKERS), "--timeout", "60"], env=env, cwd=settings.BASE_DIR,
            stdout=out, stderr=subprocess.STDOUT, preexec_fn=supervisor.die_with_parent)


def _until(condition, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "gunicorn did not answer /healthz"
        time.sleep(0.5)


def test_rate_limit_is_shared_by_gunicorn_workers_and_survives_a_restart(
        make_user, worker_env, tmp_path):
    from django.core.cache import cache

    cache.clear()
    token = token_for(make_user("rate-holder"))
    env = worker_env(TRACKER_API_USER_RATE=f"{RATE}/minute")
    port, log = embedded.free_port(), tmp_path / "gunicorn.log"
    url = f"http://127.0.0.1:{port}/api/v1/works/"
    headers = {"Authorization": f"Bearer {token}"}

    def healthy(server) -> bool:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).ok
        except (requests.ConnectionError, requests.Timeout):  # still booting its workers
            return False

    server = _gunicorn(env, port, log)
    try:
        _until(lambda: healthy(server))
        # A new connection per request: gunicorn's workers take them in turn.
        answers = [requests.get(url, headers=headers, timeout=30).status_code
                   for _ in range(4 * RATE)]
        assert answers.count(200) == RATE and answers.count(429) == 3 * RATE, answers
    finally:
        supervisor.stop(server, timeout=10)
    server = _gunicorn(env, port, log)
    try:
        _until(lambda: healthy(server))
        assert requests.get(url, headers=headers, timeout=30).status_code == 429
    finally:
        supervisor.stop(server, timeout=10)
