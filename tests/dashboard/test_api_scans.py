"""Scans through the API with the real Celery worker: staff start a scan of a loopback site and
follow its progress until it finishes; a running scan cancelled through the API ends cancelled;
a holder's token is refused and starts nothing."""

from __future__ import annotations

import os
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from crawler.models import ScanRun, TargetSite
from lib.runtime.serving import serve_in_thread

from . import test_api

api = test_api.api  # the fixtures of the API tests
_fresh_throttle_counts = test_api._fresh_throttle_counts

# The site is on loopback: allowed here and in the worker subprocess, which copies this
# process's environment when the session starts it (as the crawler and alert tests do).
os.environ.update({"CRAWLER_ALLOW_ADDRESSES": "127.0.0.1", "CRAWLER_DEFAULT_DELAY_SECONDS": "0"})
settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": "127.0.0.1",
                    "DEFAULT_DELAY_SECONDS": "0"}

SCAN_TIMEOUT_SECONDS = 120
PAGES = 6


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def loopback_site(tmp_path):
    """A static site on 127.0.0.1: index.html linking to PAGES chapter pages. Yields its URL."""
    links = "".join(f'<a href="/c{i}.html">第{i}章</a>' for i in range(PAGES))
    (tmp_path / "index.html").write_text(f"<html><body>目录 {links}</body></html>", "utf-8")
    for i in range(PAGES):
        (tmp_path / f"c{i}.html").write_text(
            f"<html><body><p>第{i}章 " + "山高水长，" * 80 + "</p></body></html>", "utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(tmp_path)))
    server.daemon_threads = True
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _wait_done(client, scan_id: int) -> dict:
    deadline = time.monotonic() + SCAN_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        progress = client.get(f"scans/{scan_id}/").json()
        if progress["status"] != "running":
            return progress
        time.sleep(0.5)
    raise AssertionError(f"scan {scan_id} still running after {SCAN_TIMEOUT_SECONDS} s")


@pytest.mark.django_db(transaction=True)
def test_staff_scan_a_site_through_the_api(scenario, api, idle_worker, loopback_site):
    holder = api(scenario.users.holder_a)
    refused = holder.post("sites/", json={"name": "x", "start_urls": [loopback_site]})
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert not TargetSite.objects.filter(name="x").exists()
    staff = api(scenario.users.staff)
    site = staff.post("sites/", json={"name": "loopback", "start_urls": [loopback_site],
                                      "max_pages": 50, "delay_seconds": 0}).json()
    assert holder.post(f"sites/{site['id']}/scan/", json={}).status_code == 403
    assert not ScanRun.objects.filter(site_id=site["id"]).exists()
    started = staff.post(f"sites/{site['id']}/scan/", json={})
    assert started.status_code == 201, started.text
    done = _wait_done(staff, started.json()["id"])
    assert done["status"] == "finished", done
    assert (done["pages_fetched"], done["pages_new"], done["errors"]) == (PAGES + 1, PAGES + 1, {})
    assert holder.post(f"scans/{done['id']}/cancel/").status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_scan_cancelled_through_the_api_ends_cancelled(scenario, api, idle_worker,
                                                         loopback_site):
    staff = api(scenario.users.staff)
    site = staff.post("sites/", json={"name": "slow", "start_urls": [loopback_site],
                                      "max_pages": 50, "delay_seconds": 2}).json()
    scan = staff.post(f"sites/{site['id']}/scan/", json={}).json()
    cancelled = staff.post(f"scans/{scan['id']}/cancel/")
    assert cancelled.status_code == 200, cancelled.text
    done = _wait_done(staff, scan["id"])
    assert done["status"] == "cancelled" and done["pages_fetched"] < PAGES + 1, done
    time.sleep(3)  # nothing fetched after the cancel
    assert staff.get(f"scans/{scan['id']}/").json()["pages_fetched"] == done["pages_fetched"]
