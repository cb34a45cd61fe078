"""Fixtures of the crawler's and the crawl library's tests (a pytest plugin, loaded by
tests/conftest.py): a real HTTP server on 127.0.0.1 with one handler per case, a crawler
configuration that allows loopback, and a synchronous driver for whole scans.

The server runs in a thread (http.server.ThreadingHTTPServer). A test registers routes:
``site.route("/path", reply)`` with a Reply (status, headers, body, delay before answering,
bytes per write for slow bodies) or a callable returning one. Every request is logged in
``site.requests`` (path, headers) so tests can assert what the crawler sent.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from lib.crawl.config import CrawlConfig
from lib.runtime.serving import serve_in_thread

# Seen by every crawler built in this session: in this process through settings.CRAWLER (read
# from the environment before this file is loaded), in the Celery worker subprocess of
# tests/conftest.py through its environment (copied from this process when it starts). The test
# sites live on loopback, and failure cases should fail fast.
_CRAWLER_TEST_SETTINGS = {"ALLOW_ADDRESSES": "127.0.0.1", "READ_TIMEOUT": "1",
                          "RETRY_BASE_SECONDS": "0.2", "MAX_RETRIES": "2",
                          "MAX_BODY_BYTES": str(256 * 1024), "DEFAULT_DELAY_SECONDS": "0"}
os.environ.update({f"CRAWLER_{name}": value for name, value in _CRAWLER_TEST_SETTINGS.items()})
settings.CRAWLER = {**settings.CRAWLER, **_CRAWLER_TEST_SETTINGS}
# Evidence captures: a page that does not render gives up after a few seconds.
os.environ["TRACKER_CAPTURE_RENDER_TIMEOUT"] = "4"
settings.CAPTURE_RENDER_TIMEOUT_SECONDS = 4.0


@dataclass
class Reply:
    """An HTTP answer: ``status``, ``headers`` (dict), ``body`` (bytes), ``delay`` seconds before
    the status line, ``chunk_delay`` seconds between body writes of ``chunk`` bytes."""

    status: int = 200
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0
    chunk: int = 0
    chunk_delay: float = 0.0


def html(text: str, status: int = 200, charset: str | None = "utf-8", **headers) -> Reply:
    """A text/html Reply of ``text`` encoded in ``charset`` (header says it unless None)."""
    ctype = "text/html" + (f"; charset={charset}" if charset else "")
    return Reply(status, {"Content-Type": ctype, **headers}, text.encode(charset or "utf-8"))


class TestSite:
    """Routes and request log of the loopback server; ``url(path)`` gives absolute URLs.
    ``site.Reply`` and ``site.html`` are the Reply class and html helper (test modules cannot
    import conftest)."""

    Reply = Reply
    html = staticmethod(html)

    def __init__(self):
        self.routes: dict[str, object] = {}
        self.requests: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        self.base = ""

    def route(self, path: str, handler) -> None:
        """Serve ``path`` (with its query) with ``handler``: a Reply, or a callable taking the
        request handler and returning a Reply."""
        self.routes[path] = handler

    def url(self, path: str) -> str:
        return self.base + path

    def hits(self, path: str, agent: str = "") -> int:
        """How many requests asked for ``path`` (those whose User-Agent holds ``agent``)."""
        with self.lock:
            return sum(1 for p, headers in self.requests
                       if p == path and agent in headers.get("User-Agent", ""))


def _handler_class(site: TestSite):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            with site.lock:
                site.requests.append((self.path, dict(self.headers)))
            target = site.routes.get(self.path) or site.routes.get(self.path.split("?")[0])
            if target is None:
                reply = Reply(404, {"Content-Type": "text/html"}, b"<html><body>not found</body></html>")
            else:
                reply = target(self) if callable(target) else target
            time.sleep(reply.delay)
            self.send_response(reply.status)
            headers = {"Content-Length": str(len(reply.body)), **reply.headers}
            for k, v in headers.items():
                if v is not None:
                    self.send_header(k, v)
            self.end_headers()
            try:
                if reply.chunk:
                    for i in range(0, len(reply.body), reply.chunk):
                        self.wfile.write(reply.body[i:i + reply.chunk])
                        self.wfile.flush()
                        time.sleep(reply.chunk_delay)
                else:
                    self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_POST = do_PUT = do_DELETE = do_GET  # logged like a GET, so tests see what was sent

    return Handler


@pytest.fixture
def site_on():
    """Factory ``site_on(host) -> TestSite``: a fresh TestSite served on the loopback address
    ``host`` (e.g. "127.0.0.2", another "host" for the SSRF guard and for discovery) at a free
    port for the duration of one test."""
    servers = []

    def start(host: str) -> TestSite:
        s = TestSite()
        server = ThreadingHTTPServer((host, 0), _handler_class(s))
        server.daemon_threads = True
        s.base = f"http://{host}:{server.server_address[1]}"
        serve_in_thread(server)
        servers.append(server)
        return s

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def site(site_on):
    """A fresh TestSite served on 127.0.0.1 at a free port for the duration of one test."""
    return site_on("127.0.0.1")


@pytest.fixture(autouse=True)
def _no_crawl_state_left(request):
    """After a test on the platform's Redis, drop its crawl keys (site locks, frontiers, robots
    and politeness state): site ids are reused by the next test's fresh database."""
    yield
    if "platform_stores" in request.fixturenames:
        from core.connections import get_redis

        redis = get_redis()
        for key in redis.scan_iter(match="crawl:*", count=1000):
            redis.delete(key)


@pytest.fixture
def config() -> CrawlConfig:
    """Tight limits so failure cases happen fast; loopback allowed; no politeness delay."""
    return CrawlConfig(allow_addresses=("127.0.0.1",), connect_timeout=2.0, read_timeout=0.5,
                       max_fetch_seconds=5.0, max_body_bytes=64 * 1024, max_redirects=3,
                       max_retries=2, retry_base_seconds=0.01, retry_max_seconds=5.0,
                       default_delay_seconds=0.0)


@pytest.fixture
def scan_driver():
    """The ``run_scan`` function below (test modules cannot import conftest)."""
    return run_scan


def run_scan(crawler, scan_id, rules, start_urls, max_pages=50, max_depth=3, max_steps=500):
    """Drive a whole scan synchronously, as the Celery tasks do: a queue of UrlTasks, deferred
    tasks re-queued after sleeping their countdown. Returns {canonical url: final StepResult}."""
    from lib.crawl.pipeline import UrlTask

    frontier = crawler.frontier(scan_id)
    frontier.open(max_pages, max_depth)
    queue = collections.deque(UrlTask(u, 0) for u in crawler.seed(scan_id, rules, start_urls))
    results = {}
    for _ in range(max_steps):
        if not queue:
            break
        task = queue.popleft()
        result = crawler.step(scan_id, rules, task)
        if result.outcome is None:
            time.sleep(min(result.defer, 3.0))
            queue.append(result.next_task)
            continue
        results[task.url] = result
        queue.extend(UrlTask(u, task.depth + 1) for u in result.admitted)
        queue.extend(UrlTask(u, task.depth) for u in result.parts)
        frontier.task_done()
    assert not queue, "scan did not finish within max_steps"
    return results
