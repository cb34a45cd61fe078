"""A loopback RDAP and IANA-bootstrap server (Django-free), for `make run`'s demo and the tests.

``serve`` answers each path from ``answers`` (path -> list of ``Answer``: given in turn, the
last one repeated), so a test can make a server time out, answer 404, 429 with Retry-After,
malformed JSON, then a good answer. ``bootstrap`` builds the RFC 9224 files pointing at the
server itself, ``domain_record`` and ``network_record`` the RFC 9083 objects of a domain (its
registrar and the registrar's abuse contact, as ICANN's RDAP profile places it) and of an IP
network (its abuse contact). ``demo_answers`` is what the demo server says about the demo
sites (127.0.0.1, 127.0.0.2 and localhost).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lib.runtime.serving import serve_in_thread

RDAP_TYPE = "application/rdap+json"


@dataclass(frozen=True)
class Answer:
    """One answer: ``status``, ``body`` (bytes), ``headers`` (dict), ``delay`` (seconds
    waited before answering: longer than the client's timeout makes it time out)."""

    status: int = 200
    body: bytes = b"{}"
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def json_answer(document: dict, status: int = 200) -> Answer:
    """``document`` as an RDAP JSON answer."""
    return Answer(status, json.dumps(document, ensure_ascii=False).encode(), {"Content-Type": RDAP_TYPE})


def _vcard(name: str, email: str = "") -> list:
    props = [["version", {}, "text", "4.0"], ["fn", {}, "text", name]]
    return ["vcard", props + ([["email", {}, "text", email]] if email else [])]


def domain_record(domain: str, registrar: str, abuse_email: str) -> dict:
    """The RDAP object (RFC 9083 §5.3) of ``domain`` registered by ``registrar`` whose abuse
    desk is ``abuse_email``."""
    return {"objectClassName": "domain", "ldhName": domain, "rdapConformance": ["rdap_level_0"],
            "entities": [{"objectClassName": "entity", "roles": ["registrar"],
                          "vcardArray": _vcard(registrar),
                          "entities": [{"objectClassName": "entity", "roles": ["abuse"],
                                        "vcardArray": _vcard(registrar + " abuse", abuse_email)}]}]}


def network_record(cidr: str, name: str, abuse_email: str) -> dict:
    """The RDAP object (RFC 9083 §5.4) of IP network ``cidr`` named ``name`` whose abuse
    contact is ``abuse_email``."""
    start = cidr.split("/")[0]
    return {"objectClassName": "ip network", "startAddress": start, "name": name,
            "rdapConformance": ["rdap_level_0"],
            "entities": [{"objectClassName": "entity", "roles": ["registrant"],
                          "vcardArray": _vcard(name)},
                         {"objectClassName": "entity", "roles": ["abuse"],
                          "vcardArray": _vcard(name + " abuse", abuse_email)}]}


def bootstrap(base: str, tlds: list[str], networks: list[str]) -> dict[str, list[Answer]]:
    """The bootstrap files (paths /dns.json, /ipv4.json, /ipv6.json) sending ``tlds`` and the
    IPv4 ``networks`` (CIDR) to the RDAP server at ``base`` (its URL)."""
    def doc(keys):
        return {"version": "1.0", "publication": "2026-01-01T00:00:00Z",
                "services": [[keys, [base + "/"]]] if keys else []}
    return {"/dns.json": [json_answer(doc(tlds))], "/ipv4.json": [json_answer(doc(networks))],
            "/ipv6.json": [json_answer(doc([]))]}


def demo_answers(base: str) -> dict[str, list[Answer]]:
    """What the demo RDAP server at ``base`` answers: bootstrap files for the TLD "localhost"
    and 127.0.0.0/8, the registrar of localhost and the hosting network of 127.0.0.1 and
    127.0.0.2 (the unlisted demo site's address)."""
    network = json_answer(network_record("127.0.0.0/8", "示例主机 Demo Hosting",
                                         "abuse@hosting.example"))
    return {**bootstrap(base, ["localhost"], ["127.0.0.0/8"]),
            "/domain/localhost": [json_answer(domain_record(
                "localhost", "示例注册商 Demo Registrar", "abuse@registrar.example"))],
            "/ip/127.0.0.1": [network], "/ip/127.0.0.2": [network]}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        self.server.hits.append(path)
        queue = self.server.answers.get(path)
        answer = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue else json_answer(
            {"errorCode": 404, "title": "not found"}, 404)
        if answer.delay:
            time.sleep(answer.delay)
        try:
            self.send_response(answer.status)
            for name, value in {"Content-Type": RDAP_TYPE, **answer.headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
        except OSError:
            pass  # the client gave up (a timeout test)


class _Server(ThreadingHTTPServer):
    """The HTTP server, holding the answers it gives and the paths it was asked."""

    answers: dict[str, list[Answer]]
    hits: list[str]


@dataclass
class RdapServer:
    """A running server: ``url`` (http://127.0.0.1:PORT), ``answers`` (mutable, see module),
    ``hits`` (the paths asked, in order) and ``stop()``."""

    url: str
    server: _Server

    @property
    def answers(self) -> dict[str, list[Answer]]:
        return self.server.answers

    @property
    def hits(self) -> list[str]:
        return self.server.hits

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()


def serve(port: int = 0, host: str = "127.0.0.1", demo: bool = False) -> RdapServer:
    """Serve on ``host``:``port`` (0: a free port) in a daemon thread, with no answers yet
    (every path 404), or ``demo_answers`` when ``demo``. Raises OSError: the port is taken."""
    server = _Server((host, port), _Handler)
    server.daemon_threads = True
    server.answers, server.hits = {}, []
    url = f"http://{host}:{server.server_address[1]}"
    if demo:
        server.answers.update(demo_answers(url))
    serve_in_thread(server, "rdap")
    return RdapServer(url, server)
