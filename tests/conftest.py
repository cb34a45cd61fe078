"""Test-suite servers and fixtures: a real MongoDB, a real Redis and a real Celery worker.

Servers. PostgreSQL, MongoDB and Redis are started once per session, by the first test that
needs one (the ``session_servers`` fixture, which the database, MongoDB and Redis fixtures request), on
free loopback ports under a temporary folder (lib.runtime.embedded), exported as
DATABASE_URL / MONGO_URL / REDIS_URL, and stopped at the end; a run of tests that need none
(``make test-fast``) starts none. Set TEST_DATABASE_URL / TEST_MONGO_URL / TEST_REDIS_URL to use
servers of your own instead. pytest-django imports the Django settings *before* this file runs,
so the already-loaded settings (DATABASES, MONGO_URL, REDIS_URL, Celery's broker and result
backend, TRACKER_VAR_DIR, MEDIA_ROOT) are pointed at the session's servers and folder.

Markers (MARKERS): each test is marked ``services``, ``worker``, ``drill``, ``multihost`` or
``browser`` by its fixtures and folder in ``pytest_collection_modifyitems``; a test that takes
seconds on its own is marked ``slow`` by hand, and ``make test-fast`` leaves it to ``make test``.
Code reaches the services through ``core.connections`` (settings read at call time).

The demo time-stamping authority (lib.evidence.demo_tsa) runs on loopback for the
session; the settings and the worker's environment name it (TRACKER_TSA_URLS), so evidence
captures are timestamped as under `make run`.

Set TRACKER_TEST_KEEP=1 to keep the session folder (worker log, test database) afterwards.

Database. The Django test database ("test_" + the database name) lives on the session's
PostgreSQL server, where the Celery worker subprocess connects to it too. Tests that involve
the worker must use
``transactional_db`` or ``@pytest.mark.django_db(transaction=True)``: with the plain ``db``
fixture the test's rows stay inside an uncommitted transaction the worker cannot see.

Fixtures:
    mongo_url, redis_url (session): the servers' URLs.
    mongo_db: a fresh pymongo Database for one test, dropped afterwards.
    redis_client: redis.Redis on database 15, flushed before and after the test.
    worker_env (session): a function returning the environment of a Celery worker subprocess
        on the test database and the session's servers (keyword arguments override it).
    celery_worker (session): a real ``celery -A tracker worker`` subprocess consuming the
        queues default, ingest, crawl and match (prefork pool, 2 processes), with the test
        database, MongoDB and Redis; yields its node name. Its log is printed on failure to
        start and kept at ``<session folder>/celery-worker.log``. Tasks are sent with
        ``.delay()`` as in production; wait for their effect (e.g. ``AsyncResult.get(timeout=)``,
        or poll the database) instead of sleeping a fixed time. Retries of ingestion start
        after 1 s in this worker (TRACKER_INGEST_RETRY_BASE=1).
    idle_worker: the same worker with the queues purged and tasks left by earlier tests revoked
        or finished; use it when leftover tasks could act on this test's rows.
    indexed_chapter: a function registering the chapter of tests/chapter.py as an indexed
        work (with platform_stores).
    platform_stores: empties the platform's MongoDB database (settings.MONGO_DB) and removes
        every work from the Redis fingerprint index (settings.FINGERPRINT_INDEX_PREFIX) before
        and after a test; yields (pymongo Database, redis.Redis). Use it in tests that ingest
        works. Do not delete the index's keys wholesale in tests that share the session
        worker: RedisIndex caches work numbers per process, and a reset sequence would reuse
        them (see test_reindex_rebuilds_the_index_after_a_redis_loss for a private prefix).
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from lib.runtime import embedded

#: The loopback test site and crawl fixtures of tests/crawler/ and tests/lib/crawl/.
pytest_plugins = ["tests.loopback_site"]

TESTS = Path(__file__).resolve().parent
_started: list[embedded.Service] = []
_stops: list = []  # other things started for the session: their stop functions
_tmp: Path | None = None
_servers_up = False
_worker_nodes: list[str] = []  # the Celery worker started in this process (node name), if any


def _point_django_at_folder(tmp: Path) -> None:
    """Point the (already loaded) Django settings at the session folder's data folder."""
    from django.conf import settings

    var = tmp / "var"
    var.mkdir(parents=True, exist_ok=True)
    settings.VAR_DIR = var
    settings.MEDIA_ROOT = str(var / "media")
    settings.STATIC_ROOT = str(var / "static")
    (var / "static").mkdir(exist_ok=True)
    settings.EVIDENCE_DIR = var / "evidence"
    settings.EVIDENCE_SIGNING_DIR = var / "signing"  # the worker signs bundles with that key


