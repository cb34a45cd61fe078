"""The platform deployed over several hosts (network namespaces, ``network.Network``):

- ``web``: PostgreSQL, the Redis of Celery's broker and the crawl state, gunicorn, celery beat;
- ``worker1``, ``worker2``: one Celery worker each (queues default, ingest, crawl, match);
- ``data1``..``data3``: one member each of a MongoDB replica set (written with w=majority) and
  one master each of a Redis Cluster holding the fingerprint index.

The process that builds it (a test, or bench/multihost_bench.py) sits on the bridge: its Django
settings and Celery app are pointed at the deployment's servers, as every host's are, and the
loopback sites it serves are reached at the bridge's address. ``Deployment.close`` stops
everything and points this process back.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pymongo
import redis

from lib.runtime import supervisor

from .network import Host, Network

DEMO_NOVEL = Path(__file__).resolve().parents[3] / "demo" / "works" / "xiyouji-01-03.txt"
REPLICA_SET = "mh"
MONGO_PORT, INDEX_PORT, BROKER_PORT = 27017, 7000, 6379
#: Queues of the worker hosts (no capture or render: no Chromium in the hosts).
QUEUES = ("default", "ingest", "crawl", "match")
#: Seconds to wait for a server, a replica set primary or the cluster to come up; for
#: PostgreSQL to shut down at the end before it is killed.
READY_TIMEOUT, SERVER_STOP_TIMEOUT = 120.0, 15.0
#: Replica set timing: a primary unheard of for ELECTION_TIMEOUT_MS is replaced (MongoDB's
#: default is 10 s; shorter here so that a killed primary is replaced within the test).
ELECTION_TIMEOUT_MS, HEARTBEAT_MS = 2000, 500
#: Environment of every Celery process of the deployment: fast retries while MongoDB elects a
#: primary, a short visibility timeout so that a lost host's unacknowledged tasks come back to
#: the other within seconds (it must exceed the longest retry countdown, STORAGE_RETRY_MAX).
CELERY_ENV = {"TRACKER_CRAWL_RETRY_BASE": "1", "TRACKER_STORAGE_RETRY_MAX": "4",
              "TRACKER_CRAWL_STORAGE_RETRIES": "8", "TRACKER_VISIBILITY_TIMEOUT": "12",
              "TRACKER_UNACKED_RESTORE_INTERVAL": "1", "CRAWLER_READ_TIMEOUT": "5",
              "CRAWLER_RETRY_BASE_SECONDS": "0.2", "CRAWLER_MAX_RETRIES": "2",
              "CRAWLER_DEFAULT_DELAY_SECONDS": "0", "TRACKER_MONGO_JOURNAL": "1",
              "TRACKER_MONGO_WRITE_CONCERN": "majority"}


def wait_until(condition, what: str, timeout: float = READY_TIMEOUT, poll: float = 0.2):
    """Call ``condition()`` until it returns a true value, which is returned; AssertionError
    naming ``what`` after ``timeout`` seconds. Errors of a server not up yet count as false."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if value := condition():
                return value
        except (pymongo.errors.PyMongoError, redis.RedisError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(poll)


@dataclass
class Worker:
    """A Celery worker process running in ``host``, node ``node``, log file ``log``."""

    host: Host
    node: str
    log: Path
    proc: subprocess.Popen


@dataclass
class Deployment:
    """The hosts, the servers' URLs and the Celery processes (see the module).

    Attributes:
        folder: every server's data and every process's log, one sub-folder per host.
        network: the bridge and namespaces.
        web, workers, data: the hosts.
        urls: the servers' URLs as the hosts reach them: "database", "mongo", "broker", "index".
        mongo_members: {member address "IP:PORT": its host}.
        mongo_pids: {data host name: the pid of its mongod}.
        postgres_pid: the pid of the web host's PostgreSQL (postmaster).
        celery: the Popen of every Celery, beat and gunicorn process started here.
        web_url: gunicorn's base URL on the web host, once ``start_web`` returned.
    """

    folder: Path
    network: Network
    web: Host
    workers: list[Host]
    data: list[Host]
    urls: dict = field(default_factory=dict)
    mongo_members: dict = field(default_factory=dict)
    mongo_pids: dict = field(default_factory=dict)
    postgres_pid: int = 0
    celery: list = field(default_factory=list)
    web_url: str = ""

    @property
    def site_address(self) -> str:
        """The address of this process on the bridge: where its loopback sites listen."""
        return self.network.address

    # ---- servers ----------------------------------------------------------------------------

    def start_servers(self) -> None:
        """PostgreSQL and the broker's Redis on the web host; a MongoDB replica set member and
        a Redis Cluster node on each data host; the set initiated, the slots spread."""
        pg = self.web.start_server("start_postgres", datadir=self._dir(self.web, "postgres"),
                                   durable=False)
        self.postgres_pid = pg["pid"]
        password = pg["url"].split(":")[2].split("@")[0]
        self.urls["database"] = (f"postgres://postgres:{password}@{self.web.address}:"
                                 f"{pg['port']}/tracker")
        self.web.start_server("start_redis", datadir=self._dir(self.web, "broker"),
                              port=BROKER_PORT, persist=False)
        self.urls["broker"] = f"redis://{self.web.address}:{BROKER_PORT}/0"
        for host in self.data:
            self.start_mongo_member(host)
            host.start_server("start_redis", datadir=self._dir(host, "index"), port=INDEX_PORT,
                              persist=False, cluster=True)
        members = ",".join(self.mongo_members)
        self.urls["mongo"] = f"mongodb://{members}/?replicaSet={REPLICA_SET}"
        self.urls["index"] = f"redis://{self.data[0].address}:{INDEX_PORT}/0"
        self._initiate_replica_set()
        self._form_cluster()

    def start_mongo_member(self, host: Host) -> None:
        """Start (again) the replica set member of data host ``host`` from its folder."""
        started = host.start_server("start_mongo", datadir=self._dir(host, "mongo"),
                                    port=MONGO_PORT, journal=True, replica_set=REPLICA_SET)
        self.mongo_pids[host.name] = started["pid"]
        self.mongo_members[f"{host.address}:{MONGO_PORT}"] = host

    def _dir(self, host: Host, name: str) -> str:
        folder = self.folder / host.name / name
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.parent.chmod(0o711)  # under root PostgreSQL's account reaches its cluster inside
        return str(folder)

    def _initiate_replica_set(self) -> None:
        first = next(iter(self.mongo_members))
        with pymongo.MongoClient(first, directConnection=True,
                                 serverSelectionTimeoutMS=10000) as client:
            client.admin.command("replSetInitiate", {
                "_id": REPLICA_SET,
                "members": [{"_id": i, "host": member}
                            for i, member in enumerate(self.mongo_members)],
                "settings": {"electionTimeoutMillis": ELECTION_TIMEOUT_MS,
                             "heartbeatIntervalMillis": HEARTBEAT_MS}})
        with self.mongo_client() as client:
            wait_until(lambda: sorted(m["stateStr"] for m in client.admin.command(
                "replSetGetStatus")["members"]) == ["PRIMARY", "SECONDARY", "SECONDARY"],
                "a replica set primary and two secondaries")

    def mongo_client(self) -> pymongo.MongoClient:
        """A client of the replica set (close it after use)."""
        return pymongo.MongoClient(self.urls["mongo"], serverSelectionTimeoutMS=20000)

    def primary(self) -> Host:
        """The data host whose member is the primary now."""
        with self.mongo_client() as client:
            address = wait_until(lambda: client.primary, "a replica set primary")
        return self.mongo_members[f"{address[0]}:{address[1]}"]

    def _form_cluster(self) -> None:
        nodes = [redis.Redis(host=host.address, port=INDEX_PORT) for host in self.data]
        try:
            share = 16384 // len(nodes)
            for i, node in enumerate(nodes):
                end = 16384 if i == len(nodes) - 1 else (i + 1) * share
                node.execute_command("CLUSTER ADDSLOTS", *range(i * share, end))
            for host in self.data[1:]:
                nodes[0].execute_command("CLUSTER MEET", host.address, INDEX_PORT)
            wait_until(lambda: all(node.execute_command("CLUSTER INFO")["cluster_state"] == "ok"
                                   and len(node.execute_command("CLUSTER NODES")) == len(nodes)
                                   for node in nodes), "the Redis Cluster's state is ok")
        finally:
            for node in nodes:
                node.close()

    # ---- this process and the Celery processes ----------------------------------------------

    def point_here(self) -> dict:
        """Point this process's Django settings and Celery app at the deployment; returns
        what to restore with ``point_back``."""
        import environ
        from django.conf import settings
        from django.db import connections

        from tracker.settings.base import redis_cache_url

        saved = {name: getattr(settings, name) for name in (
            "MONGO_URL", "REDIS_URL", "FINGERPRINT_INDEX_REDIS_URL",
            "FINGERPRINT_INDEX_REDIS_CLUSTER", "MONGO_JOURNALED_WRITES", "MONGO_WRITE_CONCERN",
            "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CRAWLER")}
        saved["DATABASES"] = dict(settings.DATABASES["default"])
        saved["CACHE"] = settings.CACHES["default"]["LOCATION"]
        settings.CACHES["default"]["LOCATION"] = redis_cache_url(self.urls["broker"],
                                                                 settings.CACHE_REDIS_DB)
        settings.MONGO_URL, settings.REDIS_URL = self.urls["mongo"], self.urls["broker"]
        settings.FINGERPRINT_INDEX_REDIS_URL = self.urls["index"]
        settings.FINGERPRINT_INDEX_REDIS_CLUSTER = True
        settings.MONGO_JOURNALED_WRITES, settings.MONGO_WRITE_CONCERN = True, "majority"
        settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = self.urls["broker"]
        settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": self.site_address,
                            **{name.removeprefix("CRAWLER_"): value
                               for name, value in CELERY_ENV.items()
                               if name.startswith("CRAWLER_")}}
        connections["default"].close()
        default = settings.DATABASES["default"]  # in place: django.db.connections holds it
        options = default.get("OPTIONS", {})
        default.clear()
        default.update(saved["DATABASES"])
        default.update(environ.Env.db_url_config(self.urls["database"]))
        default["OPTIONS"] = options
        _point_celery_at(self.urls["broker"])
        _forget_cached_clients()
        return saved

    @staticmethod
    def point_back(saved: dict) -> None:
        """Undo ``point_here`` (``saved``: its return value)."""
        from django.conf import settings
        from django.db import connections

        connections["default"].close()
        default = settings.DATABASES["default"]
        default.clear()
        default.update(saved.pop("DATABASES"))
        settings.CACHES["default"]["LOCATION"] = saved.pop("CACHE")
        for name, value in saved.items():
            setattr(settings, name, value)
        _point_celery_at(settings.CELERY_BROKER_URL)
        _forget_cached_clients()

    def celery_env(self, **overrides: str) -> dict[str, str]:
        """The environment of a Celery or web process of the deployment."""
        env = supervisor.child_env(**{
            "DJANGO_SETTINGS_MODULE": "tracker.settings.test",
            "DATABASE_URL": self.urls["database"], "MONGO_URL": self.urls["mongo"],
            "REDIS_URL": self.urls["broker"], "CELERY_BROKER_URL": self.urls["broker"],
            "CELERY_RESULT_BACKEND": self.urls["broker"],
            "FINGERPRINT_INDEX_REDIS_URL": self.urls["index"],
            "FINGERPRINT_INDEX_REDIS_CLUSTER": "true",
            "TRACKER_VAR_DIR": str(self.folder / "var"),
            "MEDIA_ROOT": str(self.folder / "var" / "media"),
            "CRAWLER_ALLOW_ADDRESSES": self.site_address, "ALLOWED_HOSTS": self.web.address,
            **CELERY_ENV, **overrides})
        env.pop("TRACKER_TSA_URLS", None)  # the session's TSA is on this host's loopback
        return env

    def start_workers(self, hosts: list[Host], concurrency: int = 1) -> list[Worker]:
        """Start a Celery worker of ``concurrency`` processes in each of ``hosts``, together,
        and wait until each answers a ping; returns them."""
        from django.conf import settings

        from tracker.celery import app

        started = []
        for host in hosts:
            name = f"{host.name}-{uuid.uuid4().hex[:4]}"
            log = self.folder / host.name / f"{name}.log"
            proc = supervisor.start_worker(self.celery_env(), log, name, list(QUEUES),
                                           concurrency=concurrency, cwd=settings.BASE_DIR,
                                           prefix=host.prefix)
            self.celery.append(proc)
            started.append((name, Worker(host, supervisor.node_name(name), log, proc)))
        for name, worker in started:
            supervisor.wait_until_ready(app, worker.proc, name, worker.log,
                                        settings.WORKER_READY_TIMEOUT_SECONDS)
        return [worker for _, worker in started]

    def start_web(self) -> None:
        """celery beat and gunicorn (2 sync workers) on the web host; returns once gunicorn
        answers /healthz from this process, across the bridge."""
        import sys

        import requests
        from django.conf import settings

        folder = self.folder / self.web.name
        self.celery.append(supervisor.start_beat(self.celery_env(), folder / "beat.log",
                                                 folder / "beat.pid", cwd=settings.BASE_DIR,
                                                 prefix=self.web.prefix))
        with (folder / "gunicorn.log").open("wb") as out:
            self.celery.append(subprocess.Popen(
                [*self.web.prefix, sys.executable, "-m", "gunicorn", "tracker.wsgi", "--bind",
                 f"{self.web.address}:8000", "--workers", "2", "--timeout", "60"],
                env=self.celery_env(), cwd=settings.BASE_DIR, stdout=out,
                stderr=subprocess.STDOUT, preexec_fn=supervisor.die_with_parent))
        self.web_url = f"http://{self.web.address}:8000"

        def answer() -> requests.Response | None:
            try:  # a gunicorn worker still loading Django leaves the request waiting
                return requests.get(f"{self.web_url}/healthz", timeout=10)
            except (requests.ConnectionError, requests.Timeout):
                return None

        log = folder / "gunicorn.log"
        try:
            got = wait_until(answer, "gunicorn on the web host answers /healthz")
            assert got.status_code == 200, f"/healthz answered {got.status_code}"
        except AssertionError as exc:
            raise AssertionError(f"{exc}; its log:\n{log.read_text()[-3000:]}") from None

    def close(self) -> None:
        """Stop PostgreSQL, kill every process of every host, remove the namespaces and the
        bridge, and reap the Celery and web processes started here."""
        # PostgreSQL is asked to stop (its fast shutdown): killed, it would leave its System V
        # shared memory segment behind. The rest is killed with the namespaces (a mongod asked
        # to stop waits up to 15 s for a secondary to catch up; nothing here needs to persist).
        if self.postgres_pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.postgres_pid, signal.SIGINT)
            deadline = time.monotonic() + SERVER_STOP_TIMEOUT
            while _runs(self.postgres_pid) and time.monotonic() < deadline:
                time.sleep(0.1)
        self.network.close()
        for proc in self.celery:
            proc.wait()


