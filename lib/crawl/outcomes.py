"""The outcome of crawling one URL: one closed vocabulary shared by fetching, storage and scan stats."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    """What happened to one URL. The value is what is stored and counted (str).

    Success: ``ok`` (fetched, new or changed), ``unchanged`` (same content as stored),
    ``not_modified`` (HTTP 304 to a conditional GET). Refusals before any request:
    ``invalid_url``, ``out_of_scope``, ``trap``, ``robots_disallowed``, ``ssrf_refused``.
    HTTP: ``client_error`` (4xx but 429), ``rate_limited`` (429), ``server_error`` (5xx).
    Transport: ``timeout``, ``connection_error``. Limits: ``too_large``, ``content_type``,
    ``redirect_loop``, ``too_many_redirects``. Redirect hops refused before they are requested
    (the same admission checks as a link): ``redirect_out_of_scope`` (target outside the allowed
    domains or path patterns), ``redirect_trap``, ``redirect_robots_disallowed`` (robots.txt of
    the target's origin), ``redirect_seen`` (target already in the scan's seen-set: its page is
    crawled under its own URL, so this is not counted as an error). Content: ``extract_failed`` (stored without body
    text). Rendering in a browser (sites that need one): ``render_timeout`` (no load event
    within the render timeout), ``browser_crashed`` (the browser or the page's renderer died,
    or the browser would not start; the next page starts a fresh one), ``browser_missing`` (no
    Chromium or no Playwright on this worker). ``cancelled``: the scan was cancelled before the URL was fetched. ``internal_error``:
    an unexpected failure of the crawler itself (the worker's log has the traceback).
    """

    OK = "ok"
    UNCHANGED = "unchanged"
    NOT_MODIFIED = "not_modified"
    INVALID_URL = "invalid_url"
    OUT_OF_SCOPE = "out_of_scope"
    TRAP = "trap"
    ROBOTS_DISALLOWED = "robots_disallowed"
    SSRF_REFUSED = "ssrf_refused"
    CLIENT_ERROR = "client_error"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION_ERROR = "connection_error"
    TOO_LARGE = "too_large"
    CONTENT_TYPE = "content_type"
    REDIRECT_LOOP = "redirect_loop"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    REDIRECT_OUT_OF_SCOPE = "redirect_out_of_scope"
    REDIRECT_TRAP = "redirect_trap"
    REDIRECT_ROBOTS_DISALLOWED = "redirect_robots_disallowed"
    REDIRECT_SEEN = "redirect_seen"
    EXTRACT_FAILED = "extract_failed"
    RENDER_TIMEOUT = "render_timeout"
    BROWSER_CRASHED = "browser_crashed"
    BROWSER_MISSING = "browser_missing"
    CANCELLED = "cancelled"
    INTERNAL_ERROR = "internal_error"

    @property
    def retryable(self) -> bool:
        """True for the transient failures worth another attempt: timeouts, connection errors,
        429 and 5xx (never 4xx: the same request would get the same answer)."""
        return self in _RETRYABLE

    @property
    def is_error(self) -> bool:
        """True when the URL gave no usable page text (counted under the scan's errors by kind;
        extract_failed included: the page is stored, but there is nothing to match). A
        ``redirect_seen`` is not an error: the page it leads to is crawled under its own URL."""
        return self not in _SUCCESS and self is not Outcome.REDIRECT_SEEN


_RETRYABLE = frozenset({Outcome.TIMEOUT, Outcome.CONNECTION_ERROR, Outcome.RATE_LIMITED,
                        Outcome.SERVER_ERROR})
_SUCCESS = frozenset({Outcome.OK, Outcome.UNCHANGED, Outcome.NOT_MODIFIED})
