"""Fixtures of the alert tests: a real SMTP server (aiosmtpd) and a real HTTP receiver on
loopback, both reached by the session's Celery worker.

The worker subprocess reads its settings from the environment when it starts (after every
conftest is imported), so the SMTP port, fast retries and the SSRF allow-list for 127.0.0.1
(``CRAWLER_ALLOW_ADDRESSES``, as in the crawler tests) and this process's SECRET_KEY (the
worker signs the unsubscribe links) are set here at import time.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from lib.runtime.embedded import free_port
from lib.runtime.serving import serve_in_thread
from tests.waiting import wait_for

SMTP_PORT = free_port()  # the SMTP server is stopped and started again on it
_ENV = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(SMTP_PORT), "EMAIL_TIMEOUT": "2",
        "TRACKER_ALERT_RETRY_BASE": "0.3", "TRACKER_ALERT_RETRY_MAX": "1",
        "TRACKER_ALERT_MAX_RETRIES": "30", "TRACKER_WEBHOOK_TIMEOUT": "1",
        "TRACKER_WEBHOOK_MAX_FAILURES": "2", "SITE_URL": "https://tracker.test",
        "TRACKER_NOTICE_MAIL_RETRY_BASE": "0.3", "TRACKER_NOTICE_MAIL_RETRY_MAX": "1",
        "TRACKER_NOTICE_MAIL_MAX_RETRIES": "30",
        "CRAWLER_ALLOW_ADDRESSES": "127.0.0.1",
        # links signed by the worker (unsubscribe) must verify here: one key, as in production
        "SECRET_KEY": settings.SECRET_KEY}
os.environ.update(_ENV)
settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": "127.0.0.1"}
settings.SITE_URL = _ENV["SITE_URL"]
logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP command


class SMTPServer:
    """An aiosmtpd server on 127.0.0.1:SMTP_PORT that keeps every message (email.message
    objects in ``messages``) and refuses the recipients in ``refused`` (addresses) with
    "550 5.1.1"; ``stop()`` and ``start()`` take it down and up again."""

    def __init__(self):
        self.messages: list = []
        self.refused: set[str] = set()
        self._controller = None

    def start(self):
        from aiosmtpd.controller import Controller
        from aiosmtpd.handlers import Message

        server = self

        class Keep(Message):
            async def handle_RCPT(self, smtp, session, envelope, address, rcpt_options):
                if address in server.refused:
                    return f"550 5.1.1 <{address}>: mailbox unavailable"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            def handle_message(self, message):
                server.messages.append(message)

        # a Controller cannot start again after stop(): a new one each time
        self._controller = Controller(Keep(), hostname="127.0.0.1", port=SMTP_PORT)
        self._controller.start()

    def stop(self):
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


@pytest.fixture
def smtp_server() -> Iterator[SMTPServer]:
    """A running SMTPServer, stopped after the test."""
    server = SMTPServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Receiver:
    """A loopback HTTP server; ``replies`` is a list of (status, headers) or (status, headers,
    seconds to wait before answering) answered in turn (the last one repeated); ``requests``
    the (headers dict, body bytes) received."""

    replies: list = field(default_factory=lambda: [(200, {})])
    requests: list = field(default_factory=list)
    url: str = ""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A Receiver on 127.0.0.1 in a thread, shut down after the test."""
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.requests.append((dict(self.headers), body))
            status, headers, *delay = state.replies[min(len(state.requests), len(state.replies)) - 1]
            if delay:
                time.sleep(delay[0])  # a slow endpoint: the client times out first
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    serve_in_thread(server)
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class CopyingSite:
    """A loopback HTTP site at ``url``: its home page ("/") links to each of ``pages`` (path ->
    text, each served as an HTML article page) and ends with ``home_extra`` (HTML); ``files``
    (path -> (Content-Type, body str)) are served as they are; any other path answers 404.
    All can be changed while it runs."""

    url: str = ""
    pages: dict[str, str] = field(default_factory=dict)
    home_extra: str = ""
    files: dict[str, tuple[str, str]] = field(default_factory=dict)


def _html(body: str) -> str:
    return f"<html><head><title>好书网</title></head><body>{body}</body></html>"


@pytest.fixture
def copying_site() -> Iterator[CopyingSite]:
    """A CopyingSite on 127.0.0.1 in a thread, with no page yet; shut down after the test."""
    site = CopyingSite()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            kind = "text/html; charset=utf-8"
            if self.path == "/":
                body = _html("".join(f'<a href="{p}">{p}</a><br>' for p in sorted(site.pages))
                             + site.home_extra)
            elif self.path in site.pages:
                body = _html(f"<article><h1>西游记 {self.path}</h1>"
                             f"<p>{site.pages[self.path]}</p></article>")
            elif self.path in site.files:
                kind, body = site.files[self.path]
            else:
                self.send_error(404)
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    serve_in_thread(server)
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(name="wait_for")
def wait_for_fixture() -> Callable:
    """The ``wait_for(predicate, timeout=60, what=...)`` poller of tests/waiting.py."""
    return wait_for


@pytest.fixture
def holder_with_user(transactional_db):
    """A rights holder "星河出版社" with one user ``editor`` (editor@holder.test), one indexed
    work, and a ``new_match(score=0.9, domain=..., kind="copy")`` factory recording a Match as a stored-page
    search does (committed, in the case of its work and site): a search (RematchJob, set as
    ``match.search``) runs around it and closes, which sends the search's case alerts. Returns
    a namespace (holder, user, work, new_match)."""
    from types import SimpleNamespace

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from core.models import RightsHolder, Work
    from crawler.cases import open_case
    from crawler.models import Match, RematchJob
    from crawler.rematch import search_closed

    holder = RightsHolder.objects.create(name="星河出版社")
    user = get_user_model().objects.create_user("editor", "editor@holder.test", "x", is_staff=True)
    holder.users.add(user)
    work = Work.objects.create(holder=holder, reference="XH-1", title="星河往事", kind="novel",
                               length=1000, status="indexed")
    counter = iter(range(1, 10_000))

    def new_match(score: float = 0.9, domain: str = "copy.example.com", work=work,
                  kind: str = "copy") -> Match:
        n = next(counter)
        search = RematchJob.objects.create(pages_total=1)
        search.works.set([work])
        case, _ = open_case(work, domain)
        match = Match.objects.create(
            work=work, page_id=f"{n:024x}", version_id=f"{n:024x}",
            url=f"https://{domain}/book/{n}.html", domain=domain, title=f"第{n}章",
            score=score, containment_page=0.8, containment_work=0.1, case=case, kind=kind,
            passages=[{"page_start": 0, "page_end": 50, "work_start": 0, "work_end": 50}],
            first_seen=timezone.now(), last_seen=timezone.now())
        RematchJob.objects.filter(pk=search.pk).update(state="finished",
                                                       finished_at=timezone.now())
        search_closed.send(sender=RematchJob, job_id=search.pk)
        match.search = search
        return match

    return SimpleNamespace(holder=holder, user=user, work=work, new_match=new_match)
