"""Search-engine discovery: the works' distinctive phrases asked to web search providers, and
every result page read and matched like a scan's.

A run (``SearchRun``, started by ``do_start_search_run``: beat daily, the ``discover`` command,
staff on the work admin) goes over the indexed works, or one work, in its task
(``crawler.search_web`` on settings.QUEUE_SEARCH; ``run``):

1. Each work's phrases (``lib.crawl.search.phrases.choose``; rarity over the registered
   works' text, the holder's other works' shared runs left out): settings.
   SEARCH_QUERIES_PER_SECTION a chapter, at most settings.SEARCH_MAX_QUERIES_PER_WORK. The
   daily run skips a phrase asked within settings.SEARCH_REPEAT_DAYS (new works and chapters
   are searched first); a run for one work asks them all.
2. Each phrase goes to the configured providers in order (``providers``): a provider that is
   disabled (no key), refused its key (401/403: remembered for that key, shown with the
   reason) or spent its daily budget (``budget_left``) is passed over; a failure after the
   retries (``search_with_retries``) moves on to the next provider. Each query is a
   ``SearchQuery`` row with the provider, results, requests made and the failure, if any.
3. A result URL on a target site's domain is not fetched (its site's scans read it, with the
   site's settings): its ``SearchHit`` is tied to the match a scan recorded there, or to the
   one a scan records there later (``crawler.matching``). Each
   other result URL not read yet in the run goes through the crawl library (canonical form,
   trap check, robots.txt, politeness, SSRF guard, size and time limits: ``Crawler.step``),
   with up to settings.SEARCH_PAGE_PARTS next parts of a chapter split over pages, and its
   text is matched with the engine: a copying page is recorded as a Match and a Case like a
   scan's (``crawler.matching.record_matches``, which also asks for its evidence capture), its
   ``SearchHit`` (query, provider, rank, time, outcome) tied to the match, and its domain
   proposed as a candidate site (``do_propose_found_site``) unless a target site covers it.

The run is finished when every work is done, failed with the reason when no provider is usable
or every query failed, and failed by the sweeper (``sweep_runs``) when it stops moving for
settings.SEARCH_RUN_STUCK_SECONDS (its worker died).
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.connections import get_redis
from core.ingestion import work_text
from core.models import AuditEvent, Work
from core.models.works import WorkStatus
from core.queueing import queue_after_commit
from crawler import matching
from crawler.models import (
    CandidateSite,
    CandidateStatus,
    Case,
    Match,
    SearchHit,
    SearchQuery,
    SearchRun,
    SearchRunStatus,
    TargetSite,
)
from lib.crawl import pagekeys
from lib.crawl.canonical import InvalidURL, canonical_url, host_of, in_domains
from lib.crawl.frontier import Frontier
from lib.crawl.outcomes import Outcome
from lib.crawl.pipeline import SiteRules, UrlTask
from lib.crawl.search import phrases
from lib.crawl.search.providers import Provider, SearchError, parse_providers, search_with_retries

log = logging.getLogger(__name__)
FRONTIER_PREFIX = "crawl:search"  # Redis keys of a run's frontier (seen-set, counters)
_REFUSED_KEY = "search:refused"  # hash: provider name + key digest -> why it was refused


@dataclass(frozen=True)
class ProviderState:
    """A configured provider as the dashboard shows it: ``provider``, ``disabled`` (why it is
    not used, a coded note; '' when usable), ``used`` (queries today) and ``budget`` (a day)."""

    provider: Provider
    disabled: str
    used: int
    budget: int


def providers() -> list[Provider]:
    """The providers of settings.SEARCH_PROVIDERS, in order, keys from settings.SEARCH_KEYS.
    Raises ValueError for a malformed setting."""
    return parse_providers(settings.SEARCH_PROVIDERS, settings.SEARCH_KEYS,
                           settings.SEARCH_TIMEOUT_SECONDS)


def provider_states() -> list[ProviderState]:
    """Every configured provider with why it is disabled, if it is, and its budget today."""
    out = []
    for provider in providers():
        used, budget = _used_today(provider), _budget(provider)
        if provider.disabled:
            why = notes.coded("search_provider_disabled", gettext_noop("disabled: %(reason)s"),
                              reason=provider.disabled)
        else:
            why = refused_reason(provider)
        out.append(ProviderState(provider, why, used, budget))
    return out


def refused_reason(provider: Provider) -> str:
    """The coded note recorded when ``provider`` refused its present key, or ''."""
    value = get_redis().hget(_REFUSED_KEY, _key_id(provider))
    return value.decode() if value else ""


def budget_left(provider: Provider) -> int:
    """Queries ``provider`` may still answer today (UTC)."""
    return max(_budget(provider) - _used_today(provider), 0)


def do_start_search_run(work: Work | None = None, *, trigger: str = "command",
                        acting_user=None) -> SearchRun:
    """Record a run over ``work`` (None: every indexed work) and queue its task
    (``crawler.search_web``) once committed; a person's start is in the audit trail.
    Returns the SearchRun ('running')."""
    with transaction.atomic():
        run = SearchRun.objects.create(work=work, trigger=trigger)
        if acting_user is not None:
            AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None,
                              target=run, subject=f"web search #{run.pk}: {work or '*'}",
                              old_state="", new_state=run.status, reason="")
        queue_after_commit("crawler.search_web", run.pk)
    return run


def run(run_id: int, crawler, engine) -> SearchRun:
    """Do search run ``run_id`` (module docstring) with ``crawler`` (lib.crawl.pipeline.Crawler
    of the process) and ``engine`` (fingerprint.Engine). Returns the SearchRun, closed. A run
    no longer running (closed by the sweeper) is returned as it is. Raises the storage errors
    of MongoDB and Redis (the task retries; the run goes on where it is)."""
    search = SearchRun.objects.get(pk=run_id)
    if search.status != SearchRunStatus.RUNNING:
        return search
    usable = [s.provider for s in provider_states() if not s.disabled]
    if not usable:
        return close(search, SearchRunStatus.FAILED, notes.coded(
            "search_no_provider", gettext_noop("no usable search provider: %(why)s"),
            why=_why_none(provider_states())))
    works = _works(search)
    SearchRun.objects.filter(pk=run_id).update(works_total=len(works), updated_at=timezone.now())
    reference = phrases.Rarity.from_texts(
        _texts(Work.objects.filter(status=WorkStatus.INDEXED).order_by("-pk")[:settings.SEARCH_REFERENCE_WORKS]))
    frontier = Frontier(crawler.redis, run_id, prefix=FRONTIER_PREFIX)
    if not frontier.context():
        frontier.open(1_000_000, 0, {"run": run_id})
    failures = []
    for work in works[search.works_done:]:
        failures += _search_work(search, work, reference, usable, crawler, frontier, engine)
        SearchRun.objects.filter(pk=run_id).update(works_done=F("works_done") + 1,
                                                   updated_at=timezone.now())
    frontier.close()
    search.refresh_from_db()
    if search.queries == 0 and failures:
        return close(search, SearchRunStatus.FAILED, notes.coded(
            "search_all_failed", gettext_noop("every query failed: %(reason)s"),
            reason=failures[-1]))
    return close(search, SearchRunStatus.FINISHED, "")


def sweep_runs(stuck_seconds: float | None = None) -> list[int]:
    """Fail every running search run without progress for ``stuck_seconds`` (default
    settings.SEARCH_RUN_STUCK_SECONDS). Returns the ids of the runs failed."""
    limit = settings.SEARCH_RUN_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    before = timezone.now() - datetime.timedelta(seconds=limit)
    closed = []
    for search in SearchRun.objects.filter(status=SearchRunStatus.RUNNING, updated_at__lt=before):
        close(search, SearchRunStatus.FAILED, notes.coded("search_stuck", gettext_noop(
            "failed: no progress for %(seconds)s s (its worker died?)"), seconds=round(limit)))
        closed.append(search.pk)
    return closed


def do_propose_found_site(domain: str, url: str, works: list[Work]) -> CandidateSite | None:
    """Propose ``domain``, where the search result page ``url`` copies ``works``, as a
    candidate site (created, or a candidate not yet decided made 'proposed' with the page
    and works added). Nothing for a domain a target site covers or a candidate staff decided.
    Returns the candidate, or None."""
    if in_domains(url, _target_domains()):
        return None
    with transaction.atomic():
        candidate, _ = CandidateSite.objects.select_for_update().get_or_create(domain=domain)
        if candidate.status in (CandidateStatus.PROMOTED, CandidateStatus.DISMISSED):
            return candidate
        if url not in candidate.sample_urls:
            candidate.sample_urls = [url, *candidate.sample_urls]
            candidate.matches_found += 1
            candidate.pages_sampled += 1
        candidate.status = CandidateStatus.PROPOSED
        candidate.sampled_at = timezone.now()
        candidate.note = notes.coded("found_by_search", gettext_noop(
            "found by web search: %(url)s"), url=url)
        candidate.save()
        candidate.works.add(*works)
    return candidate


def _search_work(search: SearchRun, work: Work, reference, usable: list[Provider], crawler,
                 frontier: Frontier, engine) -> list[str]:
    """Ask the phrases of ``work`` and read their results. Returns the failed queries' coded
    notes."""
    text = work_text(work) or ""
    others = _texts(Work.objects.filter(holder_id=work.holder_id, status=WorkStatus.INDEXED)
                    .exclude(pk=work.pk).order_by("-pk")[:settings.SEARCH_HOLDER_WORKS_AVOIDED])
    chosen = _phrases(work, text, reference, others)
    if search.work_id is None:
        since = timezone.now() - datetime.timedelta(days=settings.SEARCH_REPEAT_DAYS)
        asked = set(SearchQuery.objects.filter(work=work, status="ok", asked_at__gte=since)
                    .values_list("phrase", flat=True))
        chosen = [p for p in chosen if p not in asked]
    failures = []
    for phrase in chosen:
        if SearchQuery.objects.filter(run=search, work=work, phrase=phrase).exists():
            continue  # asked before a retry of this task
        query, results = _ask(search, work, phrase, usable)
        if query.status != "ok":
            failures.append(query.error)
            continue
        for result in results:
            _read(search, query, result.url, result.rank, crawler, frontier, engine)
    return failures


def _phrases(work: Work, text: str, reference, others: list[str]) -> list[str]:
    """The phrases of ``work``: per chapter (``Work.sections``) or for the whole text."""
    sections = work.sections or [{"start": 0, "end": len(text)}]
    out: list[str] = []
    for section in sections:
        part = text[section["start"]:section["end"]]
        out += [p.text for p in phrases.choose(part, settings.SEARCH_QUERIES_PER_SECTION,
                                               reference, others)]
    return list(dict.fromkeys(out))[:settings.SEARCH_MAX_QUERIES_PER_WORK]


def _ask(search: SearchRun, work: Work, phrase: str, usable: list[Provider]):
    """Ask ``phrase`` to the first provider that answers. Returns (SearchQuery, results)."""
    error, attempts, name = "", 0, ""
    for provider in usable:
        if refused_reason(provider):
            continue
        if budget_left(provider) <= 0:
            error = notes.coded("search_budget", gettext_noop(
                "%(provider)s: daily budget of %(budget)s queries spent"),
                provider=provider.name, budget=_budget(provider))
            continue
        name = provider.name
        try:
            results, made = search_with_retries(
                provider, phrase, settings.SEARCH_RESULTS_PER_QUERY, settings.SEARCH_RETRIES,
                settings.SEARCH_RETRY_BASE_SECONDS, settings.SEARCH_RETRY_MAX_SECONDS)
        except SearchError as exc:
            _count_use(provider, exc.attempts)
            attempts += exc.attempts
            error = notes.coded("search_failed", gettext_noop(
                "%(provider)s: %(kind)s (%(reason)s)"), provider=provider.name,
                kind=exc.kind, reason=exc.reason[:300])
            if exc.kind == "refused":
                get_redis().hset(_REFUSED_KEY, _key_id(provider), notes.coded(
                    "search_key_refused", gettext_noop("the provider refused the key: %(reason)s"),
                    reason=exc.reason[:300]))
            log.warning("search %r on %s failed: %s", phrase, provider.name, exc)
            continue
        _count_use(provider, made)
        query = SearchQuery.objects.create(run=search, work=work, phrase=phrase, provider=name,
                                           results=len(results), attempts=attempts + made)
        SearchRun.objects.filter(pk=search.pk).update(
            queries=F("queries") + 1, results=F("results") + len(results),
            updated_at=timezone.now())
        return query, results
    if not error:
        error = notes.coded("search_no_provider", gettext_noop(
            "no usable search provider: %(why)s"), why=_why_none(provider_states()))
    query = SearchQuery.objects.create(run=search, work=work, phrase=phrase, provider=name,
                                       status="failed", attempts=attempts, error=error)
    SearchRun.objects.filter(pk=search.pk).update(updated_at=timezone.now())
    return query, []


def _read(search: SearchRun, query: SearchQuery, url: str, rank: int, crawler,
          frontier: Frontier, engine) -> None:
    """Read result ``url`` (and its next parts) like a scan's page and record its SearchHit."""
    try:
        canon = canonical_url(url)
    except InvalidURL as exc:
        SearchHit.objects.create(query=query, url=url[:2048], rank=rank,
                                 outcome=Outcome.INVALID_URL.value, reason=str(exc)[:500])
        return
    if frontier.is_seen(canon):  # read already in this run
        SearchHit.objects.create(query=query, url=canon, rank=rank, outcome="seen",
                                 match=_match_of(canon, query.work))
        return
    if in_domains(canon, _target_domains()):  # its site's scans read it, with its settings
        SearchHit.objects.create(query=query, url=canon, rank=rank, outcome="target_site",
                                 match=_match_of(canon, query.work))
        return
    frontier.admit([canon], 0)
    rules = SiteRules(None, (host_of(canon),))  # type: ignore[arg-type]  # no target site
    queue, read = [canon], 0
    while queue and read <= settings.SEARCH_PAGE_PARTS:
        page_url = queue.pop(0)
        result = _step(crawler, rules, UrlTask(page_url), frontier)
        read += 1
        match = None
        if result.outcome in (Outcome.OK, Outcome.UNCHANGED, Outcome.NOT_MODIFIED):
            SearchRun.objects.filter(pk=search.pk).update(pages_fetched=F("pages_fetched") + 1)
            match = _match(search, result, crawler, engine, query.work)
            queue += result.parts
        SearchHit.objects.create(query=query, url=page_url, rank=rank,
                                 outcome=result.outcome.value if result.outcome else "deferred",
                                 reason=(result.reason or "")[:500], match=match)


