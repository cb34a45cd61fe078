"""Fault drills: real servers and real Celery workers, killed and started again.

Each drill runs on a PRIVATE MongoDB and Redis (``private_stack``), never on the session's
shared servers, with its own Celery workers; the test database stays the session's
PostgreSQL test database. The test process's settings and Celery app are pointed at the private
servers for the drill and back afterwards. Drills wait for events (a count reached, a status
changed), bounded by DRILL_TIMEOUT seconds, never for fixed times.
"""

from __future__ import annotations

import io
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings

from lib.runtime import embedded, supervisor
from lib.runtime.serving import serve_in_thread

#: Seconds a drill waits at most for one event (a scan finished, works indexed).
DRILL_TIMEOUT = 180.0
#: Crawler settings of the drills' workers: loopback allowed, fast retries, no politeness delay.
CRAWLER_ENV = {"CRAWLER_ALLOW_ADDRESSES": "127.0.0.1", "CRAWLER_READ_TIMEOUT": "2",
               "CRAWLER_RETRY_BASE_SECONDS": "0.2", "CRAWLER_MAX_RETRIES": "2",
               "CRAWLER_DEFAULT_DELAY_SECONDS": "0"}


def wait_until(condition, what: str, timeout: float = DRILL_TIMEOUT, poll: float = 0.2):
    """Call ``condition()`` until it returns a true value, which is returned; AssertionError
    naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(poll)
    return value


@dataclass
class Stack:
    """A drill's private servers and workers.

    Attributes:
        folder: the drill's folder (server data, worker logs).
        mongo, redis: the private servers (lib.runtime.embedded.Service).
        env: the environment of the drill's worker subprocesses.
        procs: the worker processes started by ``start_worker`` (stopped at the end).
    """

    folder: Path
    mongo: embedded.Service
    redis: embedded.Service
    env: dict
    procs: list = field(default_factory=list)

    def start_worker(self, **overrides: str):
        """Start a Celery worker on every queue with this stack's environment (``overrides``
        added) and wait until it answers; returns its Popen."""
        from tracker.celery import app

        name = f"drill-{uuid.uuid4().hex[:6]}"
        log = self.folder / f"{name}.log"
        # cwd: the repository root, as for the session's worker (from tests/, the folder
        # tests/fingerprint would shadow the engine package when PYTHONPATH is not set)
        proc = supervisor.start_worker({**self.env, **overrides}, log, name, settings.WORKER_QUEUES,
                                       cwd=settings.BASE_DIR)
        self.procs.append(proc)
        supervisor.wait_until_ready(app, proc, name, log, settings.WORKER_READY_TIMEOUT_SECONDS)
        return proc

    def kill_worker(self, proc) -> None:
        """SIGKILL a worker's main process and its pool processes at once, as the kernel's
        out-of-memory killer or a lost machine would: nothing gives its tasks back."""
        pids = [proc.pid, *_children(proc.pid)]
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        proc.wait()
        wait_until(lambda: not any(_alive(pid) for pid in pids), "worker processes exited",
                   timeout=30)

    def kill_redis(self) -> None:
        """SIGKILL the private Redis (its append-only file keeps what was synced)."""
        os.kill(self.redis.pid, signal.SIGKILL)
        wait_until(lambda: not _alive(self.redis.pid), "Redis exited", timeout=30)

    def restart_redis(self) -> None:
        """Start the killed Redis again on its port and data folder (it reloads its
        append-only file); returns once it listens."""
        self.redis = embedded.start_redis(self.redis.datadir, port=_port(self.redis.url),
                                          persist=True)

    def kill_mongo(self) -> None:
        """SIGKILL the private MongoDB (its journal keeps what was acknowledged)."""
        os.kill(self.mongo.pid, signal.SIGKILL)
        wait_until(lambda: not _alive(self.mongo.pid), "MongoDB exited", timeout=30)

    def restart_mongo(self) -> None:
        """Start the killed MongoDB again on its port and data folder (it recovers from its
        journal); returns once it listens."""
        self.mongo = embedded.start_mongo(self.mongo.datadir, port=_port(self.mongo.url),
                                          journal=True)


def _port(url: str) -> int:
    """The TCP port of a server URL such as ``redis://127.0.0.1:6379/0``."""
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return not Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].startswith("Z")
    except OSError:
        return False