def _forget_open_caches() -> None:
    """Drop the cache clients opened before the servers started (a test that needs none may
    touch the cache): they hold Redis's default address. The next use opens them afresh."""
    from asgiref.local import Local
    from django.core.cache import caches

    caches.close_all()
    caches._connections = Local(caches.thread_critical)


def _point_django_at(database: str, mongo: str, redis_url: str, tmp: Path) -> None:
    """Point the (already loaded) Django settings and the Celery app at the session's servers."""
    import environ
    from django.conf import settings

    from tracker.celery import app
    from tracker.settings import base as project_settings

    settings.MONGO_URL = mongo
    settings.MONGO_JOURNALED_WRITES = os.environ.get("TRACKER_MONGO_JOURNAL") != "0"
    settings.REDIS_URL = redis_url
    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = redis_url
    settings.CACHES["default"]["LOCATION"] = project_settings.redis_cache_url(
        redis_url, settings.CACHE_REDIS_DB)
    _forget_open_caches()
    # In place: django.db.connections holds this very dict.
    default = settings.DATABASES["default"]
    options = default.get("OPTIONS", {})
    default.update(environ.Env.db_url_config(database))
    default["OPTIONS"] = options
    if default["ENGINE"].endswith("sqlite3"):  # a file the worker subprocess can open too
        default["TEST"] = {"NAME": str(tmp / "test-db.sqlite3")}
    settings.DATABASE_URL = database
    app.conf.update(broker_url=redis_url, result_backend=redis_url)


@pytest.fixture
def server_tmp_path() -> Path:
    """A new empty folder for a test's own servers, that every account may traverse (o+x, as a
    clone in an ordinary folder): under root, the embedded PostgreSQL's account keeps its
    cluster there. pytest's ``tmp_path`` would not do: pytest makes /tmp/pytest-of-<user> mode
    700 again whenever a session starts. Removed with the session's folder."""
    folder = Path(tempfile.mkdtemp(prefix="servers-", dir=_tmp))
    folder.chmod(0o711)
    return folder


#: Markers, applied in pytest_collection_modifyitems: what a test needs besides Python.
MARKERS = {
    "services": "needs PostgreSQL, MongoDB or Redis (started lazily, once per session)",
    "worker": "needs the session's Celery worker subprocess",
    "drill": "a fault drill (tests/platform/faults/): private servers killed and restarted",
    "browser": "needs headless Chromium (/usr/bin/chromium)",
    "multihost": "a deployment over network namespaces (tests/platform/multihost/): root, `ip`",
    "slow": "seconds on its own (a whole-project subprocess, a bomb, a corpus run): in make test only",
}
#: Fixtures whose presence in a test's closure means it talks to a server.
_SERVICE_FIXTURES = {"session_servers", "django_db_setup", "cluster"}


def pytest_configure(config):
    global _tmp
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    _tmp = Path(tempfile.mkdtemp(prefix="tracker-test-"))
    _tmp.chmod(0o711)  # PostgreSQL's account (under root) reaches its cluster inside
    os.environ["TRACKER_VAR_DIR"] = str(_tmp / "var")
    _point_django_at_folder(_tmp)


