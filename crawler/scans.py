"""Scan runs: start one (at most one per site at a time), finish it, cancel it.

A Redis lock per site (SET NX with a TTL, released by compare-and-delete) makes sure that two
scans of one site never run together, even when beat and a staff member start one at the same
moment from different machines: the second is recorded as a ScanRun with status 'skipped' and
a note naming the running one. A scan whose worker died (no task finished for an hour) does not
block its site: the next start closes it as failed and takes over. The scan finishes when its frontier's pending count drops to zero
(the task that brings it there calls ``finish``), which copies the Redis counters to the ScanRun.
"""

from __future__ import annotations

import functools
import logging
import os
import time

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_noop
from tqdm import tqdm

from core import notes
from core.connections import get_mongo_db, get_redis
from crawler.models import Match, ScanRun, ScanStatus, TargetSite
from lib.crawl.config import CrawlConfig
from lib.crawl.frontier import Frontier, FrontierState
from lib.crawl.outcomes import Outcome
from lib.crawl.pipeline import Crawler

log = logging.getLogger(__name__)
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def lock_key(site_id: int) -> str:
    """Redis key of the one-scan-at-a-time lock of site ``site_id``."""
    return f"crawl:lock:site:{site_id}"


def crawl_config() -> CrawlConfig:
    """The crawl library's configuration from ``settings.CRAWLER`` (the ``CRAWLER_<NAME>``
    environment variables; defaults in CrawlConfig), its abandoned-scan age from
    settings.SCAN_STUCK_SECONDS. Raises ValueError naming a bad setting."""
    return CrawlConfig.from_mapping({"SCAN_STALE_SECONDS": settings.SCAN_STUCK_SECONDS,
                                     **settings.CRAWLER})


@functools.lru_cache(maxsize=2)
def _crawler(pid: int) -> Crawler:
    crawler = Crawler(crawl_config(), get_redis(), get_mongo_db())
    crawler.ensure_indexes()
    return crawler


def get_crawler() -> Crawler:
    """The Crawler of this process (built once per process: clients must not cross a fork)."""
    return _crawler(os.getpid())


def start(site: TargetSite, *, max_pages: int | None = None,
          trigger: str = "command") -> tuple[ScanRun, list[str], str]:
    """Open a scan run of ``site``: take the site's lock, open the frontier, admit the start URLs.

    ``max_pages`` overrides the site's page limit for this run. Returns (ScanRun, canonical start
    URLs admitted, the run's token): the caller enqueues one crawl task per URL with the token
    (crawler.tasks.launch does all this). When another scan of the site holds the lock the
    ScanRun comes back with status 'skipped', no URLs and no token. A site without start URLs
    gives a finished run with a note. Raises ValueError for max_pages < 1.
    """
    limit = max_pages if max_pages is not None else site.max_pages
    if limit < 1:
        raise ValueError(f"max_pages must be at least 1, got {limit}")
    scan = ScanRun.objects.create(site=site, trigger=trigger, max_pages=limit)
    redis = get_redis()
    if not _lock(redis, site.pk, scan.pk):
        holder = redis.get(lock_key(site.pk))
        running = holder.decode() if holder else "?"
        ScanRun.objects.filter(pk=scan.pk).update(
            status=ScanStatus.SKIPPED, finished_at=timezone.now(),
            note=notes.coded("scan_skipped", gettext_noop(
                "skipped: scan #%(running)s of this site is still running"), running=running))
        scan.refresh_from_db()
        log.info("scan of %s skipped: scan #%s running", site, running)
        return scan, [], ""
    crawler = get_crawler()
    rules = site.rules()
    token = crawler.frontier(scan.pk).open(limit, site.max_depth, {"rules": rules.to_dict()})
    admitted = crawler.seed(scan.pk, rules, list(site.start_urls))
    if not admitted:
        finish(scan.pk, note=notes.coded("no_start_url", gettext_noop("no crawlable start URL")))
        scan.refresh_from_db()
    return scan, admitted, token


