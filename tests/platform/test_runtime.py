"""manage.py commands in a second terminal: they find the servers, the time-stamping authority
and the demo search engine `make run` recorded in the data folder's run.env, say which servers
they use, and stop with one line when a server is gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from django.conf import settings

from core.models import Work, WorkStatus
from lib.runtime import embedded
from tests.bundles import evidence_files

pytestmark = pytest.mark.django_db(transaction=True)

SERVER_VARIABLES = ("DATABASE_URL", "MONGO_URL", "REDIS_URL")
TSA_VARIABLES = ("TRACKER_TSA_URLS", "TRACKER_TSA_TRUSTED_CERTS")
SEARCH_VARIABLE = "TRACKER_SEARCH_PROVIDERS"


def _manage(var, *args: str) -> subprocess.CompletedProcess:
    """Run ``manage.py ARGS`` as a user would: no server variable set, data folder ``var``."""
    env = {name: value for name, value in os.environ.items()
           if name not in SERVER_VARIABLES + TSA_VARIABLES + ("SITE_URL", SEARCH_VARIABLE)}
    # The staging folder shared with the session's worker, as `make run` shares VAR_DIR/media.
    env.update(TRACKER_VAR_DIR=str(var), MEDIA_ROOT=str(settings.MEDIA_ROOT),
               DJANGO_SETTINGS_MODULE="tracker.settings")
    return subprocess.run([sys.executable, str(settings.BASE_DIR / "manage.py"), *args],
                          env=env, capture_output=True, text=True, timeout=300)


def _write_run_env(var, **urls: str) -> None:
    var.mkdir(parents=True, exist_ok=True)
    (var / "run.env").write_text("".join(f"{name}={url}\n" for name, url in urls.items()))


@pytest.fixture
def works_file(tmp_path, novel_text):
    path = tmp_path / "works.jsonl"
    path.write_text(json.dumps({"id": "xyj", "title": "西游记", "text": novel_text},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_command_uses_the_servers_recorded_in_run_env(tmp_path, worker_env, celery_worker,
                                                      platform_stores, works_file, wait_for):
    env = worker_env()  # the session's servers, as `make run` would record its own
    var = tmp_path / "var"
    _write_run_env(var, **{name: env[name] for name in SERVER_VARIABLES})
    result = _manage(var, "import_works", str(works_file), "--holder", "出版社甲", "--create-holder",
                     "--no-progress")
    assert result.returncode == 0, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("servers: PostgreSQL") and str(var / "run.env") in first
    assert "password" not in first and env["DATABASE_URL"].split("@")[0] not in first
    assert "registered: 1" in result.stdout
    work = Work.objects.get(reference="xyj", holder__name="出版社甲")
    wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).exists())


def test_servers_gone_gives_one_line_and_no_work(tmp_path, worker_env, works_file):
    env = worker_env()
    var = tmp_path / "var"
    dead = {name: f"{scheme}://127.0.0.1:{embedded.free_port()}{path}" for name, scheme, path in
            (("MONGO_URL", "mongodb", ""), ("REDIS_URL", "redis", "/0"))}
    # All servers gone (a `make run` killed, its run.env left behind): the database fails first.
    _write_run_env(var, DATABASE_URL=f"postgres://u@127.0.0.1:{embedded.free_port()}/x", **dead)
    result = _manage(var, "import_works", str(works_file), "--holder", "出版社甲", "--create-holder")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 2
    assert "DATABASE_URL" in result.stderr and "start `make run` again" in result.stderr
    # Only Redis gone: stopped before registering anything, so nothing waits unqueued.
    _write_run_env(var, DATABASE_URL=env["DATABASE_URL"], MONGO_URL=env["MONGO_URL"],
                   REDIS_URL=dead["REDIS_URL"])
    result = _manage(var, "import_works", str(works_file), "--holder", "出版社甲", "--create-holder")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "REDIS_URL redis://127.0.0.1" in result.stderr.splitlines()[-1]
    assert not Work.objects.exists()


def test_a_bundle_stamped_by_the_runs_authority_verifies_in_a_second_terminal(tmp_path):
    from crawler.evidence.trust import Stamper
    from lib.crawl.exchange import Exchange, Hop
    from lib.evidence.bundle import build_wacz
    from lib.evidence.warc import exchange_warc

    hop = Hop(started=datetime.now(UTC), method="GET", url="http://copy.example/1.html",
              target="/1.html", request_headers=[["Host", "copy.example"]], status=200,
              reason="OK", response_headers=[["Content-Type", "text/html"]],
              body=b"<p>copy</p>", body_complete=True, peer_ip="203.0.113.7", peer_port=80)
    stamper = Stamper()  # the session's demo authority, as the run's worker would ask it
    warc = exchange_warc(Exchange([hop]), software="test")
    bundle = build_wacz(warc, evidence_files(warc), stamp=stamper,
                        main_url=hop.url, captured_at=hop.started, title="copy",
                        description="test", software="test")
    assert stamper.result.status == "stamped", stamper.result
    path = tmp_path / "capture.wacz"
    path.write_bytes(bundle.data)
    var = tmp_path / "var"

    _write_run_env(var)  # no run: nothing says which authority to trust
    untrusted = _manage(var, "verify_evidence", str(path))
    assert untrusted.returncode == 3 and "UNVERIFIED" in untrusted.stdout  # not VALID, not FAIL
    assert "no trusted certificate was given" in untrusted.stdout

    _write_run_env(var, **{name: os.environ[name] for name in TSA_VARIABLES})
    trusted = _manage(var, "verify_evidence", str(path))
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert "RFC 3161 timestamp of" in trusted.stdout and f"VALID: {path}" in trusted.stdout


def test_commands_beside_make_run_link_to_its_port(tmp_path, worker_env, monkeypatch):
    """`make run` on another port than 8000: a command in a second terminal builds its links
    (notices, alerts) to that port, from the run.env the run wrote."""
    from tracker.run import record_run

    env = worker_env()
    var = tmp_path / "var"
    var.mkdir()
    port = embedded.free_port()
    run_environ = {name: value for name, value in os.environ.items() if name != "SITE_URL"}
    monkeypatch.setattr(os, "environ", {**run_environ, **{n: env[n] for n in SERVER_VARIABLES}})
    record_run(var, port)
    result = _manage(var, "shell", "-c",
                     "from django.conf import settings; print(settings.SITE_URL)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"http://127.0.0.1:{port}"


def test_discover_beside_make_run_asks_its_demo_search_engine(tmp_path, worker_env, monkeypatch):
    """`make run` serves its demo search engine and records it in run.env: a command in a second
    terminal asks it, and it answers a phrase of 红楼梦 第二回 with the unlisted demo site's
    page (the site no target site lists)."""
    from tracker.run import _start_demo_search, record_run

    env = worker_env()
    var = tmp_path / "var"
    var.mkdir()
    run_environ = {name: value for name, value in os.environ.items()
                   if name not in ("SITE_URL", SEARCH_VARIABLE)}
    monkeypatch.setattr(os, "environ", {**run_environ, **{n: env[n] for n in SERVER_VARIABLES},
                                        "DEMO_SEARCH_PORT": str(embedded.free_port())})
    stop = _start_demo_search()
    try:
        record_run(var, embedded.free_port())
        result = _manage(var, "shell", "-c", "from crawler.search_discovery import providers; "
                         "print([r.url for r in providers()[0].search('冷子兴演说荣国府', 5)])")
    finally:
        stop()
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "['http://127.0.0.2:8934/book/hongloumeng-02.html']"
