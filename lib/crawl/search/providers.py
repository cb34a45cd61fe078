"""Web search providers behind one interface (Django-free).

``parse_providers`` reads the configured list (``kind=URL`` comma-separated, in order of use)
and the keys from a mapping of environment variables; ``Provider.search(phrase, count)`` asks
one provider for an exact phrase and returns its results (``SearchResult``: url, title, snippet,
rank from 1) or raises ``SearchError``. ``search_with_retries`` retries a provider's transient
failures (timeout, connection error, 429, 5xx, unreadable answer) with exponential backoff
(``lib.runtime.backoff``), honouring a ``Retry-After`` or rate-limit reset header, and
raises the last error; a refused key (401/403) is not retried (``SearchError.refused``).

Kinds and their documented formats:

- ``searxng``: GET ``URL/search?q=...&format=json``; ``results[].url/title/content``; no key
  (``TRACKER_SEARCH_SEARXNG_KEY``, if set, goes as a Bearer token for a protected instance).
- ``brave``: GET ``URL`` (https://api.search.brave.com/res/v1/web/search) ``?q=&count=`` with
  header ``X-Subscription-Token`` (``TRACKER_SEARCH_BRAVE_KEY``); ``web.results[].url/title/
  description``; 429 with ``X-RateLimit-Reset`` (seconds).
- ``serpapi``: GET ``URL`` (https://serpapi.com/search) ``?engine=&q=&api_key=``
  (``TRACKER_SEARCH_SERPAPI_KEY``), engine ``baidu`` (default), ``google`` or ``bing`` from the
  URL's own ``engine`` parameter; ``organic_results[].link/title/snippet``; ``error`` in the body.
- ``google_cse``: GET ``URL`` (https://www.googleapis.com/customsearch/v1) ``?key=&cx=&q=&num=``
  (``TRACKER_SEARCH_GOOGLE_CSE_KEY``, ``TRACKER_SEARCH_GOOGLE_CSE_CX`` or the URL's ``cx``);
  ``items[].link/title/snippet``; 429, or 403 with a quota reason, when the quota is spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import requests

from lib.runtime.backoff import backoff_delay

KINDS = ("searxng", "brave", "serpapi", "google_cse")
SERPAPI_ENGINES = ("baidu", "google", "bing")
_KEY_ENV = {"searxng": "TRACKER_SEARCH_SEARXNG_KEY", "brave": "TRACKER_SEARCH_BRAVE_KEY",
            "serpapi": "TRACKER_SEARCH_SERPAPI_KEY", "google_cse": "TRACKER_SEARCH_GOOGLE_CSE_KEY"}
_KEY_NEEDED = ("brave", "serpapi", "google_cse")
_QUOTA_WORDS = ("quota", "rateLimitExceeded", "dailyLimitExceeded", "userRateLimitExceeded")


@dataclass(frozen=True)
class SearchResult:
    """One result of a query: ``url`` (as the provider gave it), ``title``, ``snippet`` and
    ``rank`` (1 = first)."""

    url: str
    title: str
    snippet: str
    rank: int


class SearchError(Exception):
    """A provider's failure. ``kind``: 'timeout', 'unavailable' (connection error or 5xx),
    'rate_limited' (429, or a spent quota), 'refused' (401/403: the key), 'garbage' (an answer
    that is not the documented JSON) or 'bad_request' (another 4xx); ``reason``: in English;
    ``retry_after``: seconds the provider asked to wait, or None; ``attempts``: requests made."""

    def __init__(self, kind: str, reason: str, retry_after: float | None = None):
        super().__init__(f"{kind}: {reason}")
        self.kind, self.reason, self.retry_after = kind, reason, retry_after
        self.attempts = 1  # requests made before giving up (search_with_retries sets it)

    @property
    def retryable(self) -> bool:
        """True for the failures worth trying again soon."""
        return self.kind in ("timeout", "unavailable", "rate_limited", "garbage")


@dataclass(frozen=True)
class Provider:
    """A configured provider: ``kind`` (one of KINDS), ``url`` (endpoint or instance root),
    ``key`` ('' when none), ``params`` (extra query parameters: serpapi's engine, google_cse's
    cx), ``disabled`` (why it cannot be used, in English; '' when it can) and ``timeout``
    (seconds per request)."""

    kind: str
    url: str
    key: str = ""
    params: dict = field(default_factory=dict)
    disabled: str = ""
    timeout: float = 10.0

    @property
    def name(self) -> str:
        """``kind`` or, for serpapi, ``serpapi:<engine>``: the budget and the counts are kept
        under this name."""
        return f"serpapi:{self.params['engine']}" if self.kind == "serpapi" else self.kind

    def search(self, phrase: str, count: int, session: requests.Session | None = None
               ) -> list[SearchResult]:
        """Ask for ``phrase`` as an exact phrase (in double quotes), at most ``count`` results.

        Returns the results in the provider's order, ranks from 1. Raises SearchError.
        """
        url, params, headers = self._request(f'"{phrase}"', count)
        try:
            answer = (session or requests).get(url, params=params, headers=headers,
                                               timeout=self.timeout)
        except requests.Timeout as exc:
            raise SearchError("timeout", f"no answer within {self.timeout:g} s") from exc
        except requests.RequestException as exc:
            raise SearchError("unavailable", f"{type(exc).__name__} asking "
                                             f"{urlsplit(url).netloc}") from exc
        _check_status(answer)
        try:
            body = answer.json()
        except ValueError as exc:
            raise SearchError("garbage", f"answer is not JSON ({answer.headers.get('content-type')})") from exc
        if not isinstance(body, dict):
            raise SearchError("garbage", "answer is not a JSON object")
        if self.kind == "serpapi" and body.get("error"):
            return _serpapi_error(str(body["error"]))
        return self._results(body)[:count]

    def _request(self, query: str, count: int) -> tuple[str, dict, dict]:
        if self.kind == "searxng":
            headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
            return self.url.rstrip("/") + "/search", {"q": query, "format": "json"}, headers
        if self.kind == "brave":
            return self.url, {"q": query, "count": min(count, 20)}, {
                "X-Subscription-Token": self.key, "Accept": "application/json"}
        if self.kind == "serpapi":
            return self.url, {**self.params, "q": query, "api_key": self.key}, {}
        return self.url, {**self.params, "key": self.key, "q": query, "num": min(count, 10)}, {}

    def _results(self, body: dict) -> list[SearchResult]:
        """The documented result list of the provider's JSON ``body``. Raises SearchError
        ('garbage') when its shape is not the documented one."""
        field_names = {"searxng": ("results", "url", "content"),
                       "brave": ("results", "url", "description"),
                       "serpapi": ("organic_results", "link", "snippet"),
                       "google_cse": ("items", "link", "snippet")}[self.kind]
        holder = body.get("web", {}) if self.kind == "brave" else body
        items = holder.get(field_names[0], []) if isinstance(holder, dict) else None
        if not isinstance(items, list):
            raise SearchError("garbage", f"'{field_names[0]}' is not a list")
        out: list[SearchResult] = []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get(field_names[1]), str):
                out.append(SearchResult(item[field_names[1]], str(item.get("title") or ""),
                                        str(item.get(field_names[2]) or ""), len(out) + 1))
        return out


def parse_providers(value: str, env: Mapping[str, str], timeout: float = 10.0) -> list[Provider]:
    """The providers configured in ``value`` ('kind=URL,kind=URL'), in order, with their keys
    read from ``env`` (the environment). A provider needing a key that ``env`` lacks comes back
    with ``disabled`` saying so. Raises ValueError naming an unknown kind, a malformed entry or
    a serpapi engine not in SERPAPI_ENGINES."""
    out = []
    for entry in (e.strip() for e in value.split(",")):
        if not entry:
            continue
        kind, sep, url = entry.partition("=")
        kind, url = kind.strip(), url.strip()
        if not sep or kind not in KINDS or not urlsplit(url).scheme.startswith("http"):
            raise ValueError(f"search provider {entry!r}: expected kind=URL with kind one of "
                             f"{', '.join(KINDS)} and an http(s) URL")
        parts = urlsplit(url)
        params = dict(parse_qsl(parts.query))
        url = urlunsplit(parts._replace(query=""))
        if kind == "serpapi":
            params.setdefault("engine", "baidu")
            if params["engine"] not in SERPAPI_ENGINES:
                raise ValueError(f"search provider {entry!r}: serpapi engine must be one of "
                                 f"{', '.join(SERPAPI_ENGINES)}")
        if kind == "google_cse" and env.get("TRACKER_SEARCH_GOOGLE_CSE_CX"):
            params["cx"] = env["TRACKER_SEARCH_GOOGLE_CSE_CX"]
        key = env.get(_KEY_ENV[kind], "")
        disabled = ""
        if kind in _KEY_NEEDED and not key:
            disabled = f"no key: set {_KEY_ENV[kind]}"
        elif kind == "google_cse" and not params.get("cx"):
            disabled = "no search engine id: set TRACKER_SEARCH_GOOGLE_CSE_CX"
        out.append(Provider(kind, url, key, params, disabled, timeout))
    return out


def search_with_retries(provider: Provider, phrase: str, count: int, retries: int,
                        base_seconds: float, max_seconds: float,
                        sleep: Callable[[float], None] = time.sleep,
                        session: requests.Session | None = None) -> tuple[list[SearchResult], int]:
    """``provider.search`` retried up to ``retries`` times on a retryable SearchError, waiting
    the provider's Retry-After (capped at ``max_seconds``) or the backoff delay (``base_seconds``
    doubling, capped at ``max_seconds``) in between. Returns (results, requests made). Raises
    the last SearchError (at once for one that is not retryable)."""
    attempt = 0
    while True:
        try:
            return provider.search(phrase, count, session), attempt + 1
        except SearchError as exc:
            if not exc.retryable or attempt >= retries:
                exc.attempts = attempt + 1
                raise
            wait = (min(exc.retry_after, max_seconds) if exc.retry_after is not None
                    else backoff_delay(attempt, base_seconds, max_seconds))
            sleep(wait)
            attempt += 1


def _check_status(answer: requests.Response) -> None:
    status = answer.status_code
    if status < 400:
        return
    text = answer.text[:300]
    if status == 429 or (status == 403 and any(w in text for w in _QUOTA_WORDS)):
        raise SearchError("rate_limited", f"HTTP {status}: {text}", _retry_after(answer.headers))
    if status in (401, 403):
        raise SearchError("refused", f"HTTP {status}: the provider refused the key ({text})")
    if status >= 500:
        raise SearchError("unavailable", f"HTTP {status}", _retry_after(answer.headers))
    raise SearchError("bad_request", f"HTTP {status}: {text}")


def _serpapi_error(message: str) -> list[SearchResult]:
    """SerpAPI answers some failures as 200 with ``error``: no results is a result."""
    if "hasn't returned any results" in message:
        return []
    lowered = message.lower()
    if "api key" in lowered or "api_key" in lowered:
        raise SearchError("refused", f"the provider refused the key ({message[:200]})")
    if "run out of searches" in lowered or "limit" in lowered:
        raise SearchError("rate_limited", message[:300])
    raise SearchError("bad_request", message[:300])


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date) or Brave's
    ``X-RateLimit-Reset`` (seconds; the first of its comma-separated windows); None if absent."""
    value = headers.get("Retry-After") or (headers.get("X-RateLimit-Reset") or "").split(",")[0]
    value = value.strip()
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None
