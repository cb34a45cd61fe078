"""Celery tasks of the crawler: start_scan, crawl_urls and crawl_url on settings.QUEUE_CRAWL,
render_url on settings.QUEUE_RENDER, match_page on settings.QUEUE_MATCH
(settings.CELERY_TASK_ROUTES).

The URLs a page admits go out settings.CRAWL_BATCH_URLS to a crawl_urls task, crawled one
after the other, each finished and counted on its own, once whatever task crawls it (a task
delivered again after its worker died finds the pages it stored unchanged, counts nothing
twice and sends again the links they admitted); render_url, one per URL,
for a site that needs a browser (the same work, on the workers that have Chromium). A URL that
must wait (politeness slot, retry backoff) is sent again alone, as crawl_url, with a countdown
instead of sleeping in the worker. Each finished URL enqueues the
URLs it admitted and, for a new or changed page, matches it: in the crawl task itself when
settings.CRAWL_MATCH_INLINE (no hand-off: the page's text is matched where it was stored; a
worker killed meanwhile gets the crawl task back, finds the page stored but not matched and
matches it), else through one match_page task; the task that brings the scan's pending count
to zero closes the scan run. MongoDB or Redis being unreachable makes a
task retry with backoff (``settings.CRAWL_STORAGE_RETRIES`` times, delays from
``lib.runtime.backoff.backoff_delay``), after which the URL counts as failed. The per-page
tasks keep no result in the result backend (nobody reads it; the frontier's counters and the
crawl log are the record): one Redis write and one key per page fewer.
"""

from __future__ import annotations

import dataclasses
import functools
import time

from celery import shared_task
from celery.utils.log import get_task_logger
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from core import import_jobs, notes, registration
from core.connections import get_redis, storage_errors
from core.engine import get_engine
from crawler import (
    archives,
    contacts,
    discovery,
    domain_moves,
    matching,
    rdap_contacts,
    rematch,
    scans,
    takedown,
)
from crawler.models import CandidateStatus, ContactSearch, Match, ScanRun, SiteContact, TargetSite
from lib.crawl import pagekeys
from lib.crawl.frontier import microseconds
from lib.crawl.outcomes import Outcome
from lib.crawl.pipeline import SiteRules, UrlTask
from lib.crawl.rdap import RdapRetryable
from lib.runtime.backoff import backoff_delay

log = get_task_logger(__name__)  # into the worker's log file (-f), with the task id


def _retry_delay(retries: int) -> float:
    """Seconds before retry ``retries + 1`` of a task that found MongoDB or Redis down."""
    return backoff_delay(retries, settings.CRAWL_RETRY_BASE_SECONDS,
                         settings.STORAGE_RETRY_MAX_SECONDS)


def _rules(scan_id: int) -> SiteRules:
    """The crawl rules of a scan's site, as frozen in the frontier when the scan started."""
    return SiteRules.from_dict(scans.get_crawler().frontier(scan_id).context()["rules"])


def enqueue_url(scan_id: int, token: str, url: str, depth: int = 0, attempt: int = 0,
                reserved: bool = False, countdown: float | None = None,
                browser: bool = False) -> None:
    """Send one crawl task of run ``token`` to the workers, after ``countdown`` seconds:
    render_url when the site needs a ``browser``, else crawl_url; inside a transaction, once it
    commits (the task reads the ScanRun row)."""
    task = render_url if browser else crawl_url
    transaction.on_commit(lambda: task.apply_async((scan_id, url, depth, attempt, reserved, token),
                                                   countdown=countdown))


def enqueue_urls(scan_id: int, token: str, tasks: list[UrlTask], browser: bool = False) -> None:
    """Send admitted URLs ``tasks`` of run ``token`` to the workers at once: one render_url
    each when the site needs a ``browser``, else crawl_urls tasks of at most
    settings.CRAWL_BATCH_URLS URLs each (one message, one task for several pages); inside a
    transaction, once it commits."""
    if browser:
        for t in tasks:
            enqueue_url(scan_id, token, t.url, t.depth, t.attempt, t.reserved, browser=True)
        return
    size = settings.CRAWL_BATCH_URLS
    for first in range(0, len(tasks), size):
        batch = [[t.url, t.depth, t.attempt, t.reserved] for t in tasks[first:first + size]]
        transaction.on_commit(lambda batch=batch: crawl_urls.apply_async((scan_id, batch, token)))


