"""The dashboard load test's bounds: loopback only, a fixed number of requests, no redirects."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.dashboard_load import NotLoopback, Plan, require_loopback, run_load
from lib.runtime.serving import serve_in_thread


@pytest.mark.parametrize("url", [
    "http://192.0.2.10:8000/", "http://example.com/", "http://localhost:8000/",
    "http://127.0.0.1.nip.io/", "ftp://127.0.0.1/", "http://[::ffff:10.0.0.1]/", "127.0.0.1"])
def test_the_load_test_refuses_a_host_that_is_not_a_loopback_address(url):
    with pytest.raises(NotLoopback):
        require_loopback(url)
    with pytest.raises(NotLoopback):
        run_load(url, PLAN, clients=1, seconds=1, max_requests=1)


def test_loopback_addresses_are_accepted():
    assert require_loopback("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert require_loopback("http://[::1]:8000") == "http://[::1]:8000"


PLAN = Plan(logins={"staff": None, "reader": 7}, password="pw",
            match_ids={None: [1, 2, 3], 7: [2]}, domains=["a.example"], terms=["西游记"],
            days=["2026-01-01", "2026-01-02"])


class _Dashboard(BaseHTTPRequestHandler):
    """A loopback stand-in for the dashboard's HTTP surface: a login form that sets a session
    cookie, 200 for every page, and the overview ("/") redirecting off the machine."""

    requests_seen: list[str] = []

    def log_message(self, *args):
        pass

    def _answer(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.requests_seen.append(self.path)
        if self.path == "/login/":
            self._answer(200, {"Set-Cookie": "csrftoken=t; Path=/"})
        elif self.path == "/":
            self._answer(302, {"Location": "http://192.0.2.10/"})
        else:
            self._answer(200, {})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer(302, {"Set-Cookie": "sessionid=s; Path=/", "Location": "/"})


def test_the_load_stops_at_its_request_budget_and_never_follows_a_redirect():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Dashboard)
    serve_in_thread(server)
    _Dashboard.requests_seen = []
    try:
        report = run_load(f"http://127.0.0.1:{server.server_address[1]}", PLAN, clients=3,
                          seconds=120, max_requests=36)
    finally:
        server.shutdown()
    assert report["requests"] == 36
    pages = [p for p in _Dashboard.requests_seen if p != "/login/"]
    assert len(pages) == 36  # the logins' form pages aside, exactly the budget reached the server
    overview = report["per_page"]["overview"]
    assert overview["requests"] > 0 and overview["errors"] == overview["requests"]
    assert report["errors"] == overview["errors"]
    assert any("HTTP 302" in line for line in report["error_examples"])