def _step(crawler, rules: SiteRules, task: UrlTask, frontier: Frontier):
    """``crawler.step`` of ``task``, waiting out a politeness slot or a retry backoff up to
    settings.SEARCH_FETCH_WAIT_SECONDS in all. Returns the last StepResult."""
    waited = 0.0
    while True:
        result = crawler.step(None, rules, task, frontier)
        if result.outcome is not None or waited + result.defer > settings.SEARCH_FETCH_WAIT_SECONDS:
            return result
        time.sleep(result.defer)
        waited += result.defer
        task = result.next_task


def _match(search: SearchRun, result, crawler, engine, work: Work):
    """Match the page ``result`` stored (new or changed version: matched now; unchanged: its
    matches as they are) and record what it copies. Returns the Match of ``work`` on it, or
    of another work, or None."""
    page_id = result.page[0] if result.page else None
    if result.stored:
        page, version = result.stored
        found = engine.match_with_keys(version.text)
        report = matching.record_matches(page, version, None, found.matches)
        crawler.pages.mark_matched(page.id, version.id, pagekeys.pack(found.keys, engine.config))
        if report.found:
            SearchRun.objects.filter(pk=search.pk).update(pages_matched=F("pages_matched") + 1)
    elif page_id:
        matching.seen_again(page_id, None)
        if Match.objects.filter(page_id=page_id, still_matching=True).exists():
            SearchRun.objects.filter(pk=search.pk).update(pages_matched=F("pages_matched") + 1)
    if not page_id:
        return None
    rows = list(Match.objects.filter(page_id=page_id, still_matching=True).select_related("work"))
    if not rows:
        return None
    domain = rows[0].domain
    do_propose_found_site(domain, rows[0].url, [r.work for r in rows])
    return next((r for r in rows if r.work_id == work.pk), rows[0])


