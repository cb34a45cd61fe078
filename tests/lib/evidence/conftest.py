"""Fixtures of the evidence library tests: real time-stamping authorities on loopback.

These tests use no database. ``demo_tsa`` (session) is the demo RFC 3161 TSA
(lib.evidence.demo_tsa: OpenSSL's TSA behind an HTTP handler) on a free loopback port,
its root CA and keys in a temporary folder; ``demo_root`` its root certificate (PEM bytes).
The faulty TSAs are real HTTP servers too: ``down_tsa_url`` a loopback port where nothing
listens; ``garbage_tsa_url`` answers 200 application/timestamp-reply with an HTML page;
fronts of the demo TSA: ``slow_tsa_url`` passes a query on after SLOW_TSA_SECONDS (a good
token, too late), ``rejecting_tsa_url`` relays the demo TSA's rejection of a malformed query,
``replaying_tsa_url`` a good token for another digest, whatever they are asked.
``quick_config`` builds a TsaConfig with short pauses between retries.
"""

from __future__ import annotations

import hashlib
import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from lib.evidence.demo_tsa import DemoTsa, start_demo_tsa
from lib.evidence.timestamp import QUERY_TYPE, REPLY_TYPE, TsaConfig, build_query
from lib.runtime.serving import serve_in_thread

SLOW_TSA_SECONDS = 3.0


@pytest.fixture(scope="session")
def demo_tsa(tmp_path_factory) -> Iterator[DemoTsa]:
    """The demo TSA: DemoTsa(url, ca_cert_path, stop), running for the whole session."""
    tsa = start_demo_tsa(tmp_path_factory.mktemp("demo-tsa"))
    yield tsa
    tsa.stop()


@pytest.fixture(scope="session")
def demo_root(demo_tsa) -> bytes:
    """The demo TSA's root certificate (PEM bytes), the one its tokens chain to."""
    return demo_tsa.ca_cert_path.read_bytes()


@pytest.fixture
def quick_config():
    """A function (*urls, timeout=2.0, retries=1) -> TsaConfig over ``urls`` with short pauses
    between retries (about 10 ms, then 20 ms)."""

    def build(*urls: str, timeout: float = 2.0, retries: int = 1) -> TsaConfig:
        return TsaConfig(urls=urls, timeout_seconds=timeout, retries=retries,
                         retry_base_seconds=0.01, retry_max_seconds=0.05)

    return build


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _Garbage(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<html><body>502 Bad Gateway (but sent as 200)</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", REPLY_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _relay(upstream: str, query: bytes | None = None,
           delay: float = 0.0) -> type[BaseHTTPRequestHandler]:
    """A TSA front that waits ``delay`` seconds, then passes ``query`` (default: the client's
    own) to ``upstream`` and relays the answer."""

    class Relay(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            asked = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            time.sleep(delay)
            try:
                answer = requests.post(upstream, data=query or asked,
                                       headers={"Content-Type": QUERY_TYPE}, timeout=10)
                self.send_response(answer.status_code)
                self.send_header("Content-Type", answer.headers["Content-Type"])
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)
            except OSError:  # requests.RequestException is one
                pass  # the client gave up waiting, as it should, or the session is over

        def log_message(self, *args):
            pass

    return Relay


@pytest.fixture(scope="session")
def slow_tsa_url(demo_tsa) -> Iterator[str]:
    yield from _serve(_relay(demo_tsa.url, delay=SLOW_TSA_SECONDS))


@pytest.fixture(scope="session")
def rejecting_tsa_url(demo_tsa) -> Iterator[str]:
    yield from _serve(_relay(demo_tsa.url, query=b"not a query"))


@pytest.fixture(scope="session")
def replaying_tsa_url(demo_tsa) -> Iterator[str]:
    yield from _serve(_relay(demo_tsa.url, query=build_query(hashlib.sha256(b"other").digest())))


@pytest.fixture(scope="session")
def garbage_tsa_url() -> Iterator[str]:
    yield from _serve(_Garbage)



@pytest.fixture
def down_tsa_url() -> str:
    """A loopback URL whose port was free a moment ago and has no listener."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"