def launch(site: TargetSite, *, max_pages: int | None = None, trigger: str = "command") -> ScanRun:
    """Start a scan run of ``site`` (crawler.scans.start) and send its start URLs to the workers.

    Returns the ScanRun: 'running', or 'skipped' when another scan of the site runs, or
    'finished' at once when no start URL could be crawled. Raises ValueError for max_pages < 1.
    """
    scan, urls, token = scans.start(site, max_pages=max_pages, trigger=trigger)
    enqueue_urls(scan.pk, token, [UrlTask(url) for url in urls], browser=site.needs_browser)
    return scan


@shared_task(bind=True, name="crawler.start_scan")
def start_scan(self, site_id: int, max_pages: int | None = None, trigger: str = "schedule") -> int | None:
    """Start a scan run of TargetSite ``site_id`` and enqueue its start URLs.

    Returns the ScanRun id (also for a run recorded as skipped), or None when the site does not
    exist or is disabled and the trigger is the schedule.
    """
    site = TargetSite.objects.filter(pk=site_id).first()
    if site is None or (trigger == "schedule" and not site.enabled):
        log.info("no scan: site %s missing or disabled", site_id)
        return None
    return launch(site, max_pages=max_pages, trigger=trigger).pk


@shared_task(bind=True, name="crawler.crawl_url", max_retries=settings.CRAWL_STORAGE_RETRIES,
             ignore_result=True)
def crawl_url(self, scan_id: int, url: str, depth: int = 0, attempt: int = 0,
              reserved: bool = False, token: str = "") -> str:
    """Crawl one admitted URL of scan ``scan_id`` (see lib.crawl.pipeline.Crawler.step); the
    task of a URL sent again with a countdown (politeness slot, retry backoff).

    Returns the outcome value, 'deferred' when the URL was sent again with a countdown, or
    'stale' when ``token`` is not the scan's open run (the task is dropped uncounted).
    """
    return _crawl(self, scan_id, [[url, depth, attempt, reserved]], token)[0]


@shared_task(bind=True, name="crawler.crawl_urls", max_retries=settings.CRAWL_STORAGE_RETRIES,
             ignore_result=True)
def crawl_urls(self, scan_id: int, urls: list, token: str = "", start: int = 0) -> list[str]:
    """Crawl admitted URLs ``urls`` ([url, depth, attempt, reserved] lists) of scan ``scan_id``
    one after the other, from index ``start`` (a retry resumes where MongoDB or Redis failed).

    Each URL is finished and counted on its own, as crawl_url would: one that fails does not
    stop the others. Returns the outcome values, as crawl_url's, of ``urls[start:]``.
    """
    return _crawl(self, scan_id, urls, token, start)


@shared_task(bind=True, name="crawler.render_url", max_retries=settings.CRAWL_STORAGE_RETRIES,
             ignore_result=True)
def render_url(self, scan_id: int, url: str, depth: int = 0, attempt: int = 0,
               reserved: bool = False, token: str = "") -> str:
    """crawl_url for a site that needs a browser (its HTML pages are rendered in Chromium,
    lib.crawl.render), on settings.QUEUE_RENDER. Returns what crawl_url returns."""
    return _crawl(self, scan_id, [[url, depth, attempt, reserved]], token)[0]


def _crawl(task, scan_id: int, urls: list, token: str, start: int = 0) -> list[str]:
    """The body of crawl_url, crawl_urls and render_url (``task``: the bound Celery task, for
    retries): the URLs ``urls[start:]`` in turn. A URL counts as finished under its
    ``url_done_id``: a URL is admitted once a scan, so however many tasks crawl it (a retry, a
    redelivery, its deferral sent again, a parent page that sent it again) it is counted once."""
    crawler = scans.get_crawler()
    if not crawler.frontier(scan_id).accepts(token):
        log.info("dropping %d URL(s) from %s: scan %s is not open for this run", len(urls),
                 urls[0][0], scan_id)
        return ["stale"] * (len(urls) - start)
    with matching.batch_of_pages():  # e.g. one capture message for the whole batch
        return _crawl_batch(task, crawler, scan_id, urls, token, start)


def url_done_id(url: str) -> str:
    """The id an admitted URL (canonical, str) counts as finished under in its scan's frontier
    (``Frontier.task_done``), whatever task crawls it."""
    return f"url:{url}"