def _point_celery_at(url: str) -> None:
    """Send this process's tasks and read their results through ``url`` from now on."""
    from tracker.celery import app

    app.conf.update(broker_url=url, result_backend=url)
    # Forget the pools, not close them: app.pool is kombu's process-wide pool of that URL,
    # which the tests after the drill use again.
    app._pool = None
    app.amqp._producer_pool = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def private_stack(tmp_path, worker_env, settings):
    """A private MongoDB and Redis, this process pointed at them, and a function to start
    workers on them; everything stopped afterwards and this process pointed back.

    Yields:
        Stack.
    """
    from crawler import scans

    mongo = embedded.start_mongo(tmp_path / "mongo", journal=True)
    redis = embedded.start_redis(tmp_path / "redis", persist=True)
    shared_redis = settings.REDIS_URL
    settings.MONGO_URL, settings.REDIS_URL = mongo.url, redis.url
    settings.MONGO_JOURNALED_WRITES = True  # as in production: the private MongoDB journals
    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = redis.url
    settings.CRAWLER = {**settings.CRAWLER, **{name.removeprefix("CRAWLER_"): value
                                               for name, value in CRAWLER_ENV.items()}}
    _point_celery_at(redis.url)
    scans._crawler.cache_clear()  # this process's crawler, on the private servers
    env = worker_env(MONGO_URL=mongo.url, REDIS_URL=redis.url, CELERY_BROKER_URL=redis.url,
                     CELERY_RESULT_BACKEND=redis.url, TRACKER_MONGO_JOURNAL="1", **CRAWLER_ENV)
    stack = Stack(tmp_path, mongo, redis, env)
    try:
        yield stack
    finally:
        for proc in stack.procs:
            supervisor.stop(proc, timeout=10)
        _point_celery_at(shared_redis)
        scans._crawler.cache_clear()
        stack.redis.stop()
        stack.mongo.stop()


@pytest.fixture
def until():
    """The ``wait_until`` function of this module (test modules cannot import conftest)."""
    return wait_until


@pytest.fixture
def check_platform():
    """A function asserting the end state every drill must reach: no scan running, every work
    indexed, each exactly once in the Redis index, and ``manage.py reindex --check`` finding the
    index equal to a rebuild from MongoDB (it raises CommandError otherwise)."""
    from django.core.management import call_command

    from core.engine import get_engine
    from core.models import Work, WorkStatus
    from crawler.models import ScanRun, ScanStatus

    def check() -> None:
        assert not ScanRun.objects.filter(status=ScanStatus.RUNNING).exists()
        works = {work.engine_id: work.status for work in Work.objects.all()}
        assert set(works.values()) <= {WorkStatus.INDEXED}, works
        indexed = list(get_engine().index.work_ids())
        assert len(indexed) == len(set(indexed)) and set(indexed) == set(works)
        call_command("reindex", "--check", stdout=io.StringIO())

    return check