def _start_servers() -> None:
    """Start PostgreSQL, MongoDB and Redis (each unless TEST_*_URL names one) on free loopback
    ports under the session folder, once, and point the environment and Django at them."""
    global _servers_up
    if _servers_up:
        return
    _servers_up = True
    database = os.environ.get("TEST_DATABASE_URL")
    if not database:
        service = embedded.start_postgres(_tmp / "postgres", durable=False)
        _started.append(service)
        database = service.url
    mongo = os.environ.get("TEST_MONGO_URL")
    if not mongo:
        service = embedded.start_mongo(_tmp / "mongo", journal=False)
        _started.append(service)
        mongo = service.url
        os.environ["TRACKER_MONGO_JOURNAL"] = "0"  # no journal: no journaled writes (workers)
    redis = os.environ.get("TEST_REDIS_URL")
    if not redis:
        service = embedded.start_redis(_tmp / "redis", persist=False)
        _started.append(service)
        redis = service.url
    os.environ["DATABASE_URL"] = database
    os.environ["MONGO_URL"] = mongo
    os.environ["REDIS_URL"] = redis
    _point_django_at(database, mongo, redis, _tmp)
    _start_demo_tsa(_tmp / "demo-tsa")
    _start_rdap()


def _start_demo_tsa(folder: Path) -> None:
    """The demo time-stamping authority on loopback for this process and the worker: evidence
    captures are timestamped by it (TRACKER_TSA_URLS, TRACKER_TSA_TRUSTED_CERTS)."""
    from django.conf import settings

    from lib.evidence.demo_tsa import start_demo_tsa

    tsa = start_demo_tsa(folder)
    _stops.append(tsa.stop)
    os.environ["TRACKER_TSA_URLS"] = tsa.url
    os.environ["TRACKER_TSA_TRUSTED_CERTS"] = str(tsa.ca_cert_path)
    settings.TSA_URLS, settings.TSA_TRUSTED_CERTS = [tsa.url], [str(tsa.ca_cert_path)]


_rdap = []


def _start_rdap() -> None:
    """A loopback RDAP and bootstrap server (lib.crawl.rdap_server) for this process and the
    worker (TRACKER_RDAP_BOOTSTRAP_URL), with short retries; tests set its answers through the
    ``rdap`` fixture. No RDAP request leaves the machine."""
    from django.conf import settings

    from lib.crawl import rdap_server

    server = rdap_server.serve()
    _rdap.append(server)
    _stops.append(server.stop)
    os.environ.update({"TRACKER_RDAP_BOOTSTRAP_URL": server.url + "/",
                       "TRACKER_RDAP_RETRY_BASE": "1", "TRACKER_RDAP_RETRY_MAX": "3",
                       "TRACKER_RDAP_TIMEOUT": "2"})
    settings.RDAP_BOOTSTRAP_URL = server.url + "/"
    settings.RDAP_RETRY_BASE_SECONDS, settings.RDAP_RETRY_MAX_SECONDS = 1.0, 3.0
    settings.RDAP_TIMEOUT_SECONDS = 2.0


@pytest.fixture
def rdap(session_servers):
    """The session's loopback RDAP server (seen by this process and the worker), its answers
    reset to bootstrap files sending the TLD "example" and 127.0.0.0/8 to it (every other path:
    404), its ``hits`` emptied. Yields the RdapServer."""
    from lib.crawl import rdap_server

    server = _rdap[0]
    server.answers.clear()
    server.answers.update(rdap_server.bootstrap(server.url, ["example"], ["127.0.0.0/8"]))
    server.hits.clear()
    yield server
    server.answers.clear()


