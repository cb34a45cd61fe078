"""Rendering a page in headless Chromium, for target sites that deliver their text by JavaScript.

The pipeline downloads the page itself with the Fetcher (robots.txt, politeness, redirects,
time and size limits, SSRF guard) and hands the decoded HTML to ``Renderer.render``, which shows
it in Chromium (Debian's package, driven by Playwright) as if it had been loaded from its URL.

Every request the page then makes (scripts, styles, XHR/fetch, frames) is intercepted
(Playwright routing) and made by this process instead, through the SSRF-guarded requests
session of a Fetcher: the host is resolved and refused when it is loopback, private, link-local
and so on (unless it is in ``allow_addresses``), the connected peer is checked again (DNS
rebinding), and the caller's ``check`` (robots.txt) runs after the address check. Each body is capped at
``max_body_bytes`` and ``max_fetch_seconds``; a page gets ``render_max_requests`` requests and
``render_max_bytes`` bytes at most. Images, media and fonts are not fetched (no text in them).
Top-frame navigations away from the page (script or meta redirects, "blocked: navigation") and
requests other than GET and HEAD ("blocked: POST" and so on: a form, a beacon, an XHR that would
send the page's data on) are never sent; WebSockets and downloads are refused. Chromium itself resolves no host name (``--host-resolver-rules``), so a request
that routing does not see (a preconnect, WebRTC) cannot reach any address. A refused request is
aborted in the browser and listed in ``RenderResult.refused``.

``Renderer.witness`` visits a page instead: the browser loads it from its URL through a
recording proxy (``lib.evidence.recorder``) that fetches and records every request the
routing lets through (the same refusals, the proxy applying the SSRF guard again at its own
connection); the browser trusts that proxy alone for TLS and reaches no other host.

The page cannot stop the browser: its dialogs (``alert``, ``confirm``, ``prompt``,
``beforeunload``) are dismissed, ``window.print`` does nothing (an init script that runs before
the page's scripts), and every browser call of a page gets the page's time limit, so a page whose
script never ends gives ``RENDER_TIMEOUT`` at that limit, not a hung browser.

Chromium runs once per process, in a thread of its own: Playwright's sync API keeps an asyncio
loop running in its thread, which would make Django refuse ORM calls in the worker's thread.
Playwright is imported and Chromium started on first use, so a worker without them runs and
reports ``browser_missing`` per page.
"""

from __future__ import annotations

import base64
import builtins
import concurrent.futures
import contextlib
import dataclasses
import functools
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import requests

from lib.crawl.config import CrawlConfig
from lib.crawl.fetch import Fetcher, read_body, transport_outcome
from lib.crawl.outcomes import Outcome
from lib.crawl.ssrf import RefusedAddress, check_url, parse_allow_list

if TYPE_CHECKING:  # imported where a browser starts: a crawl without renders never loads it
    from playwright.sync_api import Browser, Playwright

# Flags for headless Chromium on servers (root, no GPU, closed network). Without the
# background-networking ones Chromium keeps trying to reach Google's hosts; the resolver rule
# leaves Chromium unable to reach any host by itself (every request is routed to this process);
# the WebRTC policy keeps pages from opening UDP connections.
CHROMIUM_ARGS = (
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--dns-prefetch-disable", "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)
# Resource types (Playwright's request.resource_type) never fetched: they carry no text.
SKIPPED_RESOURCES = frozenset({"image", "media", "font"})
# Response headers not replayed to the browser: requests decoded the body and hands it whole.
_DROPPED_RESPONSE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding",
                                       "connection", "keep-alive"})
# Request headers requests sets itself.
_DROPPED_REQUEST_HEADERS = frozenset({"host", "content-length", "accept-encoding", "connection"})
# Seconds the caller waits for the browser thread beyond the page's own limits before it gives
# that browser up as hung (counted as a render timeout).
_GRACE_SECONDS = 10.0
# Methods a page may send: the others could pass the page's data on to its server.
_READ_METHODS = frozenset({"GET", "HEAD"})
# Runs before the page's own scripts: a print dialog would stop the headless browser.
_NO_PRINT = "window.print = function () {};"