def _crawl_batch(task, crawler, scan_id: int, urls: list, token: str, start: int) -> list[str]:
    outcomes, rules = [], None
    for i in range(start, len(urls)):
        done_id = url_done_id(urls[i][0])
        try:
            rules = rules or _rules(scan_id)
            outcomes.append(_crawl_one(crawler, scan_id, UrlTask(*urls[i]), rules, token, done_id))
        except storage_errors() as exc:
            if task.request.retries < settings.CRAWL_STORAGE_RETRIES:
                args = (scan_id, urls, token, i) if len(urls) > 1 else None
                raise task.retry(args=args, exc=exc,
                                 countdown=_retry_delay(task.request.retries)) from exc
            log.error("giving up %s of scan %s: storage unreachable: %s", urls[i][0], scan_id, exc)
            crawler.frontier(scan_id).count_outcome(Outcome.CONNECTION_ERROR.value)
            _done(scan_id, done_id)
            outcomes.append(Outcome.CONNECTION_ERROR.value)
        except Exception:
            # whatever went wrong, the scan must still be able to finish, and the batch go on
            log.exception("crawling %s of scan %s failed", urls[i][0], scan_id)
            crawler.frontier(scan_id).count_outcome(Outcome.INTERNAL_ERROR.value)
            _done(scan_id, done_id)
            outcomes.append(Outcome.INTERNAL_ERROR.value)
    return outcomes


def _crawl_one(crawler, scan_id: int, url_task: UrlTask, rules: SiteRules, token: str,
               done_id: str) -> str:
    """Crawl one URL of a crawl task, enqueue what it admitted, match its page and count it
    finished under ``done_id``. Returns the outcome value, or 'deferred' (sent again with a
    countdown: not finished). Raises what MongoDB, Redis and the pipeline raise."""
    frontier = crawler.frontier(scan_id)
    # the crawl's and the match's counters go to Redis in one round trip, before the URL is done
    with frontier.batched():
        outcome = _crawl_and_match(crawler, frontier, scan_id, url_task, rules, token)
    if outcome != "deferred":
        _done(scan_id, done_id)
    return outcome


def _crawl_and_match(crawler, frontier, scan_id: int, url_task: UrlTask, rules: SiteRules,
                     token: str) -> str:
    """Crawl one URL, enqueue what it admitted and match its page, counting in ``frontier``
    (the scan's Frontier). Returns the outcome value, or 'deferred'."""
    cpu_started = time.process_time()
    result = crawler.step(scan_id, rules, url_task, frontier)
    if result.outcome is None:
        nxt = result.next_task
        enqueue_url(scan_id, token, nxt.url, nxt.depth, nxt.attempt, nxt.reserved,
                    countdown=result.defer, browser=rules.needs_browser)
        return "deferred"
    depth = url_task.depth
    # the next part of a chapter page: same depth
    enqueue_urls(scan_id, token, [UrlTask(child, depth + 1) for child in result.admitted]
                 + [UrlTask(part, depth) for part in result.parts], browser=rules.needs_browser)
    takedown.record_gone(scan_id, url_task.url, result.status, result.exchange)  # gone: 404/410
    to_match = _to_match(crawler, frontier, scan_id, result)
    frontier.count(cpu_us_crawl=microseconds(time.process_time() - cpu_started))
    if to_match:
        _match_or_hand_over(crawler, frontier, scan_id, to_match, token,
                            result.stored if to_match == result.match else None)
    return result.outcome.value


def _to_match(crawler, frontier, scan_id: int, result) -> tuple[str, str] | None:
    """The (page_id, version_id) to match after a finished URL: a new or changed version; or an
    unchanged page (whose matches are seen again) when works were indexed since its matching."""
    if result.change != "unchanged" or not result.page:
        return result.match
    takedown.record_back(result.page[0], scan_id, result.status, "")
    still = matching.seen_again(result.page[0], ScanRun.objects.filter(pk=scan_id).first())
    if still:
        frontier.count(matches=still)
    page = crawler.pages.page(result.page[0])
    return result.page if page and result.page[1] and matching.needs_rematch(page) else None


@shared_task(bind=True, name="crawler.match_page", max_retries=settings.CRAWL_STORAGE_RETRIES,
             ignore_result=True)