def pytest_collection_finish(session):
    """Move what collection made (imported modules, test items) out of the garbage collector's
    reach: it lives to the end, and every full collection would walk it again (gc.freeze)."""
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """Mark each test by what it needs (MARKERS), from its fixtures and its folder, so that
    ``-m "not services and not worker and not drill and not browser"`` (make test-fast) keeps
    the tests that need no server."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        needs = set()
        if names & _SERVICE_FIXTURES or item.get_closest_marker("django_db"):
            needs.add("services")
        if "celery_worker" in names:
            needs.add("worker")
        folders = (item.path.relative_to(TESTS).parts if item.path.is_relative_to(TESTS)
                   else item.path.parts)  # not the clone's own path: it may be ".../faults/"
        if "faults" in folders:
            needs |= {"drill", "services"}
        if "multihost" in folders:  # servers of its own, no session server
            needs |= {"drill", "multihost"}
        if "chromium" in names:
            needs.add("browser")
        for name in needs - {mark.name for mark in item.iter_markers()}:
            item.add_marker(name)


# Skips that CI does not accept where the test can run (TRACKER_TEST_STRICT_SKIPS=1, set by
# .ci/run as root): the reason's prefix -> whether this machine can run such a test
STRICT_SKIP_PREFIXES = ("browser test", "multi-host test", "PDF report")


def _can_run(reason: str) -> bool:
    if reason.startswith("multi-host test"):
        from tests.platform.multihost.network import unavailable_reason

        return unavailable_reason() is None
    return Path("/usr/bin/chromium").exists()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under TRACKER_TEST_STRICT_SKIPS=1 a browser, multi-host, PDF or drill test skipped on a
    machine that can run it fails, saying why it was skipped: CI cannot pass quietly without
    its hardest tests."""
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and os.environ.get("TRACKER_TEST_STRICT_SKIPS") == "1"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    known = reason.startswith(STRICT_SKIP_PREFIXES)
    if (known and _can_run(reason)) or (not known and item.get_closest_marker("drill")):
        report.outcome = "failed"
        report.longrepr = f"skipped on a machine that can run it (TRACKER_TEST_STRICT_SKIPS=1): {reason}"


@pytest.fixture(scope="session")
def session_servers() -> None:
    """The session's PostgreSQL, MongoDB and Redis, started on first use (see the module)."""
    _start_servers()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(session_servers, django_db_modify_db_settings_parallel_suffix) -> None:
    """pytest-django's hook before it creates the test database: start the servers first."""


@pytest.fixture(autouse=True)
def _servers_of_marked_tests(request) -> None:
    """Start the servers for a test marked ``services`` by its folder rather than a fixture."""
    if request.node.get_closest_marker("services"):
        request.getfixturevalue("session_servers")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Before a transactional test's fixtures are torn down (its tables flushed), settle this
    process's Celery worker (``settle_worker``: the follow-ups the test set off, a crawl, an
    alert, an evidence capture, indexing, dropped or finished): one holding a table lock
    deadlocks the flush. Best effort: 60 s at most (a drill may leave a long task), nothing
    raised. Then the flush's connection waits ``FLUSH_DEADLOCK_TIMEOUT`` before it looks for a
    deadlock: what still runs (a request the live server was answering as the browser closed)
    meets a deadlock first and is the transaction PostgreSQL aborts, not the flush (the
    waiter that checks first is the victim; ``deadlock_timeout`` is 1 s elsewhere)."""
    transactional = {"transactional_db", "live_server"} & set(item.fixturenames) or any(
        marker.kwargs.get("transaction") for marker in item.iter_markers("django_db"))
    if _worker_nodes and transactional:
        with contextlib.suppress(RuntimeError):  # best effort: the next idle_worker says so
            settle_worker(list(_worker_nodes))
    if transactional:
        _patient_flush()
    yield


FLUSH_DEADLOCK_TIMEOUT = "10s"


def _patient_flush() -> None:
    """Give this thread's PostgreSQL connection (the one pytest-django flushes with) a
    ``deadlock_timeout`` of ``FLUSH_DEADLOCK_TIMEOUT`` (a superuser setting: the embedded
    server's role is one; another server's role may not be, and then nothing changes)."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return
    with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
        cursor.execute(f"SET deadlock_timeout = '{FLUSH_DEADLOCK_TIMEOUT}'")


def settle_worker(nodes: list[str], seconds: float = 60.0) -> None:
    """Leave the Celery workers ``nodes`` with nothing to do: queued messages purged, reserved
    and scheduled (countdown/retry) tasks revoked (a worker drops them when they fall due),
    running tasks finished. Checking the running tasks alone is not enough: between two
    prefetched follow-ups (a bulk import queues one indexing task per work) none runs.

    Raises:
        RuntimeError: tasks were still running, or a worker did not answer, after ``seconds``.
    """
    import time

    from tracker.celery import app

    inspect = app.control.inspect(destination=nodes, timeout=2.0)
    deadline = time.monotonic() + seconds

    def ask(method: str) -> list:
        """The workers' answer to ``inspect.METHOD()``: asked again until they answer (a busy
        machine can delay a reply past the timeout; no reply is not "nothing")."""
        while (reply := getattr(inspect, method)()) is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not answer inspect {method}")
        return [task for tasks in reply.values() for task in tasks]

    app.control.purge()
    for task in ask("reserved") + ask("scheduled"):
        app.control.revoke(task.get("id") or task["request"]["id"])
    while ask("active"):
        if time.monotonic() > deadline:
            raise RuntimeError("the Celery worker still runs tasks of earlier tests")
        time.sleep(0.2)
    app.control.purge()