def _lock(redis, site_id: int, scan_id: int) -> bool:
    """Take the site's lock for ``scan_id``; a lock held by an abandoned scan (no task finished
    for settings.SCAN_STUCK_SECONDS: its worker died) is taken over, that scan closed as failed."""
    if redis.set(lock_key(site_id), scan_id, nx=True, ex=settings.SCAN_LOCK_TTL_SECONDS):
        return True
    holder = redis.get(lock_key(site_id))
    if holder is None or get_crawler().frontier(int(holder)).alive():
        return False
    finish(int(holder), ScanStatus.FAILED, note=notes.coded("scan_abandoned", gettext_noop(
        "abandoned: no progress for an hour (a worker died?)")))
    return bool(redis.set(lock_key(site_id), scan_id, nx=True, ex=settings.SCAN_LOCK_TTL_SECONDS))

# Sent once a scan run is closed (finished, failed or cancelled), after commit: keyword argument
# ``scan_id`` (int). Receivers: the alerts (one message per recipient about the scan's cases).
scan_closed = Signal()


def finish(scan_id: int, status: str = ScanStatus.FINISHED, note: str = "") -> bool:
    """Close scan ``scan_id``: copy its counters from Redis, its match figures from the Match
    rows (``stored_match_figures``), set the status (cancelled when the scan was cancelled),
    release the site's lock and free the seen-set; ``scan_closed`` is sent once the close is
    committed.

    Returns False when the scan was already closed (finishing twice is harmless).
    """
    frontier = get_crawler().frontier(scan_id)
    state = frontier.state()
    final = ScanStatus.CANCELLED if state.cancelled else status
    # read before the status changes, so that the lock goes right after it: whoever sees the
    # scan closed can start the next one
    site_id = ScanRun.objects.filter(pk=scan_id).values_list("site_id", flat=True).first()
    closed = ScanRun.objects.filter(pk=scan_id, status=ScanStatus.RUNNING).update(
        status=final, finished_at=timezone.now(), note=note,
        **{**figures(state), **stored_match_figures(scan_id)})
    if site_id is not None:
        get_redis().eval(_RELEASE, 1, lock_key(site_id), str(scan_id))
    frontier.close()
    if closed:
        transaction.on_commit(lambda: scan_closed.send(sender=ScanRun, scan_id=scan_id))
    return bool(closed)


def figures(state: FrontierState) -> dict:
    """A scan's figures from its frontier's counters, named as ScanRun's fields.

    Args:
        state: the frontier's snapshot (``Frontier.state``).

    Returns:
        dict with ``urls_seen``, ``pages_fetched``, ``pages_new``, ``pages_changed``,
        ``pages_unchanged``, ``matches_found``, ``matches_new`` (int), ``errors`` ({kind: count}:
        the error outcomes, plus "match_failed" for pages fetched but not matched) and
        ``stage_seconds`` ({stage: seconds summed over the workers}).
    """
    stats = state.stats
    errors = {k.removeprefix("outcome:"): v for k, v in sorted(stats.items())
              if k.startswith("outcome:") and Outcome(k.removeprefix("outcome:")).is_error}
    if stats.get("match_errors"):  # pages fetched but not matched (engine or storage failure)
        errors["match_failed"] = stats["match_errors"]
    return {
        "urls_seen": state.admitted, "pages_fetched": stats.get("pages_fetched", 0),
        "pages_new": stats.get("pages_new", 0), "pages_changed": stats.get("pages_changed", 0),
        "pages_unchanged": stats.get("pages_unchanged", 0), "errors": errors,
        "matches_found": stats.get("matches", 0), "matches_new": stats.get("matches_new", 0),
        "stage_seconds": {stage: round(stats.get(f"ms_{stage}", 0) / 1000, 2)
                          for stage in ("fetch", "decode", "render", "extract", "links", "store", "match")},
    }


def scan_matches(queryset: QuerySet, scan_id: int) -> QuerySet:
    """Narrow a Match queryset to the matches scan ``scan_id`` found: first recorded in it, or
    seen in it last (a later scan that sees a match again takes it over: a match keeps only its
    first and its last scan)."""
    return queryset.filter(Q(first_scan_id=scan_id) | Q(last_scan_id=scan_id))