# check(url) -> None when the page may request url, else the reason (str) it may not.
RequestCheck = Callable[[str], "str | None"]


@dataclass
class RenderResult:
    """What rendering one page produced.

    ``outcome``: Outcome.OK, RENDER_TIMEOUT, BROWSER_CRASHED, BROWSER_MISSING or TOO_LARGE;
    ``reason``: detail (str); ``html``: the rendered DOM serialized (str, '' unless ok);
    ``requests``: requests the page made that were fetched; ``bytes``: their body bytes;
    ``refused``: (url, reason) of every request refused; ``elapsed``: seconds. A snapshot
    (``Renderer.snapshot``) fills ``png`` and ``pdf`` (bytes) and ``page_height`` (CSS pixels);
    a filmed visit ``frames``: (UTC epoch seconds, JPEG bytes) in order; ``status``: the HTTP
    status the document was loaded with (0 when shown from the given HTML).
    """

    outcome: Outcome
    reason: str = ""
    html: str = ""
    requests: int = 0
    bytes: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)
    elapsed: float = 0.0
    png: builtins.bytes = b""
    pdf: builtins.bytes = b""
    page_height: int = 0
    frames: list[tuple[float, builtins.bytes]] = field(default_factory=list)
    status: int = 0


class Renderer:
    """Headless Chromium for one process. Takes a CrawlConfig (``chromium_path``, the render
    limits, ``allow_addresses``, the fetch limits for the page's requests). Build one per
    process and reuse it: the browser starts on the first ``render`` and stays up; a crashed
    one is replaced on the next. ``close`` stops it."""

    def __init__(self, config: CrawlConfig):
        self.config = config
        self._allow = parse_allow_list(config.allow_addresses)
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._proxy_spki = ""  # the recording proxy's key the running browser trusts
        self._fetcher: Fetcher | None = None

    def missing(self) -> str:
        """Why this process cannot render ('' when it can): no Chromium at ``chromium_path`` or
        no playwright package."""
        if not Path(self.config.chromium_path).exists():
            return f"browser not installed: no Chromium at {self.config.chromium_path}"
        if importlib.util.find_spec("playwright") is None:
            return "browser not installed: the playwright package is missing"
        return ""

    def render(self, url: str, html: str, check: RequestCheck | None = None) -> RenderResult:
        """Show ``html`` (str, the page as downloaded) in Chromium as the document at ``url``
        and return its DOM once the page has loaded and its requests have settled.

        ``check`` is asked about every request the page makes (see the module docstring for
        the other checks). Returns a RenderResult; never raises for browser or page failures.
        """
        result = self._run(url, html, check, _read_dom, SKIPPED_RESOURCES,
                           self.config.render_timeout_seconds)
        if result.outcome is Outcome.OK and len(result.html.encode("utf-8")) > self.config.max_body_bytes:
            return dataclasses.replace(result, outcome=Outcome.TOO_LARGE, html="",
                                       reason=f"rendered page over {self.config.max_body_bytes} bytes")
        return result

    def snapshot(self, url: str, html: str, check: RequestCheck | None = None, *, width: int,
                 max_height: int, timeout: float) -> RenderResult:
        """A picture of ``html`` shown as the document at ``url``, under the same routing and
        limits as ``render`` except that images and fonts are fetched too (they are part of how
        the page looks); ``timeout``: seconds to the load event.

        Returns a RenderResult whose ``png`` is a screenshot ``width`` CSS pixels wide of the
        whole page, cut at ``max_height`` CSS pixels (``page_height`` tells the page's own
        height), and whose ``pdf`` is the page printed by Chromium (A4, backgrounds).
        """
        return self._run(url, html, check, functools.partial(_take_pictures, width, max_height),
                         frozenset({"media"}), timeout, viewport={"width": width, "height": 900})

    def witness(self, url: str, check: RequestCheck | None = None, *, proxy: str, proxy_spki: str,
                width: int, max_height: int, timeout: float, max_frames: int = 0) -> RenderResult:
        """Visit ``url`` in Chromium through the recording proxy at ``proxy`` ("http://host:port",
        trusted for TLS by its key: ``proxy_spki``, base64 SHA-256 of its SubjectPublicKeyInfo)
        with a normal browser's user agent: the document and everything it loads are fetched by
        the browser through the proxy, which records them. The page's own navigations, POSTs and
        the other requests ``render`` refuses are not sent and are listed in ``refused``;
        ``check`` (None: no check) is asked about every request after the document.

        ``max_frames`` > 0: the visit is filmed too (Chromium's screencast, JPEG frames of the
        viewport as it changes, at most that many) into ``frames``.

        Returns a RenderResult as ``snapshot`` does, with ``html`` the DOM as rendered (the
        snapshot for the WARC) and ``requests`` the requests sent through the proxy.
        """
        return self._run(url, None, check, functools.partial(_witness_pictures, width, max_height),
                         frozenset({"media"}), timeout, viewport={"width": width, "height": 900},
                         proxy=(proxy, proxy_spki), max_frames=max_frames)

    def _run(self, url, html, check, read, skipped, timeout, viewport=None, proxy=None,
             max_frames=0) -> RenderResult:
        started = time.monotonic()
        missing = self.missing()
        if missing:
            return RenderResult(Outcome.BROWSER_MISSING, missing)
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="render")
        limit = timeout + self.config.render_settle_seconds + _GRACE_SECONDS
        future = self._executor.submit(self._render, url, html, check, read, skipped, timeout,
                                       viewport, proxy, max_frames)
        try:
            result = future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            self._abandon()
            result = RenderResult(Outcome.RENDER_TIMEOUT,
                                  f"the page kept the browser busy for {limit:.0f} s")
        result.elapsed = time.monotonic() - started
        return result

    def close(self) -> None:
        """Stop the browser and its thread (a later ``render`` starts them again)."""
        if self._executor is not None:
            self._executor.submit(self._stop_browser).result()
            self._executor.shutdown()
            self._executor = None

    def _abandon(self) -> None:
        # the browser thread hangs: leave it (and its browser) behind and start afresh next time
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor, self._playwright, self._browser = None, None, None

    def _ensure_browser(self, proxy_spki: str = ""):
        # a witnessing browser may reach loopback (its proxy): never used for anything else
        if self._browser is not None and self._browser.is_connected() and \
                proxy_spki == self._proxy_spki:
            return self._browser
        self._stop_browser()
        # Imported here: playwright is optional (BROWSER_MISSING without it) and slow to load.
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        args = list(CHROMIUM_ARGS)
        if proxy_spki:  # a witnessing browser: reaches the recording proxy on loopback, only
            args = [a + ", EXCLUDE 127.0.0.1" if a.startswith("--host-resolver-rules=") else a
                    for a in args] + [f"--ignore-certificate-errors-spki-list={proxy_spki}"]
        self._browser = self._playwright.chromium.launch(
            executable_path=self.config.chromium_path, args=args,
            timeout=self.config.render_timeout_seconds * 1000)
        self._proxy_spki = proxy_spki
        return self._browser

    def _session(self):
        # made on first use in the browser thread, the only thread that uses it
        if self._fetcher is None:
            self._fetcher = Fetcher(self.config)
            self._fetcher.session.max_redirects = self.config.max_redirects
        return self._fetcher.session

    def _stop_browser(self) -> None:
        # Imported here: playwright is optional (BROWSER_MISSING without it) and slow to load.
        from playwright.sync_api import Error

        for stop in (getattr(self._browser, "close", None), getattr(self._playwright, "stop", None)):
            if stop is not None:
                with contextlib.suppress(Error):
                    stop()
        self._browser = self._playwright = None

    def _render(self, url, html, check, read, skipped, timeout, viewport, proxy,
                max_frames) -> RenderResult:
        # Imported here: playwright is optional (BROWSER_MISSING without it) and slow to load.
        from playwright.sync_api import Error, TimeoutError

        try:
            browser = self._ensure_browser(proxy[1] if proxy else "")
        except Error as exc:
            self._stop_browser()
            return RenderResult(Outcome.BROWSER_CRASHED, f"the browser did not start: {_first_line(exc)}")
        cfg = self.config
        visit = _PageRequests(cfg, self._session(), self._allow, html, check, skipped,
                              deadline=time.monotonic() + timeout + cfg.render_settle_seconds)
        visit.proxied = proxy is not None
        context = browser.new_context(
            user_agent=_browser_user_agent(browser.version) if proxy else cfg.user_agent,
            accept_downloads=False, service_workers="block", locale="zh-CN", viewport=viewport,
            # <-loopback>: Chromium would send loopback addresses around the proxy
            proxy={"server": proxy[0], "bypass": "<-loopback>"} if proxy else None)
        try:
            context.route("**/*", visit.handle)
            context.route_web_socket("**/*", visit.refuse_web_socket)
            context.add_init_script(_NO_PRINT)
            page = context.new_page()
            page.set_default_timeout(timeout * 1000)
            page.on("dialog", _dismiss)
            film = _Screencast(context, page, max_frames) if max_frames > 0 else None
            answer = page.goto(url, wait_until="load", timeout=timeout * 1000)
            with contextlib.suppress(TimeoutError):  # a page that keeps polling: as it is now
                page.wait_for_load_state("networkidle", timeout=cfg.render_settle_seconds * 1000)
            frames = film.stop() if film is not None else []  # before the pictures resize it
            result = visit.result(Outcome.OK)
            result.status = answer.status if answer is not None else 0
            read(page, result)
            result.frames = frames
        except TimeoutError:
            return visit.result(Outcome.RENDER_TIMEOUT, f"no load event within {timeout:g} s")
        except Error as exc:
            if not browser.is_connected():
                self._stop_browser()
            return visit.result(Outcome.BROWSER_CRASHED, f"rendering failed: {_first_line(exc)}")
        finally:
            with contextlib.suppress(Error):
                context.close()
        return result


