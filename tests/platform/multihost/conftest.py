"""Fixtures of the multi-host tests: the deployment of ``deployment.py`` over network
namespaces, made once for the module, with a registered and indexed work, a staff user's API
token, and loopback sites served on the bridge.

The tests here are marked ``multihost`` and ``drill`` (tests/conftest.py): they need root and
`ip` (they are skipped with the reason otherwise) and no session server: this process's
settings point at the deployment's servers while they run.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.platform.faults.conftest import DrillSite
from tests.platform.multihost import deployment as deploy
from tests.platform.multihost.network import unavailable_reason

#: Seconds a scan may take at most, a lost host or a failover included.
SCAN_TIMEOUT = 150.0
NEWS = "本市今日召开会议，部署下一阶段的交通治理工作，相关部门负责人出席会议并讲话。" * 8


@dataclass
class Hosted:
    """What the tests use: the deployment, its live workers, the work's text, the API."""

    deployment: deploy.Deployment
    workers: list
    novel: str
    token: str
    sites: list

    def site(self, pages: int, delay: float) -> DrillSite:
        """A site on the bridge of ``pages`` pages (every third a reprint of the work),
        each answered after ``delay`` seconds; closed with the deployment."""
        site = DrillSite([self.novel[2000:4000], NEWS, NEWS.replace("交通", "环境")], pages,
                         delay, address=self.deployment.site_address)
        self.sites.append(site)
        return site

    def api(self, method: str, path: str, **kwargs) -> dict:
        """Call the web host's REST API as the staff user; returns the JSON answer."""
        answer = requests.request(method, f"{self.deployment.web_url}/api/v1/{path}",
                                  headers={"Authorization": f"Bearer {self.token}",
                                           "Accept-Language": "en"}, timeout=30, **kwargs)
        assert answer.status_code in (200, 201), (answer.status_code, answer.text[:2000])
        return answer.json()

    def start_scan(self, site: DrillSite) -> int:
        """Create a target site for ``site`` and start its scan through the web host's API;
        returns the scan's id."""
        target = self.api("post", "sites/", json={
            "name": f"site {len(self.sites)} {time.monotonic()}", "start_urls": [site.url],
            "allowed_domains": [self.deployment.site_address], "max_pages": 500,
            "delay_seconds": 0})
        return self.api("post", f"sites/{target['id']}/scan/", json={})["id"]

    def wait_done(self, scan_id: int) -> dict:
        """The scan's API answer once it is no longer running (AssertionError after
        SCAN_TIMEOUT seconds)."""
        return deploy.wait_until(
            lambda: (got := self.api("get", f"scans/{scan_id}/"))["status"] != "running"
            and got, f"scan {scan_id} finished", timeout=SCAN_TIMEOUT, poll=0.5)


@pytest.fixture(scope="module")
def hosted(django_db_blocker):
    """The deployment (web, two worker hosts, three data hosts), its web, beat and workers
    running, one work indexed; everything stopped and removed afterwards, also on failure.

    Yields:
        Hosted.
    """
    if reason := unavailable_reason():
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="multihost-"))
    folder.chmod(0o711)  # under root PostgreSQL's account reaches its cluster inside
    with django_db_blocker.unblock():
        made, saved = deploy.build(folder)
        made_sites: list = []
        try:
            workers = made.start_workers(made.workers)
            made.start_web()
            yield Hosted(made, workers, *_seed(), made_sites)
        finally:
            for site in made_sites:
                site.close()
            made.point_back(saved)
            made.close()
            shutil.rmtree(folder, ignore_errors=True)


def _seed() -> tuple[str, str]:
    """The demo novel registered and indexed (deployment.index_work) and a platform staff
    user's API token; returns (the work's text, the raw token)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from core.roles import STAFF_GROUP
    from dashboard.models import ApiToken

    novel = deploy.index_work()
    staff = get_user_model().objects.create_user("staff", password="pw-staff", is_staff=True)
    staff.groups.add(Group.objects.get(name=STAFF_GROUP))
    token = ApiToken(user=staff, name="multihost")
    raw = token.issue()
    token.save()
    return novel, raw


@pytest.fixture(autouse=True)
def _database_access(django_db_blocker):
    """The tests read the deployment's database (not pytest-django's test database)."""
    with django_db_blocker.unblock():
        yield
