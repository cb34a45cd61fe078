"""works/upload/ over real HTTP with a real worker: 202 with the job's URL, then the job polled
until it ends with the work, or failed with the upload's code and message in the uploader's
language; another holder's job is a 404."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from core import text_extraction
from core.models import ImportJob, ImportKind, Work
from tests.dashboard.test_api import Api, token_for
from tests.waiting import wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]
TEXT = ("第一章 山中\n" + "清晨的雾气笼罩着山谷，溪水绕过石桥向东流去。" * 20 +
        "\n第二章 归途\n" + "傍晚时分，樵夫挑着柴担沿小路慢慢走回村子。" * 20)


@pytest.fixture
def api(live_server):
    """Factory ``api(user, language="en") -> Api``."""
    return lambda user, language="en": Api(live_server.url, token_for(user), language)


def _settled(client: Api, url: str, timeout: float = 90.0) -> dict:
    return wait_for(lambda: (body := client.session.get(url, timeout=30).json())["state"]
                    != "running" and body, timeout, f"the end of the job {url}")


def test_an_upload_is_202_then_its_job_ends_with_the_work(scenario, api, idle_worker):
    client = api(scenario.users.holder_a)
    answer = client.post("works/upload/", data={"reference": "SHAN-1", "kind": "novel"},
                         files={"file": ("山中.txt", TEXT.encode("utf-8"))})
    assert answer.status_code == 202, answer.text
    job = answer.json()
    assert answer.headers["Location"] == job["url"] and job["url"].endswith(
        f"/api/v1/imports/{job['id']}/")
    assert (job["kind"], job["name"], job["work"], job["error"]) == ("file", "山中.txt", None,
                                                                     None)
    done = _settled(client, job["url"])
    assert (done["state"], done["outcome"], done["done"], done["total"]) == (
        "finished", "registered", 3, 3)
    work = client.get(f"works/{done['work']}/").json()
    assert (work["reference"], work["kind"], work["source_name"]) == ("SHAN-1", "novel",
                                                                      "山中.txt")
    assert work["chapters"] == 2
    listed = client.get("imports/", params={"state": "finished"}).json()
    assert [row["id"] for row in listed["results"]] == [job["id"]]
    assert api(scenario.users.holder_b).get(f"imports/{job['id']}/").status_code == 404


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_file_its_job_cannot_read_ends_failed_with_the_dashboards_error(
        scenario, api, idle_worker, language, settings):
    """A mislabelled file and a text over WORK_TEXT_MAX_CHARS characters: the job fails with
    the code and message the dashboard's form gives, in the uploader's language."""
    client = api(scenario.users.holder_a, language)
    for name, data in [("fake.pdf", b"just some plain text, not a PDF at all"),
                       ("long.txt", b"x" * (settings.WORK_TEXT_MAX_CHARS + 1))]:
        with translation.override(language):
            try:
                text_extraction.extract_file(name, data)
            except text_extraction.UploadError as exc:
                expected = {"code": exc.code, "message": str(exc), "fields": {}}
        answer = client.post("works/upload/", data={"reference": name},
                             files={"file": (name, data)})
        assert answer.status_code == 202, answer.text
        failed = _settled(client, answer.json()["url"])
        assert (failed["state"], failed["error"], failed["work"]) == ("failed", expected, None)
    assert not Work.objects.filter(reference__in=["fake.pdf", "long.txt"]).exists()
    assert ImportJob.objects.filter(state="failed").count() == 2


def test_polling_a_job_whose_worker_was_lost_fails_it_and_only_it(scenario, api, settings):
    """A running job whose progress has not moved for IMPORT_STUCK_SECONDS is failed
    ("stalled", in the reader's language) when polled; another holder's running job, as stale,
    is left to the sweeper."""
    stale = timezone.now() - timedelta(seconds=settings.IMPORT_STUCK_SECONDS + 1)
    jobs = [ImportJob.objects.create(holder=holder, user=scenario.users.holder_a, name="lost.txt",
                                     kind=ImportKind.FILE, options={"reference": "lost"})
            for holder in (scenario.a, scenario.b)]
    ImportJob.objects.filter(pk__in=[job.pk for job in jobs]).update(updated_at=stale)
    polled = api(scenario.users.holder_a, "zh-hans").get(f"imports/{jobs[0].pk}/").json()
    assert (polled["state"], polled["error"]["code"], polled["error"]["message"]) == (
        "failed", "stalled", "导入已停止（其后台进程丢失）；请重新上传文件。")
    assert ImportJob.objects.get(pk=jobs[1].pk).state == "running"