class DrillSite:
    """A loopback site of ``pages`` pages linked from ``/``, each answered after ``delay``
    seconds; page i holds ``texts[i % len(texts)]``. It listens on ``address`` (another
    address of this host for a site reached from other hosts, tests/platform/multihost).
    ``page_requests`` counts the page requests received so far."""

    def __init__(self, texts: list[str], pages: int, delay: float, address: str = "127.0.0.1"):
        self.texts, self.pages, self.delay = texts, pages, delay
        self.page_requests = 0
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/robots.txt":
                    body = b"User-agent: *\nAllow: /\n"
                    kind = "text/plain"
                elif self.path == "/":
                    body = "".join(f'<a href="/p/{i}.html">{i}</a>'
                                   for i in range(site.pages)).encode()
                    kind = "text/html; charset=utf-8"
                elif self.path.startswith("/p/"):
                    site.page_requests += 1
                    time.sleep(site.delay)
                    i = int(self.path[3:].split(".")[0])
                    text = site.texts[i % len(site.texts)]
                    body = (f"<html><head><title>第{i}页</title></head><body><article><p>"
                            f"{text}</p></article></body></html>").encode()
                    kind = "text/html; charset=utf-8"
                else:
                    self.send_error(404)
                    return
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # its worker was killed
                    pass

        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{address}:{self.server.server_address[1]}/"
        serve_in_thread(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def drill_site():
    """A function ``(texts, pages, delay) -> DrillSite``; the sites are closed afterwards."""
    made = []

    def make(texts: list[str], pages: int = 30, delay: float = 0.2) -> DrillSite:
        made.append(DrillSite(texts, pages, delay))
        return made[-1]

    yield make
    for site in made:
        site.close()


class PrivatePostgres:
    """A drill's PRIVATE PostgreSQL (lib.runtime.embedded), not the session's test database server.

    Attributes:
        datadir: its folder (cluster, log, password, port).
        service: the running embedded.Service (its URL keeps port and password across
            restarts).
    """

    def __init__(self, datadir: Path):
        self.datadir = datadir
        self.start()

    def crash(self) -> None:
        """Stop the server as a crash would: an immediate shutdown (SIGQUIT to the postmaster:
        every connection dropped, no checkpoint, recovery at the next start); returns once
        it has exited."""
        os.kill(self.service.pid, signal.SIGQUIT)
        wait_until(lambda: not _alive(self.service.pid), "PostgreSQL exited", timeout=60)

    def start(self) -> None:
        """Start the server from its folder (again: same port and password). Durable, as in
        production: a commit survives the crash (the test suite's server is not)."""
        self.service = embedded.start_postgres(self.datadir)


@pytest.fixture
def private_postgres(server_tmp_path):
    """A PrivatePostgres under ``server_tmp_path/postgres``, stopped afterwards."""
    server = PrivatePostgres(server_tmp_path / "postgres")
    yield server
    server.service.stop()


@pytest.fixture
def server_env():
    """A function ``(var, **overrides) -> dict``: the environment of a web server, `make run`
    or ``manage.py`` subprocess as a user's would be: no server URL of this test session
    (DATABASE_URL, MONGO_URL, REDIS_URL, ... removed), data folder ``var`` (Path), DEBUG off;
    ``overrides`` (str) added."""
    def build(var: Path, **overrides: str) -> dict[str, str]:
        env = {name: value for name, value in os.environ.items()
               if name not in ("DATABASE_URL", "MONGO_URL", "REDIS_URL", "CELERY_BROKER_URL",
                               "CELERY_RESULT_BACKEND", "MEDIA_ROOT", "STATIC_ROOT")}
        return {**env, "DJANGO_SETTINGS_MODULE": "tracker.settings",
                "TRACKER_VAR_DIR": str(var), "DEBUG": "false", **overrides}

    return build


@pytest.fixture
def dashboard_login():
    """A function ``(base_url, username, password, language) -> requests.Session`` logged in
    to the dashboard through its login form, sending ``Accept-Language: language``."""
    import re

    import requests

    def login(base_url: str, username: str, password: str, language: str = "en"):
        session = requests.Session()
        session.headers["Accept-Language"] = language
        form = session.get(f"{base_url}/login/", timeout=30)
        assert form.status_code == 200, form.text[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        answer = session.post(f"{base_url}/login/?next=/", timeout=30, data={
            "csrfmiddlewaretoken": token, "username": username, "password": password,
            "next": "/"})
        assert answer.status_code == 200 and answer.url.rstrip("/") == base_url, answer.url
        return session

    return login