class _Screencast:
    """Chromium's screencast of one page (CDP ``Page.startScreencast``): every frame it sends,
    acknowledged at once, kept up to ``max_frames``."""

    def __init__(self, context, page, max_frames: int):
        self.frames: list[tuple[float, bytes]] = []
        self.max_frames = max_frames
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Page.screencastFrame", self._frame)
        self.cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70})

    def _frame(self, event) -> None:
        # Imported here: playwright is optional (BROWSER_MISSING without it) and slow to load.
        from playwright.sync_api import Error

        if len(self.frames) < self.max_frames:
            self.frames.append((float(event["metadata"].get("timestamp") or time.time()),
                                base64.b64decode(event["data"])))
        with contextlib.suppress(Error):  # the page went away first
            self.cdp.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})

    def stop(self) -> list[tuple[float, bytes]]:
        self.cdp.send("Page.stopScreencast")
        return self.frames


def _dismiss(dialog) -> None:
    # Imported here: playwright is optional (BROWSER_MISSING without it) and slow to load.
    from playwright.sync_api import Error

    with contextlib.suppress(Error):  # the page went away first
        dialog.dismiss()


def _read_dom(page, result: RenderResult) -> None:
    result.html = page.content()


def _browser_user_agent(version: str) -> str:
    """The user agent of a desktop Chrome of ``version`` on Linux (no "HeadlessChrome")."""
    return (f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{version} Safari/537.36")


def _witness_pictures(width: int, max_height: int, page, result: RenderResult) -> None:
    result.html = page.content()  # the DOM snapshot, before printing changes the media
    _take_pictures(width, max_height, page, result)


def _take_pictures(width: int, max_height: int, page, result: RenderResult) -> None:
    result.page_height = int(page.evaluate(
        "Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)"))
    height = max(1, min(result.page_height, max_height))
    result.png = page.screenshot(type="png", full_page=True,
                                 clip={"x": 0, "y": 0, "width": width, "height": height})
    page.emulate_media(media="screen")
    result.pdf = page.pdf(format="A4", print_background=True)


class _PageRequests:
    """The route handler of one page: serves the page's own HTML to its first navigation and
    fetches or refuses every other request (module docstring); counts what it did."""

    def __init__(self, config: CrawlConfig, session: requests.Session, allow, html: str,
                 check: RequestCheck | None, skipped: frozenset[str], deadline: float):
        self.config, self.session, self.allow, self.html, self.check = config, session, allow, html, check
        self.skipped = skipped
        self.deadline = deadline
        self.served_page = False
        self.proxied = False  # the browser sends what it may through the recording proxy
        self.requests = self.bytes = 0
        self.refused: list[tuple[str, str]] = []

    def result(self, outcome: Outcome, reason: str = "", html: str = "") -> RenderResult:
        return RenderResult(outcome, reason, html, self.requests, self.bytes, self.refused)

    def refuse_web_socket(self, ws) -> None:
        self.refused.append((ws.url, "WebSocket"))  # never connected to its server

    def handle(self, route, request) -> None:
        top_navigation = request.is_navigation_request() and request.frame.parent_frame is None
        if top_navigation and not self.served_page:
            self.served_page = True
            if self.proxied:
                route.continue_()
            else:
                route.fulfill(status=200, content_type="text/html; charset=utf-8", body=self.html)
            return
        if request.resource_type in self.skipped:
            route.abort("blockedbyclient")
            return
        refusal = self._refusal(request.url, request.method, top_navigation)
        if refusal is None and self.proxied:
            self.requests += 1
            # Warcprox-Meta would let the page steer the recorder
            route.continue_(headers={k: v for k, v in request.headers.items()
                                     if k.lower() != "warcprox-meta"})
            return
        if refusal is None:
            refusal = self._fetch(route, request)
        if refusal is not None:
            self.refused.append((request.url, refusal))
            route.abort("blockedbyclient")

    def _refusal(self, url: str, method: str, top_navigation: bool) -> str | None:
        if top_navigation:
            return "blocked: navigation"
        if method.upper() not in _READ_METHODS:
            return f"blocked: {method.upper()}"
        if urlsplit(url).scheme not in ("http", "https"):
            return "not an http(s) URL"
        if self.requests >= self.config.render_max_requests:
            return f"more than {self.config.render_max_requests} requests"
        if time.monotonic() >= self.deadline:
            return "render time over"
        try:
            check_url(url, self.allow)
        except RefusedAddress as exc:
            return f"{Outcome.SSRF_REFUSED.value}: {exc}"
        return self.check(url) if self.check else None

    def _fetch(self, route, request) -> str | None:
        """Make ``request`` through the guarded session and fulfill it; returns None, or the
        reason it was refused."""
        cfg = self.config
        headers = {k: v for k, v in request.all_headers().items()
                   if k.lower() not in _DROPPED_REQUEST_HEADERS and not k.startswith(":")}
        remaining = max(self.deadline - time.monotonic(), 0.1)
        self.requests += 1
        try:
            response = self.session.request(
                request.method, request.url, headers=headers, data=request.post_data_buffer,
                stream=True, allow_redirects=True,
                timeout=(min(cfg.connect_timeout, remaining), min(cfg.read_timeout, remaining)))
        except requests.RequestException as exc:
            outcome, reason = transport_outcome(exc)
            return f"{outcome.value}: {reason}"
        with response:
            if "attachment" in response.headers.get("content-disposition", "").lower():
                return "download"
            limit = min(cfg.max_body_bytes, cfg.render_max_bytes - self.bytes)
            body, failure = read_body(response, limit, time.monotonic() + cfg.max_fetch_seconds,
                                      cfg.max_fetch_seconds)
            if failure is not None:
                return f"{failure[0].value}: {failure[1]}"
            self.bytes += len(body)
            kept = {k: v for k, v in response.headers.items()
                    if k.lower() not in _DROPPED_RESPONSE_HEADERS}
            route.fulfill(status=response.status_code, headers=kept, body=body)
        return None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