def match_page(self, scan_id: int, page_id: str, version_id: str, token: str = "") -> dict:
    """Match page version ``version_id`` of page ``page_id`` with the registered works and record
    the matches for scan ``scan_id``. Returns the MatchReport as a dict ({} for a stale task)."""
    crawler = scans.get_crawler()
    frontier = crawler.frontier(scan_id)
    if not frontier.accepts(token):
        return {}
    try:
        report = _match(crawler, frontier, scan_id, page_id, version_id)
    except storage_errors() as exc:
        if self.request.retries < settings.CRAWL_STORAGE_RETRIES:
            raise self.retry(exc=exc, countdown=_retry_delay(self.request.retries)) from exc
        log.error("giving up matching %s of scan %s: %s", page_id, scan_id, exc)
        frontier.count(match_errors=1)
        _done(scan_id, self.request.id, url_finished=False)
        return {}
    except Exception:
        log.exception("matching %s of scan %s failed", page_id, scan_id)
        frontier.count(match_errors=1)
        _done(scan_id, self.request.id, url_finished=False)
        raise
    _done(scan_id, self.request.id, url_finished=False)
    return dataclasses.asdict(report)


@functools.lru_cache(maxsize=settings.SCAN_SITES_CACHED)
def _scan_site(scan_id: int) -> int:
    """The site id of scan ``scan_id``, read once per process. Raises LookupError when the
    scan is gone (not cached: it is read again next time)."""
    site_id = ScanRun.objects.filter(pk=scan_id).values_list("site_id", flat=True).first()
    if site_id is None:
        raise LookupError(scan_id)
    return site_id


def scan_for_recording(scan_id: int) -> ScanRun | None:
    """Scan ``scan_id`` as recording a match needs it (its pk and site_id; no other field is
    read), or None when it is gone."""
    try:
        return ScanRun(pk=scan_id, site_id=_scan_site(scan_id))
    except LookupError:
        return None


