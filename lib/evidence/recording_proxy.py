"""The recording proxy's process: warcprox (the Internet Archive's WARC-writing MITM proxy), with
every connection it makes to a site passed through the crawler's SSRF guard and a byte budget
for the whole capture.

Run by ``lib.evidence.recorder.Recorder`` as ``python -m
lib.evidence.recording_proxy ARGS`` with the recorder's own interpreter (warcprox pins
a ``cryptography`` older than pyHanko's, so it lives in a virtual environment of its own).
Options: ``--dir`` (the WARC folder), ``--ca-file`` (warcprox's CA, made when missing),
``--allow`` (networks the guard lets through, as ``CRAWLER_ALLOW_ADDRESSES``), ``--max-bytes``
(the bytes of response bodies recorded in all, over all requests), ``--ca-bundle`` (roots
trusted besides certifi's for the sites' own certificates), ``--accept-invalid-host`` (a host,
repeatable, whose certificate is accepted when it does not validate: a target site's setting;
each such error is appended to ``tls_errors.jsonl``). It prints ``port N`` once it listens
and runs until SIGTERM.

How the guard applies: warcprox's handler connects to the site in
``_connect_to_remote_server``; that method is replaced (in this process only) by one that
resolves the host with ``lib.crawl.ssrf.check_url`` (every address must be allowed), connects
to the checked address itself (no second lookup: no DNS rebinding), checks the connected peer
again, and only then starts TLS, verified against certifi (and ``--ca-bundle``). A refused
request gets warcprox's 403 answer and is not recorded. Once ``--max-bytes`` are recorded, the
response in flight is truncated there (warcprox writes ``WARC-Truncated: length``; it checks
after each read of 64 KiB, so a capture may go over by less than that) and later
requests are refused; each cut is appended to ``cuts.jsonl`` in the WARC folder.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import socket
import ssl
import sys
import threading
from pathlib import Path

import certifi
import urllib3.util.connection
import warcprox
import warcprox.controller
import warcprox.main
import warcprox.mitmproxy
import warcprox.warcproxy

from lib.crawl.ssrf import RefusedAddress, check_url, forbidden_reason, parse_allow_list


class _Budget:
    """The bytes left for the capture, shared by the proxy's threads."""

    def __init__(self, limit: int, cuts: Path):
        self.left, self.limit, self.cuts = limit, limit, cuts
        self.lock = threading.Lock()

    def cut(self, url: str, why: str) -> None:
        self.note(self.cuts.name, {"url": url, "reason": why})

    def note(self, name: str, entry: dict) -> None:
        with self.lock, (self.cuts.parent / name).open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def _install_guard(allow, budget: _Budget, ca_bundle: str, accept_invalid: set[str]) -> None:
    handler = warcprox.warcproxy.WarcProxyHandler
    context = ssl.create_default_context(cafile=certifi.where())
    if ca_bundle:
        context.load_verify_locations(cafile=ca_bundle)
    unverified = ssl.create_default_context()
    unverified.check_hostname, unverified.verify_mode = False, ssl.CERT_NONE

    def tls(sock, host: str, address: str, port: int, timeout):
        try:
            return context.wrap_socket(sock, server_hostname=host)
        except ssl.SSLCertVerificationError as exc:
            if host not in accept_invalid:
                raise
            budget.note("tls_errors.jsonl", {"host": host, "error": exc.verify_message or str(exc)})
        # the failed handshake closed the socket: connect again, and accept what is sent
        again = socket.create_connection((address, port), timeout)  # the address checked
        return unverified.wrap_socket(again, server_hostname=host)
    parent_proxy_request = handler._proxy_request

    def connect(self):
        self._enforce_limits_and_blocks()
        if budget.left <= 0:
            budget.cut(self.url, "capture byte limit reached: not fetched")
            raise warcprox.RequestBlockedByRule(
                f"capture byte limit of {budget.limit} bytes reached")
        scheme = "https" if self.is_connect else "http"
        try:
            address = check_url(f"{scheme}://{self.hostname}:{self.port}/", allow)[0]
        except RefusedAddress as exc:
            raise warcprox.RequestBlockedByRule(f"ssrf_refused: {exc}") from exc
        self._conn_pool = self.server.remote_connection_pool.connection_from_host(
            host=self.hostname, port=int(self.port), scheme="http",
            pool_kwargs={"maxsize": 12, "timeout": self._socket_timeout})
        self._remote_server_conn = self._conn_pool._get_conn()
        if urllib3.util.connection.is_connection_dropped(self._remote_server_conn):
            sock = socket.create_connection((address, int(self.port)), self._socket_timeout)
            reason = forbidden_reason(sock.getpeername()[0], allow)
            if reason:
                sock.close()
                raise warcprox.RequestBlockedByRule(f"ssrf_refused: {self.hostname}: {reason}")
            if self.is_connect:
                sock = tls(sock, self.hostname, address, int(self.port), self._socket_timeout)
            self._remote_server_conn.sock = sock
        return self._remote_server_conn.sock

    def proxy_request(self):
        self._max_resource_size = max(budget.left, 1)
        recorded = parent_proxy_request(self)
        with budget.lock:
            budget.left -= recorded.size or 0
        if recorded.truncated:
            budget.cut(self.url, f"truncated ({recorded.truncated.decode()}) at the capture "
                                 f"byte limit of {budget.limit} bytes")
        return recorded

    handler._connect_to_remote_server = connect
    handler._proxy_request = proxy_request
    handler.allow_localhost = True  # the guard above decides, with the crawler's allow list


def main(argv: list[str] | None = None) -> None:
    """Run warcprox under the guard until SIGTERM (module docstring)."""
    parser = argparse.ArgumentParser(prog="recording_proxy")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--allow", default="")
    parser.add_argument("--max-bytes", type=int, required=True)
    parser.add_argument("--ca-bundle", default="")
    parser.add_argument("--accept-invalid-host", action="append", default=[])
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    allow = parse_allow_list([a for a in args.allow.split(",") if a.strip()])
    _install_guard(allow, _Budget(args.max_bytes, folder / "cuts.jsonl"), args.ca_bundle,
                   set(args.accept_invalid_host))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    options = warcprox.Options(**vars(warcprox.main.parse_args([
        "warcprox", "--address", "127.0.0.1", "--port", "0", "--dir", str(folder), "--gzip",
        "--cacert", args.ca_file, "--certs-dir", str(folder / "certs"), "--prefix", "capture",
        "--stats-db-file", "", "--digest-algorithm", "sha256", "--quiet"])))
    controller = warcprox.controller.WarcproxController(options)
    signal.signal(signal.SIGTERM, lambda *_: controller.stop.set())
    controller.start()
    print(f"port {controller.proxy.server_address[1]}", flush=True)
    controller.stop.wait()
    controller.shutdown()


if __name__ == "__main__":
    main()