def stored_match_figures(scan_id: int) -> dict:
    """``matches_found`` (Match rows first recorded or seen last in scan ``scan_id``) and
    ``matches_new`` (first recorded in it), counted from the rows: a match task run twice (its
    worker killed after it wrote them, the task delivered again) counts its matches twice in
    the frontier's counters but writes each row once."""
    return {"matches_found": scan_matches(Match.objects.all(), scan_id).count(),
            "matches_new": Match.objects.filter(first_scan_id=scan_id).count()}


def live_figures(scan_id: int) -> dict:
    """The figures (see ``figures``) of scan ``scan_id`` so far, read from its frontier in Redis
    (a running scan's ScanRun row gets them only when it finishes; MongoDB is not needed).
    Raises redis.RedisError when Redis does not answer."""
    return figures(Frontier(get_redis(), scan_id).state())


def cancel(scan: ScanRun, note: str = "") -> bool:
    """Cancel a running scan now: flag its frontier cancelled (a task already fetching stops at
    its next check) and close the run as 'cancelled' at once, which empties its token so that
    every URL still queued is dropped unfetched, even when no task is left to notice.

    Returns False when the scan was already closed.
    """
    get_crawler().frontier(scan.pk).cancel()
    return finish(scan.pk, ScanStatus.CANCELLED, note=note)


def sweep_stuck(stuck_seconds: float | None = None) -> list[int]:
    """Close as failed every running scan that is stuck: no task of it finished for
    ``stuck_seconds`` (default settings.SCAN_STUCK_SECONDS; its workers died), or its frontier
    was never opened that long after it was recorded (its start never reached a worker).

    Returns the ids of the scans closed (each with the reason in its note).
    """
    limit = settings.SCAN_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    closed = []
    now = timezone.now()
    for scan_id, started in ScanRun.objects.filter(status=ScanStatus.RUNNING).values_list(
            "pk", "started_at"):
        idle = get_crawler().frontier(scan_id).idle_seconds()
        if idle is None and (now - started).total_seconds() > limit:
            note = notes.coded("scan_never_started", gettext_noop(
                "failed: the scan never reached a worker within %(seconds)s s"),
                seconds=round(limit))
        elif idle is not None and idle > limit:
            note = notes.coded("scan_stuck", gettext_noop(
                "failed: no task of the scan finished for %(seconds)s s (its workers died?)"),
                seconds=round(idle))
        else:
            continue
        if finish(scan_id, ScanStatus.FAILED, note=note):
            log.warning("scan #%s %s", scan_id, notes.in_english(note))
            closed.append(scan_id)
    return closed


def progress(scan_id: int) -> tuple[int, int]:
    """(URLs finished, URLs admitted) of scan ``scan_id`` so far."""
    state = get_crawler().frontier(scan_id).state()
    return state.done, state.admitted


def wait_for(scan_id: int, timeout: float, stream, poll_seconds: float = 0.5) -> ScanRun:
    """Poll scan ``scan_id`` every ``poll_seconds`` until it is no longer running, drawing a tqdm
    bar of URLs done out of URLs admitted on ``stream`` (a text file such as sys.stderr, not
    Django's OutputWrapper, which would end every redraw with a newline).

    Returns the ScanRun. Raises TimeoutError when it still runs after ``timeout`` seconds (it
    goes on in the workers).
    """
    deadline = time.monotonic() + timeout
    with tqdm(total=0, unit="url", file=stream, desc=f"scan #{scan_id}") as bar:
        while True:
            scan = ScanRun.objects.get(pk=scan_id)
            if scan.status != ScanStatus.RUNNING:
                bar.total = bar.n = scan.urls_seen
                bar.refresh()
                return scan
            done, admitted = progress(scan_id)
            bar.total, bar.n = admitted, done
            bar.refresh()
            if time.monotonic() > deadline:
                raise TimeoutError(f"scan #{scan_id} still running after {timeout:.0f} s; "
                                   "it goes on in the workers")
            time.sleep(poll_seconds)