def _match(crawler, frontier, scan_id: int, page_id: str, version_id: str,
           stored: tuple | None = None) -> matching.MatchReport:
    """Match a stored page version, record its matches and count them in the scan (the body of
    match_page, also run by the crawl task itself) in ``frontier`` (the scan's Frontier; inside
    its ``batched`` block the counts go with the crawl's). ``stored``: the (Page, PageVersion) just
    stored by the crawl task (read from MongoDB when None). Raises what MongoDB, Redis and the
    engine raise; every step may run again (the recording is an upsert)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    cpu_engine = 0.0
    page, version = stored or (crawler.pages.page(page_id), crawler.pages.version(version_id))
    if page is None or version is None:
        report = matching.MatchReport(0, 0, 0, 0)
    else:
        engine = get_engine()
        cpu_engine = time.process_time()
        found = engine.match_with_keys(version.text)
        cpu_engine = time.process_time() - cpu_engine
        scan = functools.partial(scan_for_recording, scan_id)
        try:
            report = matching.record_matches(page, version, scan, found.matches)
        except IntegrityError:
            if ScanRun.objects.filter(pk=scan_id).exists():
                raise
            _scan_site.cache_clear()  # the scan was deleted with its site: record without it
            report = matching.record_matches(page, version, scan, found.matches)
        # kept for the stored-page search of later works (crawler.rematch)
        crawler.pages.mark_matched(page_id, version_id, pagekeys.pack(found.keys, engine.config))
    frontier.count(
        matches=report.found, matches_new=report.new, matches_whitelisted=report.whitelisted,
        pages_matched=1, ms_match=int((time.perf_counter() - started) * 1000),
        cpu_us_match=microseconds(time.process_time() - cpu_started),
        cpu_us_engine=microseconds(cpu_engine))
    return report


def _match_or_hand_over(crawler, frontier, scan_id: int, page: tuple[str, str], token: str,
                        stored: tuple | None = None) -> None:
    """Match page version ``page`` ((page_id, version_id); ``stored``: its Page and PageVersion
    as just stored, or None) in the crawl task when settings.CRAWL_MATCH_INLINE; else, or when
    MongoDB or Redis failed it here, send a match_page task (which retries on its own and counts
    in the scan's pending tasks). A matching that fails otherwise is counted in
    ``match_errors``; the URL is crawled."""
    if settings.CRAWL_MATCH_INLINE:
        try:
            _match(crawler, frontier, scan_id, *page, stored=stored)
            return
        except storage_errors() as exc:
            log.warning("matching %s of scan %s in the crawl task failed (%s): handed over",
                        page[0], scan_id, exc)
        except Exception:
            log.exception("matching %s of scan %s failed", page[0], scan_id)
            frontier.count(match_errors=1)
            return
    # counted before it is sent, once under an id of its own: a crawl task delivered again
    # after its worker died between the two sends it again, and it is counted finished once
    task_id = f"match-{scan_id}-{page[1]}"
    frontier.add_pending(task_id)
    match_page.apply_async((scan_id, *page, token), task_id=task_id)


def _done(scan_id: int, task_id: str, url_finished: bool = True) -> None:
    """Count task ``task_id`` of scan ``scan_id`` finished (once, however often it is
    delivered); the task that leaves none pending closes the scan."""
    if scans.get_crawler().frontier(scan_id).task_done(url_finished, task_id or "") <= 0:
        scans.finish(scan_id)


@shared_task(name="crawler.sweep_stuck")
def sweep_stuck() -> dict:
    """Resolve stuck states (beat, every settings.SWEEP_INTERVAL_SECONDS): close as failed the
    running scans that are stuck (crawler.scans.sweep_stuck), queue again the works left
    pending (core.registration.requeue_pending) and resume or fail the dashboard imports
    whose worker was lost (core.import_jobs.fail_stale).

    The contact searches and RDAP lookups whose task was lost are resumed or failed
    (crawler.contacts.sweep_searches, crawler.rdap_contacts.sweep_lookups); the archive scans without progress are sent again
    (crawler.archives.sweep_stuck), to resume or fail.

    Returns:
        {"scans_failed": [scan ids], "works_requeued": [work ids], "imports_failed": [ids],
        "contact_searches": [site contact ids], "rdap_lookups": [site contact ids], "archive_scans": [archive scan ids]}.
    """
    return {"scans_failed": scans.sweep_stuck(), "works_requeued": registration.requeue_pending(),
            "imports_failed": import_jobs.fail_stale(),
            "contact_searches": contacts.sweep_searches(),
            "rdap_lookups": rdap_contacts.sweep_lookups(),
            "archive_scans": archives.sweep_stuck()}


@shared_task(bind=True, name="crawler.discover_sites", max_retries=settings.CRAWL_STORAGE_RETRIES)
def discover_sites(self) -> dict:
    """One discovery pass (crawler.discovery.discover): candidate sites counted from the links
    of matched pages, the new ones sampled. Returns {"sampled": [domains], "proposed": [the
    sampled domains now proposed]}. Retries with backoff while MongoDB or Redis is down."""
    try:
        sampled = discovery.discover(scans.get_crawler(), get_engine())
    except storage_errors() as exc:
        raise self.retry(exc=exc, countdown=_retry_delay(self.request.retries)) from exc
    return {"sampled": [c.domain for c in sampled],
            "proposed": [c.domain for c in sampled if c.status == CandidateStatus.PROPOSED]}


@shared_task(name="crawler.check_matches")
def check_matches(match_ids: list[int]) -> dict:
    """Takedown checks asked for now (``crawler.site_actions.do_check_site``): each match of
    ``match_ids`` still there is fetched again and the outcome recorded
    (``crawler.takedown.verify_match``). Returns {"checked": {match id: outcome}}."""
    engine = get_engine()
    return {"checked": {m.pk: takedown.verify_match(m, engine).outcome for m in
                        Match.objects.filter(pk__in=match_ids).select_related("work", "site")}}


@shared_task(bind=True, name="crawler.find_contacts", max_retries=settings.CRAWL_STORAGE_RETRIES)
def find_contacts(self, contact_id: int) -> dict:
    """Search the site of SiteContact ``contact_id`` for takedown addresses
    (``crawler.contacts.search``) and store them as suggestions; Redis down retries with
    backoff, then the search is recorded as failed; any other error records it failed at once
    (logged), so a search never stays "searching". Returns {"found": [addresses], "pages": n}."""
    contact = SiteContact.objects.filter(pk=contact_id).first()
    if contact is None or contact.search != ContactSearch.SEARCHING:
        return {"found": [], "pages": 0}
    pages = 0
    try:
        found, pages, icp = contacts.search(contact, scans.get_crawler())
        contact = contacts.do_record_contact_search(contact_id, found, pages, icp=icp)
    except storage_errors() as exc:
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=_retry_delay(self.request.retries)) from exc
        contacts.do_record_contact_search(contact_id, [], 0, notes.coded(
            "contact_search_storage", gettext_noop("storage unavailable: %(error)s"), error=str(exc)[:300]))
        return {"found": [], "pages": 0}
    except Exception as exc:  # never leave the search "searching": say what broke
        log.exception("contact search %s failed", contact_id)
        contacts.do_record_contact_search(contact_id, [], pages, notes.coded(
            "contact_search_error", gettext_noop("the search failed: %(error)s"),
            error=f"{type(exc).__name__}: {exc}"[:300]))
        return {"found": [], "pages": pages}
    return {"found": sorted(contact.suggestions.values_list("address", flat=True)),
            "pages": pages}


@shared_task(bind=True, name="crawler.find_rdap_contacts", max_retries=settings.RDAP_MAX_RETRIES)
def find_rdap_contacts(self, contact_id: int) -> dict:
    """Look up the registrar's and hosting provider's abuse addresses of SiteContact
    ``contact_id`` in RDAP (``crawler.rdap_contacts.lookup``) and store them as suggestions. A
    timeout, 429, 5xx or malformed answer is noted and retried after backoff_delay (or the
    server's longer Retry-After), settings.RDAP_MAX_RETRIES times, then recorded failed; any
    other error records it failed at once (logged): a lookup never stays "searching".
    Returns {"found": [addresses stored for the site], "state": the lookup's state}."""
    contact = SiteContact.objects.filter(pk=contact_id).first()
    if contact is None or contact.rdap != ContactSearch.SEARCHING:
        return {"found": [], "state": contact.rdap if contact else ""}
    try:
        found, missing = rdap_contacts.lookup(contact, rdap_contacts.client())
        contact = rdap_contacts.do_record_rdap_lookup(contact_id, found, missing)
    except RdapRetryable as exc:
        if self.request.retries < self.max_retries:
            delay = min(settings.RDAP_RETRY_MAX_SECONDS, max(
                exc.retry_after or 0.0, backoff_delay(self.request.retries,
                                                      settings.RDAP_RETRY_BASE_SECONDS,
                                                      settings.RDAP_RETRY_MAX_SECONDS)))
            rdap_contacts.do_note_rdap_retry(contact_id, str(exc), delay)
            raise self.retry(exc=exc, countdown=delay) from exc
        contact = rdap_contacts.do_record_rdap_lookup(contact_id, [], failure=rdap_contacts.rdap_failure(
            str(exc), self.request.retries + 1))
    except Exception as exc:  # never leave the lookup "searching": say what broke
        log.exception("RDAP lookup %s failed", contact_id)
        contact = rdap_contacts.do_record_rdap_lookup(contact_id, [], failure=rdap_contacts.rdap_failure(
            f"{type(exc).__name__}: {exc}", self.request.retries + 1))
    return {"found": sorted(contact.suggestions.values_list("address", flat=True)),
            "state": contact.rdap}


@shared_task(bind=True, name="crawler.rematch_pending", max_retries=settings.CRAWL_STORAGE_RETRIES)
def rematch_pending(self) -> dict:
    """Search the stored pages for the works indexed since the last pass (crawler.rematch).

    Returns:
        {"job": RematchJob id or None, "works": [work ids]}. While MongoDB or Redis is
        unreachable the works go back to the pending set and the task retries with backoff.
    """
    work_ids = rematch.take_pending()
    if not work_ids:
        return {"job": None, "works": []}
    try:
        job = rematch.run(work_ids, get_engine(), scans.get_crawler().pages)
    except storage_errors() as exc:
        if self.request.retries >= settings.CRAWL_STORAGE_RETRIES:
            raise
        get_redis().sadd(rematch.PENDING_KEY, *work_ids)  # back for the retry
        raise self.retry(exc=exc, countdown=_retry_delay(self.request.retries)) from exc
    return {"job": job.pk if job else None, "works": work_ids}


@shared_task(bind=True, name="crawler.check_site_moved", max_retries=settings.CRAWL_STORAGE_RETRIES)
def check_site_moved(self, scan_id: int) -> dict:
    """After scan ``scan_id`` closed, look for its site's new domain
    (``crawler.domain_moves.check_scan``: permanent redirects the scan met, or candidate sites
    serving the same pages once the site stopped answering). Returns {"proposed": [domains
    proposed as moved from the site]}. Retries with backoff while MongoDB or Redis is down."""
    scan = ScanRun.objects.select_related("site").filter(pk=scan_id).first()
    if scan is None:
        return {"proposed": []}
    try:
        found = domain_moves.check_scan(scan, scans.get_crawler())
    except storage_errors() as exc:
        raise self.retry(exc=exc, countdown=_retry_delay(self.request.retries)) from exc
    return {"proposed": [c.domain for c in found]}


from crawler import search_tasks  # noqa: E402,F401  (registers the search discovery tasks)
from crawler.archive_tasks import scan_archive_file  # noqa: E402, F401 - registers the task