def _runs(pid: int) -> bool:
    """True while process ``pid`` exists and is no zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return False


def _point_celery_at(url: str) -> None:
    """Send this process's tasks and read their results through ``url`` from now on."""
    from tracker.celery import app

    app.conf.update(broker_url=url, result_backend=url)
    app._pool = None
    app.amqp._producer_pool = None
    app._local.__dict__.pop("backend", None)


def _forget_cached_clients() -> None:
    """Drop this process's crawler and cache clients built for the servers before."""
    from crawler import scans

    scans._crawler.cache_clear()
    from asgiref.local import Local
    from django.core.cache import caches

    caches.close_all()
    caches._connections = Local(caches.thread_critical)


def index_work() -> str:
    """Register the demo novel (西游记 chapters 1-3) for a new rights holder and index it in
    this process (MongoDB replica set, Redis Cluster); returns its text."""
    from core import ingestion, registration
    from core.models import RightsHolder
    from core.roles import ensure_groups
    from core.text_extraction import extract_pasted

    ensure_groups()
    holder = RightsHolder.objects.create(name="Press A", email="a@press.example")
    novel = DEMO_NOVEL.read_text(encoding="utf-8")
    work = registration.register_work(holder, "xyj", extract_pasted(novel), ingest=False).work
    if (status := ingestion.ingest(work.pk)) != "indexed":
        raise RuntimeError(f"the demo novel was not indexed: {status}")
    return novel


def build(folder: Path) -> tuple[Deployment, dict]:
    """Create the hosts, start every server, point this process at them and migrate the
    database; returns the Deployment (closed by the caller, also on failure after this
    returns) and what ``Deployment.point_back`` restores. On failure here everything made is
    removed and the error raised."""
    from django.core.management import call_command

    network = Network()
    try:
        web = network.add_host("web")
        workers = [network.add_host(f"worker{i}") for i in (1, 2)]
        data = [network.add_host(f"data{i}") for i in (1, 2, 3)]
        deployment = Deployment(folder, network, web, workers, data)
        deployment.start_servers()
        saved = deployment.point_here()
    except BaseException:
        network.close()
        raise
    try:
        call_command("migrate", "--no-input", verbosity=0)
        os.makedirs(folder / "var" / "media", exist_ok=True)
    except BaseException:
        deployment.point_back(saved)
        deployment.close()
        raise
    return deployment, saved