def pytest_report_header(config):
    chromium = Path("/usr/bin/chromium")
    given = [name for name in ("TEST_DATABASE_URL", "TEST_MONGO_URL", "TEST_REDIS_URL")
             if os.environ.get(name)]
    return ["servers: PostgreSQL, MongoDB and Redis start on the first test that needs one"
            + (f" (given: {', '.join(given)})" if given else " (embedded)"),
            f"browser tests: {'run with ' + str(chromium) if chromium.exists() else 'SKIPPED (no ' + str(chromium) + '; apt-get install chromium fonts-noto-cjk)'}"]


def pytest_terminal_summary(terminalreporter):
    """Say plainly what was skipped and why, grouped by reason."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons: dict[str, int] = {}
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    terminalreporter.write_sep("=", f"{len(skipped)} tests SKIPPED", yellow=True, bold=True)
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"  {count:4d} x {reason}")


def pytest_unconfigure(config):
    for stop in _stops:
        stop()
    for service in _started:
        service.stop()
    if _tmp and os.environ.get("TRACKER_TEST_KEEP"):
        print(f"\nsession folder kept (TRACKER_TEST_KEEP): {_tmp}")
    elif _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def mongo_url(session_servers) -> str:
    """URL of the session's MongoDB server."""
    return os.environ["MONGO_URL"]


@pytest.fixture(scope="session")
def redis_url(session_servers) -> str:
    """URL of the session's Redis server (database 0, shared with Celery's broker)."""
    return os.environ["REDIS_URL"]


@pytest.fixture
def mongo_db(mongo_url):
    """A pymongo Database with a unique name for this test, dropped afterwards."""
    import pymongo

    client = pymongo.MongoClient(mongo_url, serverSelectionTimeoutMS=5000)
    name = f"test_{uuid.uuid4().hex[:12]}"
    yield client[name]
    client.drop_database(name)
    client.close()


@pytest.fixture
def redis_client(redis_url):
    """A redis.Redis on database 15 of the session's server, emptied before and after the test."""
    import redis

    url = redis_url.rsplit("/", 1)[0] + "/15"
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


def _empty_platform_stores() -> None:
    from django.conf import settings

    from core.connections import get_index_redis, get_mongo_db, get_redis
    from fingerprint.index import RedisIndex

    db = get_mongo_db()
    db.client.drop_database(db.name)
    # Remove works one by one rather than deleting the keys: the work-number sequence
    # survives, so numbers are never reused and no process's cached number -> id goes stale.
    # The rewrite stage's keys too (core.engine: the index prefix + "-rw"): a work an
    # earlier test registered would otherwise still hold them, and a later test's work of the
    # same text would find its sentences shared, i.e. template text.
    prefix = settings.FINGERPRINT_INDEX_PREFIX
    for index in (RedisIndex(get_index_redis(), prefix=prefix),
                  RedisIndex(get_index_redis(), prefix=f"{prefix}-rw")):
        for work_id in list(index.work_ids()):
            index.remove(work_id)
    # Crawl state (frontiers, robots.txt, politeness, the stored-page search's "pass scheduled"
    # flag, which an earlier test's revoked task would leave set until its TTL), and web search
    # state (each provider's queries today and refused keys: crawler.search_discovery).
    redis = get_redis()
    for pattern in ("crawl:*", "search:*"):
        for key in redis.scan_iter(match=pattern, count=1000):
            redis.delete(key)


@pytest.fixture
def platform_stores(session_servers):
    """The platform's MongoDB database and Redis client, emptied (index, works, crawl state)
    before and after the test."""
    from core.connections import get_mongo_db, get_redis

    _empty_platform_stores()
    yield get_mongo_db(), get_redis()
    _empty_platform_stores()


