"""Crawling one URL of a scan: scope, trap, robots.txt, politeness, fetch, decode, extract, store.

``Crawler.step`` is the whole job of one crawl task and needs no Django or Celery: it returns a
``StepResult`` that either defers the URL (politeness slot or retry backoff: the caller re-queues
it with a countdown) or finishes it with an Outcome, the canonical links it admitted to the
frontier (the caller enqueues one task each) and the page version to match, if any. Every
finished URL is recorded in the crawl log and counted in the scan's counters, with the time
spent per stage in milliseconds (ms_fetch: download; ms_decode: bytes to text; ms_extract:
main text, title and date; ms_links: outlinks; ms_store: MongoDB), summed over all workers, and
the CPU time of extraction and links in microseconds (cpu_us_extract: this process's CPU,
which the machine's other load disturbs less than wall time).

Redirects. Every redirect hop must pass the admission checks of a link before it is requested:
allowed domains and path patterns, trap defence, the robots.txt of the target's origin (the
shared RobotsCache), and the scan's seen-set. ``Crawler.step`` gives the Fetcher a ``check_hop``
callback that runs them; a refused hop ends the URL with ``redirect_out_of_scope``,
``redirect_trap``, ``redirect_robots_disallowed`` or ``redirect_seen`` and the target is never
requested. Design: a callback rather than handing the target back to the frontier as a new URL,
because the fetcher must keep following redirects for robots.txt itself (not a frontier URL),
the existing loop, redirect-count and SSRF checks stay where they are, and the page budget and
depth are not spent on hops. Limitation: a hop to another allowed host (a subdomain) is one
request without a politeness slot of its own. A page reached through redirects is stored under
the canonical form of its final URL (``canonical_url``; ``url`` keeps the URL asked for,
``final_url`` the exact final URL); that canonical URL is added to the seen-set at the moment of
storing, and if another task got it first (a race after the hop check) the page is not stored
twice: the URL ends as ``redirect_seen``.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field

from lib.crawl.canonical import (
    InvalidURL,
    canonical_url,
    host_of,
    in_domains,
    origin_of,
    trap_reason,
)
from lib.crawl.config import CrawlConfig
from lib.crawl.crawllog import CrawlLog
from lib.crawl.exchange import Exchange, ExchangeStash
from lib.crawl.fetch import Fetcher, FetchResult, HopCheck, retry_delay
from lib.crawl.frontier import Frontier, microseconds
from lib.crawl.links import chapter_of, chapter_part, html_links, next_part_links, xml_links
from lib.crawl.outcomes import Outcome
from lib.crawl.pagestore import Page, PageStore, PageVersion, sha256
from lib.crawl.politeness import Politeness
from lib.crawl.render import Renderer
from lib.crawl.robots import RobotsCache, RobotsPolicy
from lib.text import decode_bytes, extract_document
from lib.text.html import Extracted, parse_html

# A redirect hop refused by a check of a task's own URL records the redirect's outcome.
_AS_REDIRECT = {Outcome.TRAP: Outcome.REDIRECT_TRAP,
                Outcome.ROBOTS_DISALLOWED: Outcome.REDIRECT_ROBOTS_DISALLOWED}


@dataclass(frozen=True)
class SiteRules:
    """What the crawl needs to know of a target site.

    ``site_id``: the TargetSite id; ``allowed_domains``: hosts (subdomains included) the scan
    may visit; ``path_patterns``: regular expressions, one of which must match (re.search) the
    URL path with its query for the URL to be in scope (empty = every path);
    ``delay_seconds``: politeness delay per host (None = the configured default; 0 = none,
    robots.txt Crawl-delay still applies); ``needs_browser``: HTML pages are rendered in
    headless Chromium (lib.crawl.render) before their text is taken;
    ``accept_invalid_certificate``: its pages and robots.txt are fetched even when their TLS
    certificate does not validate (the error recorded in the exchange).
    """

    site_id: int | str
    allowed_domains: tuple[str, ...]
    path_patterns: tuple[str, ...] = ()
    delay_seconds: float | None = None
    needs_browser: bool = False
    accept_invalid_certificate: bool = False

    def to_dict(self) -> dict:
        """JSON-ready dict of the rules (``from_dict`` reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SiteRules:
        """SiteRules from ``to_dict``'s output. Raises TypeError/KeyError on other dicts."""
        return cls(data["site_id"], tuple(data["allowed_domains"]), tuple(data["path_patterns"]),
                   data["delay_seconds"], bool(data.get("needs_browser", False)),
                   bool(data.get("accept_invalid_certificate", False)))

    def in_scope(self, url: str) -> bool:
        """True when ``url`` is on an allowed domain and matches a path pattern (if any)."""
        if not in_domains(url, self.allowed_domains):
            return False
        if not self.path_patterns:
            return True
        rest = url.split("/", 3)[3] if url.count("/") >= 3 else ""
        return any(re.search(p, "/" + rest) for p in self.path_patterns)


@dataclass(frozen=True)
class UrlTask:
    """One URL to crawl: canonical ``url``, link ``depth`` from a start URL (0 = start URL),
    ``attempt`` (0 = first try) and ``reserved`` (True when a politeness slot is already held)."""

    url: str
    depth: int = 0
    attempt: int = 0
    reserved: bool = False


@dataclass
class StepResult:
    """Result of ``Crawler.step``.

    Deferred: ``outcome`` None, ``defer`` seconds, ``next_task`` to re-queue with that countdown.
    Finished: ``outcome`` (Outcome), ``reason``, ``status`` (HTTP or None), ``admitted`` (canonical
    URLs newly admitted at depth + 1: enqueue one task each), ``match`` ((page_id, version_id)
    of a new or changed page version to match, or None), ``page`` ((page_id, version_id) of the
    stored page whatever its change, or None), ``change`` ('new', 'changed', 'unchanged',
    'no_text' or ''), ``final_url`` (the canonical URL the page was stored under when redirects
    led there, else ''), ``parts`` (canonical URLs of the next part of a chapter split over
    pages, newly admitted at the same depth: enqueue one task each at ``task.depth``),
    ``exchange`` (the raw HTTP exchange of a fetch that failed, e.g. a 404: a matched page's
    proof of removal; None otherwise), ``stored`` (with ``match``: the Page and PageVersion
    as just stored, so that matching reads neither back; else None).
    """

    task: UrlTask
    outcome: Outcome | None = None
    reason: str = ""
    status: int | None = None
    defer: float | None = None
    next_task: UrlTask | None = None
    admitted: list[str] = field(default_factory=list)
    match: tuple[str, str] | None = None
    page: tuple[str, str | None] | None = None
    change: str = ""
    final_url: str = ""
    parts: list[str] = field(default_factory=list)
    exchange: Exchange | None = None
    stored: tuple[Page, PageVersion] | None = None


class Crawler:
    """Everything one worker process needs to crawl: Fetcher, robots.txt cache, politeness,
    page store and crawl log. Takes a CrawlConfig, a redis.Redis client and a pymongo Database.
    Build one per process and reuse it (it pools connections)."""

    def __init__(self, config: CrawlConfig, redis, db):
        self.config, self.redis = config, redis
        self.fetcher = Fetcher(config)
        self.robots = RobotsCache(redis, self.fetcher, config.robots_agent, config.robots_ttl_seconds,
                                  config.robots_process_ttl_seconds, config.robots_process_max_origins)
        self.politeness = Politeness(redis, config.politeness_horizon_seconds)
        self.pages = PageStore(db)
        self.log = CrawlLog(db, config.crawl_log_ttl_seconds)
        self.exchanges = ExchangeStash(db, config.exchange_ttl_seconds)
        self.renderer = Renderer(config)  # Chromium starts on the first page that needs it

    def ensure_indexes(self) -> None:
        """Create the MongoDB indexes of the page store and the crawl log (idempotent)."""
        self.pages.ensure_indexes()
        self.log.ensure_indexes()
        self.exchanges.ensure_indexes()

    def frontier(self, scan_id) -> Frontier:
        """The Frontier of scan run ``scan_id``."""
        return Frontier(self.redis, scan_id, stale_seconds=self.config.scan_stale_seconds)

    def seed(self, scan_id, rules: SiteRules, start_urls: list[str]) -> list[str]:
        """Admit a site's start URLs at depth 0 to an opened frontier, with the in-scope
        sitemaps that the robots.txt of their origins lists (``Sitemap:`` lines).

        Returns the canonical URLs admitted (enqueue one task each). Start URLs that are invalid
        or out of scope are recorded in the crawl log with that outcome.
        """
        frontier, good = self.frontier(scan_id), []
        for url in start_urls:
            try:
                canon = canonical_url(url)
            except InvalidURL as exc:
                self._finish(frontier, scan_id, UrlTask(url), Outcome.INVALID_URL, str(exc))
                continue
            if not rules.in_scope(canon):
                self._finish(frontier, scan_id, UrlTask(canon), Outcome.OUT_OF_SCOPE,
                             "start URL outside the allowed domains or path patterns")
                continue
            good.append(canon)
        for origin in dict.fromkeys(origin_of(u) for u in good):
            policy = self.robots.policy(origin + "/", rules.accept_invalid_certificate)
            good.extend(u for u in _canonical_all(policy.sitemaps)
                        if rules.in_scope(u))
        verdicts = frontier.admit(good, 0)
        return [u for u, v in verdicts.items() if v == "admitted"]

    def step(self, scan_id, rules: SiteRules, task: UrlTask,
             frontier: Frontier | None = None) -> StepResult:
        """Crawl ``task.url`` for scan ``scan_id`` under ``rules``; see the module docstring.
        ``frontier``: the scan's Frontier, whose ``batched`` block the caller may hold open to
        send later counters in the same round trip (a new one when None).

        Returns a StepResult. Raises only for infrastructure failures (redis.RedisError,
        pymongo.errors.PyMongoError), which the calling task retries.
        """
        frontier = frontier or self.frontier(scan_id)
        with frontier.batched():  # the URL's counters go to Redis in one pipeline at the end
            return self._step(frontier, scan_id, rules, task)

    def _step(self, frontier, scan_id, rules: SiteRules, task: UrlTask) -> StepResult:
        refused = self._admission(frontier, scan_id, rules, task)
        if refused:
            return refused
        # the page stored under this URL, or under the final URL it redirected to last time: its
        # validators go with the request, so that a redirected page is not downloaded again
        stored = self.pages.lookup(task.url)
        # a rendered page's text also comes from its scripts' requests: no conditional GET
        validators = stored.validators if stored and not rules.needs_browser else {}
        result = self._fetch(frontier, rules, task, validators)
        if result.outcome is Outcome.NOT_MODIFIED and stored:
            done = self._not_modified(frontier, scan_id, rules, task, result, stored)
            if isinstance(done, StepResult):
                return done
            result = done
        if stored and stored.canonical_url != task.url:
            redirected_to, stored = stored, None  # stored under the URL it redirected to
        else:
            redirected_to = None
        retry = self._retry(frontier, task, result)
        if retry:
            return retry
        if result.outcome is Outcome.OK and result.redirects:
            key = canonical_url(result.final_url)
            if key != task.url:
                return self._redirected(frontier, scan_id, rules, task, result, key, redirected_to)
        if result.outcome is not Outcome.OK:
            if stored:
                self.pages.record_visit(task.url, scan_id=scan_id, outcome=result.outcome.value,
                                        status=result.status, reason=result.reason)
            return self._finish(frontier, scan_id, task, result.outcome, result.reason, result.status,
                                exchange=result.exchange,
                                location=result.final_url if result.redirects else None)
        return self._process(frontier, scan_id, rules, task, result, stored)

    def _admission(self, frontier, scan_id, rules: SiteRules, task: UrlTask) -> StepResult | None:
        """The checks before ``task.url`` is fetched: the scan not cancelled, no trap, allowed
        by robots.txt, and a politeness slot of its host (the larger of the site's delay and
        the robots.txt Crawl-delay, in seconds) unless the task holds one. Returns the
        finished or deferred StepResult, or None when the URL may be fetched now."""
        if frontier.cancelled():
            return self._finish(frontier, scan_id, task, Outcome.CANCELLED, "scan cancelled")
        refusal, policy = self._trap_or_robots(task.url, rules.accept_invalid_certificate)
        if refusal:
            return self._finish(frontier, scan_id, task, *refusal)
        if task.reserved:
            return None
        delay = self.config.default_delay_seconds if rules.delay_seconds is None else rules.delay_seconds
        delay = max(delay, (policy.crawl_delay if policy else None) or 0.0)
        grant = self.politeness.acquire(host_of(task.url), delay)
        if grant.now:
            return None
        nxt = UrlTask(task.url, task.depth, task.attempt, grant.reserved)
        return StepResult(task, defer=grant.wait, next_task=nxt, reason="politeness delay")

    def _fetch(self, frontier, rules: SiteRules, task: UrlTask,
               validators: dict[str, str] | None = None) -> FetchResult:
        """Download ``task.url`` (conditional on ``validators``' etag and last_modified, when
        given), every redirect hop checked as a link; counts the request and its time."""
        validators = validators or {}
        result = self.fetcher.fetch(task.url, etag=validators.get("etag"),
                                    last_modified=validators.get("last_modified"),
                                    check_hop=self._hop_check(frontier, rules),
                                    accept_invalid_certificate=rules.accept_invalid_certificate)
        frontier.count(requests=1, ms_fetch=_ms(result.elapsed))
        return result

    def _not_modified(self, frontier, scan_id, rules: SiteRules, task: UrlTask,
                      result: FetchResult, stored: Page) -> StepResult | FetchResult:
        """A 304 answer to the validators of ``stored``: the finished StepResult of an
        unchanged page (or of a redirect to a URL already seen), or, when the validators were
        another page's, the FetchResult of downloading the URL again without them."""
        key = canonical_url(result.final_url) if result.redirects else task.url
        page = stored if stored.canonical_url == key else self.pages.get(key)
        if page is None:  # validators of another page answered 304: download it plainly
            return self._fetch(frontier, rules, task)
        if key != task.url and not frontier.mark_seen(key):
            return self._finish(frontier, scan_id, task, Outcome.REDIRECT_SEEN,
                                f"redirected to {key}, already admitted in this scan", result.status)
        return self._unchanged(frontier, scan_id, rules, task, result, page, key)

    def _retry(self, frontier, task: UrlTask, result: FetchResult) -> StepResult | None:
        """The deferred StepResult of the task's next attempt when ``result`` is worth another
        try (``retry_delay``; a Retry-After also pushes back the host's slot), else None."""
        if not result.outcome.retryable:
            return None
        if result.outcome is Outcome.RATE_LIMITED and result.retry_after:
            self.politeness.push_back(host_of(task.url), result.retry_after)
        wait = retry_delay(result, task.attempt, self.config)
        if wait is None:
            return None
        frontier.count(retries=1)
        return StepResult(task, defer=wait, next_task=UrlTask(task.url, task.depth, task.attempt + 1),
                          reason=f"retry after {result.outcome.value}: {result.reason}",
                          status=result.status)

    def _redirected(self, frontier, scan_id, rules: SiteRules, task: UrlTask, result: FetchResult,
                    key: str, redirected_to: Page | None) -> StepResult:
        """A page reached through redirects at canonical URL ``key`` (not the task's):
        processed under ``key`` (against the page stored there; ``redirected_to`` when the
        task's URL redirected there last time), or finished as ``redirect_seen`` when another
        task admitted ``key`` first."""
        if not frontier.mark_seen(key):
            return self._finish(frontier, scan_id, task, Outcome.REDIRECT_SEEN,
                                f"redirected to {key}, already admitted in this scan",
                                result.status)
        target = redirected_to if redirected_to and redirected_to.canonical_url == key else None
        return self._process(frontier, scan_id, rules, task, result,
                             target or self.pages.get(key), key)

    def _trap_or_robots(self, url: str, accept_invalid_certificate: bool = False
                        ) -> tuple[tuple[Outcome, str] | None, RobotsPolicy | None]:
        """The checks every URL passes before it is fetched, a task's own or a redirect hop's.

        Returns ``(refusal, policy)``: refusal is None or ``(Outcome.TRAP | ROBOTS_DISALLOWED,
        reason)``; policy is the robots.txt policy of the URL's origin (None when a trap
        refused it first), whose Crawl-delay the caller may need.
        """
        trap = self._trap(url)
        if trap:
            return (Outcome.TRAP, trap), None
        policy = self.robots.policy(url, accept_invalid_certificate)
        if not policy.allowed(url):
            return (Outcome.ROBOTS_DISALLOWED, f"robots.txt ({policy.reason})"), policy
        return None, policy

    def _hop_check(self, frontier, rules: SiteRules) -> HopCheck:
        """The Fetcher's ``check_hop``: a function taking a redirect target's canonical URL
        (str) and returning None when it passes the admission checks of a link (scope, trap,
        robots.txt of its origin, not yet in the scan's seen-set), else (Outcome, reason).
        The fetcher refuses a redirect back to the task's own URL as a loop before asking."""

        def check(url: str) -> tuple[Outcome, str] | None:
            if not rules.in_scope(url):
                return (Outcome.REDIRECT_OUT_OF_SCOPE,
                        f"redirect to {url}: outside the allowed domains or path patterns")
            refusal, _ = self._trap_or_robots(url, rules.accept_invalid_certificate)
            if refusal:
                return _AS_REDIRECT[refusal[0]], f"redirect to {url}: {refusal[1]}"
            if frontier.is_seen(url):
                return Outcome.REDIRECT_SEEN, f"redirect to {url}, already admitted in this scan"
            return None

        return check

    def _process(self, frontier, scan_id, rules, task, result: FetchResult, stored,
                 key: str | None = None) -> StepResult:
        """Store and extract a fetched page under canonical URL ``key`` (default ``task.url``;
        the final URL's canonical form after redirects); returns the finished StepResult."""
        key = key or task.url
        # pages_fetched is counted with what the page turned out to be (new, changed, unchanged,
        # or a feed or sitemap), so that those add up to it; a page without text is an error
        if result.kind == "xml":
            frontier.count(pages_fetched=1)
            admitted = self._admit_links(frontier, scan_id, rules, task,
                                         _canonical_all(xml_links(result.body, result.final_url)))
            return self._finish(frontier, scan_id, task, Outcome.OK, "feed or sitemap", result.status,
                                admitted=admitted)
        # a rendered page is compared by its text: the same shell may load other text
        if stored and not rules.needs_browser and stored.content_hash == sha256(result.body):
            return self._unchanged(frontier, scan_id, rules, task, result, stored, key)
        content = self._content(frontier, scan_id, rules, task, result, stored, key)
        if isinstance(content, StepResult):
            return content
        text = _page_text(content, result, key)
        saved = self.pages.save(
            canonical_url=key, url=task.url, final_url=result.final_url,
            domain=host_of(result.final_url), site_id=rules.site_id, scan_id=scan_id,
            status=result.status, outcome=text.outcome.value,
            reason=text.extracted.error or "", headers=result.headers, validators=result.validators,
            body=content.body, text=text.extracted.text, title=text.extracted.title or None,
            published=text.extracted.date, encoding=content.encoding,
            extraction={"method": text.extracted.method, "error": text.extracted.error},
            links=text.links, part_of=text.part_of, expect_new=stored is None)
        frontier.count(**{f"pages_{saved.change}": 1, "pages_fetched": int(saved.change != "no_text"),
                          "ms_decode": content.ms_decode, **text.timings,
                          "ms_store": _ms(time.perf_counter() - text.done_at)})
        return self._stored(frontier, scan_id, rules, task, result, text, saved, key)

    def _content(self, frontier, scan_id, rules: SiteRules, task: UrlTask, result: FetchResult,
                 stored: Page | None, key: str) -> _Content | StepResult:
        """The fetched body decoded to text and, for a site that needs a browser, its HTML page
        rendered (counted as ms_render, render_requests). Returns the _Content, or the
        finished StepResult when rendering failed (a visit recorded on ``stored``)."""
        started = time.perf_counter()
        decoded = decode_bytes(result.body, result.headers.get("content-type"))
        content = _Content(decoded.text, result.body, f"{decoded.encoding} ({decoded.source})",
                           _ms(time.perf_counter() - started), time.perf_counter())
        if not (rules.needs_browser and result.kind == "html"):
            return content
        rendered = self.renderer.render(result.final_url, decoded.text, self._robots_check)
        frontier.count(ms_render=_ms(rendered.elapsed), render_requests=rendered.requests)
        content.refused = [{"url": u, "reason": r} for u, r in rendered.refused]
        if rendered.outcome is not Outcome.OK:
            if stored:
                self.pages.record_visit(key, scan_id=scan_id, outcome=rendered.outcome.value,
                                        status=result.status, reason=rendered.reason)
            return self._finish(frontier, scan_id, task, rendered.outcome, rendered.reason,
                                result.status, refused=content.refused)
        content.document, content.body = rendered.html, rendered.html.encode("utf-8")
        content.encoding += ", rendered"
        content.ready_at = time.perf_counter()  # extraction's time starts after rendering
        return content

    def _stored(self, frontier, scan_id, rules: SiteRules, task: UrlTask, result: FetchResult,
                text: _PageText, saved, key: str) -> StepResult:
        """After a page version was saved: admit its next part (at this page's depth: a
        chapter's parts do not spend link depth) and its links, keep its exchange when the
        version is to be matched, and return the finished StepResult."""
        parts = self._admit_links(frontier, scan_id, rules, task, text.parts, task.depth)
        admitted = self._admit_links(frontier, scan_id, rules, task, text.links)
        outcome = text.outcome
        if text.extracted.ok and saved.change == "unchanged":
            outcome = Outcome.UNCHANGED
        match = (saved.page_id, saved.version_id) if saved.needs_matching else None
        if match and saved.version_id and result.exchange.size <= self.config.exchange_max_bytes:
            self.exchanges.put(saved.version_id, result.exchange)  # kept if the version matches
        return self._finish(frontier, scan_id, task, outcome, text.extracted.error or saved.change,
                            result.status, refused=text.refused, admitted=admitted, match=match,
                            stored=saved.stored if match else None, change=saved.change,
                            page=(saved.page_id, saved.version_id),
                            final_url=key if key != task.url else "", parts=parts)

    def _unchanged(self, frontier, scan_id, rules, task, result: FetchResult, stored,
                   key: str | None = None) -> StepResult:
        """Record a visit without new content of the page stored under ``key`` (default
        ``task.url``) and admit its stored links; returns the finished StepResult."""
        key = key or task.url
        self.pages.record_visit(key, scan_id=scan_id, outcome=result.outcome.value,
                                status=result.status)
        frontier.count(pages_unchanged=1, pages_fetched=1)
        parts = []
        if stored.part_of:
            number = chapter_part(key)[1]
            parts = [u for u in stored.links if chapter_part(u) == (stored.part_of, number + 1)]
            parts = self._admit_links(frontier, scan_id, rules, task, parts, task.depth)
        admitted = self._admit_links(frontier, scan_id, rules, task, stored.links)
        return self._finish(frontier, scan_id, task, result.outcome if result.outcome is Outcome.NOT_MODIFIED
                            else Outcome.UNCHANGED, "same content as stored", result.status,
                            admitted=admitted, change="unchanged",
                            page=(stored.id, stored.version_id),
                            final_url=key if key != task.url else "", parts=parts)

    def _admit_links(self, frontier, scan_id, rules, task, links: list[str],
                     depth: int | None = None) -> list[str]:
        """Admit in-scope ``links`` (canonical URLs) at ``depth`` (default the task's depth + 1);
        links into URL traps are recorded once as 'trap'. Returns the canonical URLs admitted
        (``Frontier.admit``: new, or admitted by this page before)."""
        depth = task.depth + 1 if depth is None else depth
        in_scope = [u for u in links if rules.in_scope(u)]
        safe: list[str] = []
        traps: list[tuple[str, str]] = []
        for url in in_scope:
            reason = self._trap(url)
            if reason:
                traps.append((url, reason))
            else:
                safe.append(url)
        for url, reason in traps:
            if frontier.mark_seen(url):
                self.log.record(scan_id, url, Outcome.TRAP.value, reason=reason, attempts=0,
                                depth=depth)
                frontier.count_outcome(Outcome.TRAP.value)
        verdicts = frontier.admit(safe, depth, parent=task.url)
        return [u for u, v in verdicts.items() if v == "admitted"]

    def _robots_check(self, url: str) -> str | None:
        """The renderer's check of a page's own requests: the robots.txt of their origin."""
        policy = self.robots.policy(url)
        return None if policy.allowed(url) else f"{Outcome.ROBOTS_DISALLOWED.value} ({policy.reason})"

    def _trap(self, url: str) -> str | None:
        return trap_reason(url, max_url_length=self.config.max_url_length,
                           max_path_depth=self.config.max_path_depth,
                           max_segment_repeats=self.config.max_segment_repeats).reason

    def _finish(self, frontier, scan_id, task: UrlTask, outcome: Outcome, reason: str = "",
                status: int | None = None, refused: list[dict] | None = None,
                location: str | None = None, **kw) -> StepResult:
        self.log.record(scan_id, task.url, outcome.value, reason=reason, status=status,
                        attempts=task.attempt + 1, depth=task.depth, refused=refused,
                        location=location)
        frontier.count_outcome(outcome.value)
        return StepResult(task, outcome=outcome, reason=reason, status=status, **kw)


@dataclass
class _Content:
    """A fetched page ready for extraction: ``document`` (its text, or the rendered HTML),
    ``body`` (the bytes stored), ``encoding`` (how it was decoded, ", rendered" added),
    ``ms_decode`` (milliseconds to decode), ``ready_at`` (time.perf_counter() when extraction
    may start) and ``refused`` (the renderer's refused requests: url, reason)."""

    document: str
    body: bytes
    encoding: str
    ms_decode: int
    ready_at: float
    refused: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _PageText:
    """What extraction found in a page: ``extracted`` (text, title, method, error),
    ``outcome`` (OK or EXTRACT_FAILED), its canonical ``links``, next-part links (``parts``)
    and the chapter it is part of (``part_of``, "" when none), the renderer's ``refused``
    requests, ``timings`` (ms_extract, ms_links, cpu_us_extract) and ``done_at``
    (time.perf_counter() at the end)."""

    extracted: Extracted
    outcome: Outcome
    links: list[str]
    parts: list[str]
    part_of: str
    refused: list[dict[str, str]]
    timings: dict[str, int]
    done_at: float


def _page_text(content: _Content, result: FetchResult, key: str) -> _PageText:
    """Extract the main text, title and, from an HTML page, the links and next parts of
    ``content`` (one lxml tree for all; the text: resiliparse), timed from
    ``content.ready_at``; ``key``: the page's canonical URL."""
    cpu_started = time.process_time()
    parsed = parse_html(content.document) if result.kind == "html" else content.document
    extracted = extract_document(parsed, result.kind, result.final_url, with_author=False,
                                 with_date=False)
    text_at = time.perf_counter()
    links, parts, part_of = [], [], ""
    if result.kind == "html":
        links = _canonical_all(html_links(parsed, result.final_url))
        parts = _canonical_all(next_part_links(parsed, result.final_url))
        part_of = chapter_of(key, links, parts)
    done_at = time.perf_counter()
    timings = {"ms_extract": _ms(text_at - content.ready_at), "ms_links": _ms(done_at - text_at),
               "cpu_us_extract": microseconds(time.process_time() - cpu_started)}
    return _PageText(extracted, Outcome.OK if extracted.ok else Outcome.EXTRACT_FAILED, links,
                     parts, part_of, content.refused, timings, done_at)


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _canonical_all(urls: list[str]) -> list[str]:
    out = []
    for url in urls:
        try:
            out.append(canonical_url(url))
        except InvalidURL:
            continue
    return list(dict.fromkeys(out))