def _target_domains() -> list[str]:
    return [d for domains in TargetSite.objects.values_list("allowed_domains", flat=True)
            for d in domains]


def _match_of(url: str, work: Work):
    rows = Match.objects.filter(url=url, still_matching=True)
    return rows.filter(work=work).first() or rows.first()


def close(search: SearchRun, status: str, note: str) -> SearchRun:
    """Close ``search`` (if still running) with ``status`` and ``note``; counts its new cases."""
    now = timezone.now()
    new_cases = Case.objects.filter(
        opened_at__gte=search.started_at,
        pages__search_hits__query__run=search).distinct().count()
    SearchRun.objects.filter(pk=search.pk, status=SearchRunStatus.RUNNING).update(
        status=status, note=note, finished_at=now, updated_at=now, new_cases=new_cases)
    search.refresh_from_db()
    if note:
        log.warning("search run #%s %s: %s", search.pk, status, notes.in_english(note))
    return search


def _works(search: SearchRun) -> list[Work]:
    if search.work_id is not None:
        return list(Work.objects.filter(pk=search.work_id))
    return list(Work.objects.filter(status=WorkStatus.INDEXED).order_by("pk"))


def _texts(works) -> list[str]:
    return [t for t in (work_text(w) for w in works) if t]


def _why_none(states: list[ProviderState]) -> list[str] | str:
    """Why no provider is usable: a coded note per provider (its state), or one saying none is
    configured; a coded note's parameter, shown in the reader's language."""
    if not states:
        return notes.coded("search_none_configured", gettext_noop(
            "none configured (TRACKER_SEARCH_PROVIDERS)"))
    spent = notes.coded("search_spent", gettext_noop("daily budget spent or failing"))
    return [notes.coded("search_provider_state", gettext_noop("%(provider)s: %(state)s"),
                        provider=s.provider.name, state=s.disabled or spent) for s in states]


def _key_id(provider: Provider) -> str:
    digest = hashlib.sha256(provider.key.encode()).hexdigest()[:16]
    return f"{provider.name}:{digest}"


def _day_key(provider: Provider) -> str:
    return f"search:used:{provider.name}:{timezone.now().astimezone(datetime.UTC).date()}"


def _used_today(provider: Provider) -> int:
    return int(get_redis().get(_day_key(provider)) or 0)


def _count_use(provider: Provider, requests: int) -> None:
    key = _day_key(provider)
    pipe = get_redis().pipeline()
    pipe.incrby(key, requests)
    pipe.expire(key, 2 * 24 * 3600)
    pipe.execute()


def _budget(provider: Provider) -> int:
    return int(settings.SEARCH_DAILY_BUDGETS.get(provider.name, 0))