@pytest.fixture(scope="session")
def worker_env(django_db_setup):
    """A function building the environment of a Celery worker subprocess for the tests: the
    test database on the session's PostgreSQL, the session's MongoDB, Redis and folder, and
    ingestion retries after 1 s; keyword arguments (str) override variables.

    Returns:
        Callable[..., dict[str, str]].
    """
    from django.conf import settings

    from lib.runtime import supervisor

    # The test database's name after django_db_setup (it renamed NAME to "test_...").
    test_db = settings.DATABASES["default"]["NAME"]
    database = settings.DATABASE_URL.rsplit("/", 1)[0] + f"/{test_db}"
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        database = f"sqlite:///{test_db}"

    def build(**overrides: str) -> dict[str, str]:
        return supervisor.child_env(**{
            "DATABASE_URL": database, "MONGO_URL": settings.MONGO_URL,
            "REDIS_URL": settings.REDIS_URL, "TRACKER_VAR_DIR": str(settings.VAR_DIR),
            "MEDIA_ROOT": str(settings.MEDIA_ROOT), "TRACKER_INGEST_RETRY_BASE": "1",
            "DJANGO_SETTINGS_MODULE": "tracker.settings.test",
            **overrides})

    return build


@pytest.fixture(scope="session")
def celery_worker(worker_env, django_db_blocker):
    """A real Celery worker subprocess on the session's Redis, MongoDB and test database.

    Yields:
        The worker's node name (str), e.g. ``test-1a2b3c@hostname``.

    Raises:
        RuntimeError: the worker did not answer a ping within 90 seconds (the message holds
            the tail of its log).
    """
    from django.conf import settings

    from lib.runtime import supervisor
    from tracker.celery import app

    name = f"test-{uuid.uuid4().hex[:6]}"
    env = worker_env()
    log = Path(settings.VAR_DIR) / "celery-worker.log"
    proc = supervisor.start_worker(env, log, name, settings.WORKER_QUEUES, cwd=settings.BASE_DIR)
    try:
        supervisor.wait_until_ready(app, proc, name, log, settings.WORKER_READY_TIMEOUT_SECONDS)
        _worker_nodes.append(supervisor.node_name(name))
        yield supervisor.node_name(name)
    finally:
        _worker_nodes.clear()
        supervisor.stop(proc)


@pytest.fixture
def idle_worker(celery_worker):
    """The session's worker with nothing left from earlier tests: queued messages purged,
    reserved and scheduled (countdown/retry) tasks revoked (the worker drops them when they
    fall due), running tasks finished.

    Use it instead of ``celery_worker`` when earlier tests may leave tasks behind: after a
    transactional test the database is emptied, and a leftover task could act on this
    test's rows (with SQLite even under the same ids).

    Yields:
        The worker's node name (str).

    Raises:
        RuntimeError: tasks were still running, or the worker did not answer, after 60 s.
    """
    settle_worker([celery_worker])
    yield celery_worker


@pytest.fixture
def settled_worker(idle_worker, transactional_db):
    """``idle_worker`` on a transactional database (its tables flushed after the test, once
    the worker runs no task: ``pytest_runtest_teardown``)."""
    return idle_worker


@pytest.fixture
def indexed_chapter(platform_stores):
    """A function ``indexed_chapter(holder=None) -> Work``: the chapter of tests/chapter.py
    registered as the indexed work XYJ-1 "西游记" by 吴承恩 (one section 第一回) of ``holder``
    (default: a new holder "测试出版社"), its fingerprints added to the platform's engine, as
    a finished ingestion leaves it; the stores are emptied around the test."""
    from django.utils import timezone

    from core.engine import get_engine
    from core.models import RightsHolder, Work
    from tests.chapter import CHAPTER

    def index(holder=None) -> Work:
        holder = holder or RightsHolder.objects.create(name="测试出版社")
        work = Work.objects.create(
            holder=holder, reference="XYJ-1", title="西游记", author="吴承恩", kind="novel",
            length=len(CHAPTER), status="indexed", indexed_at=timezone.now(),
            sections=[{"title": "第一回", "start": 0, "end": len(CHAPTER)}])
        get_engine().add_work(work.engine_id, CHAPTER)
        return work

    return index
