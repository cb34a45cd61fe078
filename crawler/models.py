"""The crawler app's records: target sites, scan runs, whitelisted domains, matches, and the
sites rights holders propose (SiteProposal).

The crawler owns every table it writes. Matches live here too: the crawler creates them (one row
per page and work, its evidence in MongoDB ``page_versions``), their foreign keys point to its
sites and scans, and the dashboard, above the crawler, reviews them through ``crawler.review_actions``.
The tables were moved from the core app by migration crawler 0001 (rows, ids and the foreign
keys pointing at them kept).

A site's schedule is a django-celery-beat PeriodicTask kept in step with the site by
``crawler.schedule`` (created when the site is saved: one scan a day by default; staff change
the schedule in the admin's Periodic tasks).

The evidence of a match is the page version the engine matched (``version_id``, an immutable
document in MongoDB ``page_versions``) and the passages: character offsets into that version's
text and the work's text. A page seen matching again updates ``last_seen`` (one row per page and
work); a page that no longer matches keeps its row and evidence, with ``still_matching`` False.

A case (``Case``) groups the matched pages of one work on one registered domain: the unit
staff work, from detection to verified removal (``crawler.cases``).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import notes
from core.models import RightsHolder, Work
from crawler.labels import ADDRESS_KINDS
from lib.crawl.canonical import InvalidURL, canonical_url, host_of
from lib.crawl.config import CrawlConfig
from lib.crawl.pipeline import SiteRules
from lib.crawl.ssrf import RefusedAddress, check_literal, parse_allow_list


def _validate_start_urls(value):
    """Each start URL is a URL the crawler can visit whose host, when an address literal
    (decimal and other forms included) or localhost, passes the SSRF guard with its allow list
    (host names are checked at each fetch, DNS answers change)."""
    if not isinstance(value, list) or not all(isinstance(u, str) for u in value):
        raise ValidationError(_("Start URLs must be a list of URLs."))
    # crawler.scans.crawl_config's reading, not imported: scans imports this module
    allow = parse_allow_list(CrawlConfig.from_mapping(settings.CRAWLER).allow_addresses)
    for url in value:
        try:
            check_literal(canonical_url(url), allow)
        except InvalidURL as exc:
            raise ValidationError(str(exc)) from exc
        except RefusedAddress as exc:
            raise ValidationError(
                _("%(url)s may not be scanned: %(host)s is a %(reason)s address (%(address)s), "
                  "refused by the SSRF guard.") % {
                    "url": url, "host": exc.host, "address": exc.address,
                    "reason": ADDRESS_KINDS.get(exc.reason, exc.reason)}, code="refused_address") from exc


def _validate_patterns(value):
    if not isinstance(value, list):
        raise ValidationError(_("Path patterns must be a list of regular expressions."))
    for pattern in value:
        try:
            re.compile(pattern)
        except (re.error, TypeError) as exc:
            raise ValidationError(_("Invalid regular expression %(p)r: %(e)s") % {"p": pattern, "e": exc}) from exc


def _validate_domains(value):
    if not isinstance(value, list) or not all(isinstance(d, str) and d.strip() and "/" not in d
                                              for d in value):
        raise ValidationError(_("Allowed domains must be a list of host names (no scheme, no path)."))


class TargetSite(models.Model):
    """A site scanned for copies of registered works.

    Attributes:
        start_urls: list of URLs (str) where a scan starts: pages, sitemaps, RSS/Atom feeds.
        allowed_domains: host names (str) the scan may visit, subdomains included; filled with
            the start URLs' hosts when left empty.
        path_patterns: regular expressions (str); when any are given, a URL is visited only if
            one matches (re.search) its path and query.
        max_depth: links followed from a start URL (0 = start URLs only).
        max_pages: URLs fetched per scan at most.
        delay_seconds: politeness delay between two fetches from one host, in seconds; a
            larger robots.txt Crawl-delay wins.
        enabled: scheduled scans run only for enabled sites.
        needs_browser: its HTML pages are rendered in headless Chromium (lib.crawl.render), on
            the Celery queue settings.QUEUE_RENDER, before their text is taken: for sites that
            deliver their text by JavaScript.
        periodic_task: its django-celery-beat schedule (managed by crawler.schedule).
        accept_invalid_certificate: its pages are crawled and captured even when their TLS
            certificate does not validate (expired, self-signed: common on piracy sites); the
            error is recorded with each fetch and capture. Off by default.
    """

    name = models.CharField(_("name"), max_length=200, unique=True)
    start_urls = models.JSONField(_("start URLs"), default=list, validators=[_validate_start_urls],
                                  help_text=_("Pages, sitemaps or RSS/Atom feeds, one URL each."))
    allowed_domains = models.JSONField(_("allowed domains"), default=list, blank=True,
                                       validators=[_validate_domains])
    path_patterns = models.JSONField(_("path patterns"), default=list, blank=True,
                                     validators=[_validate_patterns])
    max_depth = models.PositiveSmallIntegerField(_("maximum depth"), default=3)
    max_pages = models.PositiveIntegerField(_("maximum pages per scan"), default=500)
    delay_seconds = models.FloatField(_("politeness delay (seconds)"), default=2.0)
    enabled = models.BooleanField(_("enabled"), default=True)
    needs_browser = models.BooleanField(
        _("needs a browser"), default=False,
        help_text=_("Render its pages in headless Chromium before reading them: for sites whose "
                    "text is loaded or decoded by JavaScript. Slower; runs on the render workers."))
    accept_invalid_certificate = models.BooleanField(
        _("accept an invalid certificate"), default=False,
        help_text=_("Crawl and capture its pages even when their HTTPS certificate does not "
                    "validate (expired, self-signed); the certificate error is recorded in the "
                    "evidence."))
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", verbose_name=_("schedule"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="target_site", editable=False)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("target site")
        verbose_name_plural = _("target sites")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if not self.allowed_domains and self.start_urls:
            self.allowed_domains = sorted({host_of(u) for u in self.start_urls if host_of(u)})
        super().save(*args, **kwargs)

    def rules(self):
        """The crawl rules of this site: a ``lib.crawl.pipeline.SiteRules``."""
        return SiteRules(site_id=self.pk, allowed_domains=tuple(self.allowed_domains),
                         path_patterns=tuple(self.path_patterns), delay_seconds=self.delay_seconds,
                         needs_browser=self.needs_browser,
                         accept_invalid_certificate=self.accept_invalid_certificate)


class ScanStatus(models.TextChoices):
    """State of a scan run. skipped: not run because another scan of the site was running."""

    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")
    CANCELLED = "cancelled", _("cancelled")
    SKIPPED = "skipped", _("skipped")


class ScanRun(models.Model):
    """One scan of a target site.

    Attributes:
        trigger: 'schedule' (beat), 'command' (manage.py scan), 'admin' or 'demo'.
        urls_seen: URLs admitted to the frontier; pages_fetched: pages read (new, changed
            and unchanged pages plus feeds and sitemaps, which add up to it; a page without
            text counts under errors); pages_new / pages_changed: pages whose text was new or
            changed (these are matched); pages_unchanged: 304 answers or the same content.
        errors: {outcome: count} of the URLs that gave no page (lib.crawl.outcomes.Outcome values,
            e.g. {"timeout": 2, "robots_disallowed": 1}), plus "match_failed": pages that could
            not be matched (engine or storage failure; the worker log says why).
        matches_found: matches recorded or confirmed again in this scan; matches_new: of those,
            pages and works never matched before.
        stage_seconds: {"fetch", "decode", "render", "extract", "links", "store", "match": seconds summed
            over all workers}.
        note: why a scan was skipped, failed or cancelled.
    """

    site = models.ForeignKey(TargetSite, verbose_name=_("site"), on_delete=models.CASCADE,
                             related_name="scans")
    status = models.CharField(_("status"), max_length=16, choices=ScanStatus.choices,
                              default=ScanStatus.RUNNING, db_index=True)
    trigger = models.CharField(_("trigger"), max_length=16, default="schedule")
    started_at = models.DateTimeField(_("started"), default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    max_pages = models.PositiveIntegerField(_("page limit"), default=0)
    urls_seen = models.PositiveIntegerField(_("URLs seen"), default=0)
    pages_fetched = models.PositiveIntegerField(_("pages fetched"), default=0)
    pages_new = models.PositiveIntegerField(_("new pages"), default=0)
    pages_changed = models.PositiveIntegerField(_("changed pages"), default=0)
    pages_unchanged = models.PositiveIntegerField(_("unchanged pages"), default=0)
    errors = models.JSONField(_("errors by kind"), default=dict, blank=True)
    matches_found = models.PositiveIntegerField(_("matches found"), default=0)
    matches_new = models.PositiveIntegerField(_("new matches"), default=0)
    stage_seconds = models.JSONField(_("time per stage (seconds)"), default=dict, blank=True)
    note = models.TextField(_("note"), blank=True)

    class Meta:
        verbose_name = _("scan run")
        verbose_name_plural = _("scan runs")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return gettext("%(site)s #%(id)s (%(status)s)") % {
            "site": self.site, "id": self.pk, "status": self.get_status_display()}

    def summary(self) -> dict:
        """The scan's figures as a JSON-ready dict (what ``manage.py scan`` prints; the note in
        English words, with its stable ``note_code``)."""
        return {
            "scan": self.pk, "site": self.site.name, "status": self.status, "trigger": self.trigger,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "seconds": round((self.finished_at - self.started_at).total_seconds(), 1)
            if self.finished_at and self.started_at else None,
            "urls_seen": self.urls_seen, "pages_fetched": self.pages_fetched,
            "pages_new": self.pages_new, "pages_changed": self.pages_changed,
            "pages_unchanged": self.pages_unchanged, "errors": self.errors,
            "matches_found": self.matches_found, "matches_new": self.matches_new,
            "stage_seconds": self.stage_seconds, "note": notes.in_english(self.note),
            "note_code": notes.code_of(self.note),
        }

    @property
    def note_words(self) -> str:
        """The note in words of the active language (``core.notes``); "" for none."""
        return notes.in_words(self.note)


class MatchKind(models.TextChoices):
    """How the engine found a work in a page (``fingerprint.Match.kind``): copy: its text
    aligned letter by letter; rewritten (洗稿): its sentences aligned with the page's though
    words were swapped for synonyms and sentences moved, split or merged."""

    COPY = "copy", _("copy")
    REWRITTEN = "rewritten", _("rewritten (洗稿)")


class ReviewStatus(models.TextChoices):
    """Where a match is in review: new until a reviewer decides."""

    NEW = "new", _("new")
    CONFIRMED = "confirmed", _("confirmed infringement")
    FALSE_POSITIVE = "false_positive", _("false positive")
    LICENSED = "licensed", _("licensed")


class WhitelistedDomain(models.Model):
    """A domain where a rights holder's works may appear (its own sites, licensed partners):
    pages on it, or on its subdomains, never become matches of that holder's works."""

    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="whitelisted_domains")
    domain = models.CharField(_("domain"), max_length=255,
                              help_text=_("Host name without scheme, e.g. news.example.com"))
    note = models.CharField(_("note"), max_length=500, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("whitelisted domain")
        verbose_name_plural = _("whitelisted domains")
        ordering = ["holder", "domain"]
        constraints = [models.UniqueConstraint(fields=["holder", "domain"],
                                               name="whitelist_domain_unique_per_holder")]

    def __str__(self) -> str:
        return f"{self.domain} ({self.holder})"

    def save(self, *args, **kwargs):
        self.domain = self.domain.strip().strip(".").lower()
        super().save(*args, **kwargs)


class MatchQuerySet(models.QuerySet):
    """Matches grouped by chapter page: the parts of one chapter split over several pages
    (``part_of``) that copy one work are one group."""

    def chapter_heads(self) -> MatchQuerySet:
        """One row per group among these matches: the chapter's first part (its URL is the
        group's ``part_of``) when it is among them, else the first recorded part (lowest id),
        whichever worker recorded its part first; every match that is no part as itself; each
        row annotated ``part_count`` (int, the group's matches among these; 1 for a match that
        is no part). These are the rows of the match list: every count shown beside a link to
        it counts them (filter first, then this)."""
        group = self.exclude(part_of="").filter(work=models.OuterRef("work"),
                                                part_of=models.OuterRef("part_of"))
        count = group.order_by().values("part_of").annotate(n=models.Count("pk")).values("n")
        # a match that is no part is its own head: no search for an earlier part (as a plain
        # NOT EXISTS, SQLite searched for every row; a scan's list took 0.7 s at 324 rows)
        first = (models.Q(part_of="") | models.Q(url=models.F("part_of"))
                 | (~models.Exists(group.filter(url=models.F("part_of")))
                    & ~models.Exists(group.filter(pk__lt=models.OuterRef("pk")))))
        return self.filter(first).annotate(part_count=Coalesce(models.Subquery(count), 1))

    def with_parts(self) -> MatchQuerySet:
        """These matches and every other part of their groups (a QuerySet of Match)."""
        wanted = models.Q(pk__in=self.values("pk"))
        for work_id, part_of in set(self.exclude(part_of="").values_list("work_id", "part_of")):
            wanted |= models.Q(work_id=work_id, part_of=part_of)
        return self.model.objects.filter(wanted)


class Match(models.Model):
    """A crawled page that copies (part of) a work.

    Attributes:
        page_id: the page's id in MongoDB ``pages`` (24 hex characters).
        version_id: the matched page version in MongoDB ``page_versions`` (the evidence).
        url, domain, title: the page's canonical URL, host and title when matched.
        part_of: when the page is one part of a chapter split over several pages (下一页,
            ``_2.html``), the canonical URL of the chapter's first part, else ''; the match
            list shows the parts of one chapter and work as one row.
        score: the engine's score (0..1); containment_page: share of the page's text found in
            the work; containment_work: share of the work's text found on the page.
        passages: ``[{"page_start", "page_end", "work_start", "work_end"}]``, character offsets
            (end exclusive) into the version's text and the work's text.
        section: titles of the work's chapters the passages cover, "; "-separated, in the
            work's order (core.chapters.attribute), or ''.
        first_seen / last_seen: first and latest time the page was found matching.
        still_matching: False once a later version of the page no longer matches.
        case: the case (work x registered domain) this page belongs to.
        same_text: ids of the other registered works (Work pks) whose text is the same as this
            work's (the engine's ``Match.same_text``), each with its own match of the page;
            [] for a text registered once.
        kind: MatchKind: a copy, or a rewritten copy (洗稿; then the score is the share of the
            work's sentences paired with the page's, and each passage a sentence pair).
        part_of_works: ids of the registered works (Work pks) whose text holds this work's (a
            chapter registered alone and inside its whole novel; the engine's
            ``Match.part_of``), each with its own match of the page; [] for most matches.
        part_works: ids of the registered works whose text this work holds (the novel's match
            names the chapter; the engine's ``Match.parts``), each with its own match of the
            page; [] for most matches.
    """

    work = models.ForeignKey(Work, verbose_name=_("work"), on_delete=models.CASCADE,
                             related_name="matches")
    page_id = models.CharField(_("page id"), max_length=24, db_index=True)
    version_id = models.CharField(_("page version id"), max_length=24)
    url = models.CharField(_("URL"), max_length=2048)
    domain = models.CharField(_("domain"), max_length=255, db_index=True)
    title = models.CharField(_("page title"), max_length=500, blank=True)
    part_of = models.CharField(_("chapter page"), max_length=2048, blank=True, db_index=True,
                               help_text=_("First page of the chapter this page is a part of."))
    site = models.ForeignKey(TargetSite, verbose_name=_("site"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="matches")
    first_scan = models.ForeignKey(ScanRun, verbose_name=_("first scan"), null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    last_scan = models.ForeignKey(ScanRun, verbose_name=_("last scan"), null=True, blank=True,
                                  on_delete=models.SET_NULL, related_name="+")
    score = models.FloatField(_("score"))
    containment_page = models.FloatField(_("share of the page"))
    containment_work = models.FloatField(_("share of the work"))
    passages = models.JSONField(_("passages"), default=list)
    section = models.CharField(_("chapter"), max_length=500, blank=True)
    same_text = models.JSONField(_("same text as"), default=list, blank=True)
    kind = models.CharField(_("kind of match"), max_length=16, choices=MatchKind.choices,
                            default=MatchKind.COPY)
    part_of_works = models.JSONField(_("part of works"), default=list, blank=True)
    part_works = models.JSONField(_("works inside it"), default=list, blank=True)
    first_seen = models.DateTimeField(_("first seen"), default=timezone.now, db_index=True)
    last_seen = models.DateTimeField(_("last seen"), default=timezone.now, db_index=True)
    still_matching = models.BooleanField(_("still matching"), default=True)
    review_status = models.CharField(_("review status"), max_length=16,
                                     choices=ReviewStatus.choices, default=ReviewStatus.NEW,
                                     db_index=True)
    case = models.ForeignKey("crawler.Case", verbose_name=_("case"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="pages")

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-first_seen", "-id"]
        constraints = [models.UniqueConstraint(fields=["page_id", "work"],
                                               name="match_unique_page_work")]

    def __str__(self) -> str:
        return f"{self.url} ~ {self.work}"

    def related_works(self, work_pks: list[int]) -> tuple[list[Work], int]:
        """The registered works ``work_pks`` (Work pks: this match's ``same_text``,
        ``part_of_works`` or ``part_works``) as staff and holders may see them: (those of this
        match's rights holder, Work rows by pk; how many belong to other holders, a rights
        conflict named to no holder). Works deleted since are left out; no query for []."""
        if not work_pks:
            return [], 0
        works = list(Work.objects.filter(pk__in=work_pks).order_by("pk"))
        own = [w for w in works if w.holder_id == self.work.holder_id]
        return own, len(works) - len(own)


class CheckOutcome(models.TextChoices):
    """What a takedown check found at a matched URL."""

    REMOVED = "removed", _("removed")
    PRESENT = "present", _("still present")
    CHANGED = "changed", _("changed but still copying")
    UNREACHABLE = "unreachable", _("unreachable")


class TakedownCheck(models.Model):
    """One check of a matched URL after a takedown notice (crawler.takedown), or a regular scan
    meeting it.

    Attributes:
        outcome: a CheckOutcome: 'removed' (HTTP 404 or 410, or the page no longer contains the
            work's passages), 'present' (same text as the matched version), 'changed' (other
            text, still copying the work), 'unreachable' (no answer, robots.txt, SSRF guard...).
        http_status: the HTTP status answered, or None when no answer came.
        text_sha256: hex SHA-256 of the page's extracted text (UTF-8), "" when none was read.
        scan: the scan that met the URL, or None for a scheduled takedown check.
        note: the fetch outcome or why the page counts as removed.
    """

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE,
                              related_name="takedown_checks")
    checked_at = models.DateTimeField(_("checked"), default=timezone.now, db_index=True)
    outcome = models.CharField(_("outcome"), max_length=16, choices=CheckOutcome.choices)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    text_sha256 = models.CharField(_("text SHA-256"), max_length=64, blank=True)
    scan = models.ForeignKey(ScanRun, verbose_name=_("scan"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    note = models.CharField(_("note"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("takedown check")
        verbose_name_plural = _("takedown checks")
        ordering = ["-checked_at", "-id"]

    def __str__(self) -> str:
        return f"{self.match_id} {self.get_outcome_display()} @ {timezone.localtime(self.checked_at):%Y-%m-%d %H:%M %z}"

    @property
    def note_words(self) -> str:
        """The note in words of the active language ("" for none)."""
        return notes.in_words(self.note)


class RematchJob(models.Model):
    """One search of the stored pages for copies of newly indexed works (crawler.rematch).

    Attributes:
        works: the works searched for (all indexed within one coalescing window).
        state: 'running', 'finished' or 'failed'.
        pages_total: current page versions in the page library when the job started;
            pages_searched: of those, searched so far; candidates: pages matched in full with
            the platform engine (the small index of the new works found them).
        matches_found: matches of the new works recorded; matches_new: of those, new rows.
        error: why the job failed.
    """

    class State(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        FAILED = "failed", _("failed")

    works = models.ManyToManyField(Work, verbose_name=_("works"), related_name="+")
    state = models.CharField(_("status"), max_length=16, choices=State.choices,
                             default=State.RUNNING, db_index=True)
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    pages_total = models.PositiveIntegerField(_("stored pages"), default=0)
    pages_searched = models.PositiveIntegerField(_("pages searched"), default=0)
    candidates = models.PositiveIntegerField(_("candidate pages"), default=0)
    matches_found = models.PositiveIntegerField(_("matches found"), default=0)
    matches_new = models.PositiveIntegerField(_("new matches"), default=0)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        verbose_name = _("stored-page search")
        verbose_name_plural = _("stored-page searches")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return gettext("#%(id)s (%(status)s): %(searched)s of %(total)s pages searched") % {
            "id": self.pk, "status": self.get_state_display(), "searched": self.pages_searched,
            "total": self.pages_total}


class ProposalStatus(models.TextChoices):
    """A rights holder's proposed target site: proposed, then approved or rejected by staff."""

    PROPOSED = "proposed", _("proposed")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")


class SiteProposal(models.Model):
    """A site a rights holder asks the platform to scan (crawler.proposal_actions.do_propose_site).

    Attributes:
        holder, proposed_by: who proposes it.
        url: the site's start URL (canonical; passed the crawler's URL and SSRF checks).
        reason: why the holder thinks its works are copied there.
        status: ProposalStatus; decided_by, decided_at, decision_reason: staff's decision.
        site: the TargetSite created on approval.
    """

    holder = models.ForeignKey(RightsHolder, verbose_name=_("rights holder"),
                               on_delete=models.CASCADE, related_name="+")
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("proposed by"),
                                    null=True, on_delete=models.SET_NULL, related_name="+")
    url = models.URLField(_("URL"), max_length=2048)
    reason = models.TextField(_("why"))
    status = models.CharField(_("status"), max_length=16, choices=ProposalStatus.choices,
                              default=ProposalStatus.PROPOSED, db_index=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("decided by"),
                                   null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_at = models.DateTimeField(_("decided on"), null=True, blank=True)
    decision_reason = models.TextField(_("reason of the decision"), blank=True)
    site = models.ForeignKey(TargetSite, verbose_name=_("target site"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(_("proposed on"), auto_now_add=True)

    class Meta:
        verbose_name = _("site proposal")
        verbose_name_plural = _("site proposals")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.url


class CandidateStatus(models.TextChoices):
    """Where a candidate site stands: found but not sampled yet, proposed (its sampled pages
    copy registered works), no match in its sample, none of its pages readable in
    settings.DISCOVERY_SAMPLE_ATTEMPTS passes, made a target site, or dismissed (never proposed
    again)."""

    NEW = "new", _("not sampled yet")
    PROPOSED = "proposed", _("proposed")
    NO_MATCH = "no_match", _("no match in the sample")
    UNREADABLE = "unreadable", _("no page could be read")
    PROMOTED = "promoted", _("made a target site")
    DISMISSED = "dismissed", _("dismissed")


class CandidateSite(models.Model):
    """A site that matched pages, or pages of sites with confirmed matches, link to: maybe
    another copy of the works (crawler.discovery).

    Attributes:
        domain: the host the links point to (lower case).
        link_count: links to it counted on those pages in the last discovery pass.
        linked_from: canonical URLs of up to 10 pages that link to it.
        sample_urls: canonical URLs linked on it, the first of which are sampled.
        pages_sampled: pages of it fetched and matched; matches_found: of those, pages that
            copy a registered work; works: the works they copy (rights holders see the
            candidates that concern their works).
        target_site: the TargetSite made of it, once promoted.
        note: why pages could not be sampled, or why it was dismissed.
        sample_attempts: discovery passes in a row in which none of its pages could be read;
            it is sampled again until settings.DISCOVERY_SAMPLE_ATTEMPTS, then 'unreadable'.
        moved_from: the target site it is proposed as the new domain of (crawler.domain_moves),
            or None; move_evidence: why ({"kind": "redirect" or "same_pages", "site": the old
            site's name, "origin": the new origin, "pages": [the redirects or pages compared],
            ...}, ``crawler.domain_moves.evidence_lines`` puts it into words).
    """

    domain = models.CharField(_("domain"), max_length=255, unique=True)
    status = models.CharField(_("status"), max_length=16, choices=CandidateStatus.choices,
                              default=CandidateStatus.NEW, db_index=True)
    link_count = models.PositiveIntegerField(_("links to it"), default=0)
    linked_from = models.JSONField(_("linked from"), default=list, blank=True)
    sample_urls = models.JSONField(_("pages to sample"), default=list, blank=True)
    pages_sampled = models.PositiveIntegerField(_("pages sampled"), default=0)
    matches_found = models.PositiveIntegerField(_("pages copying works"), default=0)
    works = models.ManyToManyField(Work, verbose_name=_("works found"), blank=True,
                                   related_name="candidate_sites")
    target_site = models.ForeignKey(TargetSite, verbose_name=_("target site"), null=True,
                                    blank=True, on_delete=models.SET_NULL, related_name="+")
    note = models.TextField(_("note"), blank=True)
    first_seen = models.DateTimeField(_("first seen"), default=timezone.now)
    sampled_at = models.DateTimeField(_("sampled"), null=True, blank=True)
    sample_attempts = models.PositiveSmallIntegerField(_("passes without a readable page"),
                                                       default=0)
    moved_from = models.ForeignKey(TargetSite, verbose_name=_("moved from"), null=True,
                                   blank=True, on_delete=models.SET_NULL, related_name="+")
    move_evidence = models.JSONField(_("evidence of the move"), default=dict, blank=True)

    class Meta:
        verbose_name = _("candidate site")
        verbose_name_plural = _("candidate sites")
        ordering = ["-matches_found", "-link_count", "domain"]

    def __str__(self) -> str:
        return self.domain


class CaseState(models.TextChoices):
    """Where a case is: new -> confirmed -> notice sent -> removed, or still up after its
    notice; dismissed (not pursued, with the reason); reopened (a page came back or a new one
    appeared after removal or dismissal was undone)."""

    NEW = "new", _("new")
    CONFIRMED = "confirmed", _("confirmed")
    DISMISSED = "dismissed", _("dismissed")
    NOTICE_SENT = "notice_sent", _("notice sent")
    REMOVED = "removed", _("removed")
    STILL_UP = "still_up", _("still up")
    REOPENED = "reopened", _("reopened")


#: States in which a case still needs work (the daily queue's default view).
OPEN_STATES = (CaseState.NEW, CaseState.CONFIRMED, CaseState.NOTICE_SENT, CaseState.STILL_UP,
               CaseState.REOPENED)


class Case(models.Model):
    """One work of one rights holder found on one site (registered domain): every matched
    page of that work on any host under that domain, across scans, is one of its pages
    (``Match.case``). Opened by ``crawler.cases.open_case``; its state moves only through the
    ``do_<verb>_case`` actions (``crawler.cases``, ``crawler.case_actions``), each audited
    (kind "case").

    Attributes:
        work: the work copied (its holder owns the case).
        domain: the registered domain, e.g. "example.com" for pages on news.example.com.
        state: a CaseState value.
        state_reason: why the case is in its state when a reason was given (a coded note,
            ``core.notes``, or a person's text), e.g. the whitelist that dismissed it.
        opened_at: when its first page was recorded; state_changed_at: its latest move.
        first_scan: the scan that found its first page, or None (stored-page search, import).
        notice_sent_at / removed_at: when a notice citing its pages was sent / when its pages
            were found removed (the latest time each happened).
        icp_filing: the ICP filing (备案) number the site's pages show, e.g.
            "京ICP备12345678号-1", found by the contact search; "" when none was seen.
    """

    work = models.ForeignKey(Work, verbose_name=_("work"), on_delete=models.CASCADE,
                             related_name="cases")
    domain = models.CharField(_("site (registered domain)"), max_length=255, db_index=True)
    state = models.CharField(_("state"), max_length=16, choices=CaseState.choices,
                             default=CaseState.NEW, db_index=True)
    state_reason = models.TextField(_("reason"), blank=True)
    opened_at = models.DateTimeField(_("opened"), default=timezone.now, db_index=True)
    state_changed_at = models.DateTimeField(_("state changed"), default=timezone.now)
    first_scan = models.ForeignKey("crawler.ScanRun", verbose_name=_("first scan"), null=True,
                                   blank=True, on_delete=models.SET_NULL, related_name="+")
    notice_sent_at = models.DateTimeField(_("notice sent"), null=True, blank=True)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True)
    icp_filing = models.CharField(_("ICP filing number"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("case")
        verbose_name_plural = _("cases")
        ordering = ["-opened_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["work", "domain"],
                                               name="case_unique_work_domain")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.work.title} @ {self.domain}"

    @property
    def state_reason_words(self) -> str:
        """The state's reason in words of the active language ("" for none)."""
        return notes.in_words(self.state_reason)


class ContactSearch(models.TextChoices):
    """Where the search for a site's contact addresses is."""

    NONE = "", _("not searched")
    SEARCHING = "searching", _("searching")
    DONE = "done", _("searched")
    FAILED = "failed", _("search failed")


class ContactEvent(models.TextChoices):
    """The states of a site contact's events in the audit trail (kind "site")."""

    UNSET = "-", _("no contact")
    CONTACT_SET = "contact set", _("takedown contact set")
    SEARCHING = ContactSearch.SEARCHING.value, _("searching addresses")
    DONE = ContactSearch.DONE.value, _("addresses searched")
    FAILED = ContactSearch.FAILED.value, _("address search failed")


class SiteContact(models.Model):
    """The takedown contact of one site: a registered domain, the unit cases live on, so that
    every case of the domain (whichever target site or search found its pages) sends to it.

    Attributes:
        domain: the registered domain, e.g. "example.com".
        address: the confirmed e-mail address notices go to; "" while none is confirmed.
        confirmed_by / confirmed_at: who set or confirmed the address, and when.
        search: the state of the search for addresses (ContactSearch), asked at
            ``search_asked_at``, ``search_attempts`` tries; ``search_note``: a coded note
            (``core.notes``) of its result or failure.
        rdap, rdap_asked_at, rdap_attempts, rdap_note: the same for the RDAP lookup of its
            registrar's and hosting provider's abuse addresses (``crawler.rdap_contacts``).
        refused: the addresses found but refused, [{"address": the first 80 characters,
            "source": a ContactSource value, "reason": English words}], newest search's.
    """

    domain = models.CharField(_("site (registered domain)"), max_length=255, unique=True)
    address = models.EmailField(_("takedown contact"), max_length=254, blank=True)
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("confirmed by"),
                                     null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)
    search = models.CharField(_("address search"), max_length=16, choices=ContactSearch.choices,
                              default=ContactSearch.NONE, blank=True)
    search_asked_at = models.DateTimeField(_("search asked"), null=True, blank=True)
    search_attempts = models.PositiveSmallIntegerField(_("search attempts"), default=0)
    search_note = models.TextField(_("search result"), blank=True)
    rdap = models.CharField(_("RDAP lookup"), max_length=16, choices=ContactSearch.choices,
                            default=ContactSearch.NONE, blank=True)
    rdap_asked_at = models.DateTimeField(_("RDAP lookup asked"), null=True, blank=True)
    rdap_attempts = models.PositiveSmallIntegerField(_("RDAP attempts"), default=0)
    rdap_note = models.TextField(_("RDAP result"), blank=True)
    refused = models.JSONField(_("addresses refused"), default=list, blank=True)

    class Meta:
        verbose_name = _("takedown contact")
        verbose_name_plural = _("takedown contacts")
        ordering = ["domain"]

    def __str__(self) -> str:
        return self.domain

    @property
    def search_note_words(self) -> str:
        """The search's note in words of the active language ("" for none)."""
        return notes.in_words(self.search_note)

    @property
    def rdap_note_words(self) -> str:
        """The RDAP lookup's note in words of the active language ("" for none)."""
        return notes.in_words(self.rdap_note)


class ContactSource(models.TextChoices):
    """Where a suggested address was found."""

    SECURITY_TXT = "security_txt", _("security.txt")
    MAILTO = "mailto", _("mailto: link")
    CONTACT_PAGE = "contact_page", _("contact page")
    RDAP_REGISTRAR = "rdap_registrar", _("registrar (RDAP)")
    RDAP_HOST = "rdap_host", _("hosting provider (RDAP)")


class ContactSuggestion(models.Model):
    """An address found on a site by the contact search, waiting for staff to confirm it
    (``crawler.contacts.do_set_contact``) before any notice goes to it."""

    contact = models.ForeignKey(SiteContact, verbose_name=_("site"), on_delete=models.CASCADE,
                                related_name="suggestions")
    address = models.EmailField(_("address"), max_length=254)
    source = models.CharField(_("found in"), max_length=16, choices=ContactSource.choices)
    found_on = models.CharField(_("found on"), max_length=2048)
    found_at = models.DateTimeField(_("found"), default=timezone.now)

    class Meta:
        verbose_name = _("contact suggestion")
        verbose_name_plural = _("contact suggestions")
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["contact", "address"],
                                               name="contact_suggestion_unique_address")]

    def __str__(self) -> str:
        return self.address


# Search-engine discovery (crawler.search_discovery): a run, the queries it asked and the result
# pages it read, each tied to the match it found (its provenance).

class SearchRunStatus(models.TextChoices):
    """A search run is running until its task closes it: finished, or failed with the reason
    (no usable provider, every query failed, or no progress for settings.SEARCH_RUN_STUCK_SECONDS)."""

    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")


class SearchRun(models.Model):
    """One pass of search discovery over every indexed work, or over ``work``.

    Attributes:
        trigger: 'schedule', 'command' or 'admin'; works_total / works_done: its progress;
        queries: queries asked (each to the first provider that answered); results: result
            URLs returned; pages_fetched: result pages read; pages_matched: of those, pages
            copying a work; new_cases: cases it opened; note: why it failed (a coded note).
        updated_at: its last progress (the sweeper fails a run that stops moving).
    """

    work = models.ForeignKey(Work, verbose_name=_("work"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    trigger = models.CharField(_("trigger"), max_length=16, default="schedule")
    status = models.CharField(_("status"), max_length=16, choices=SearchRunStatus.choices,
                              default=SearchRunStatus.RUNNING, db_index=True)
    started_at = models.DateTimeField(_("started"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("last progress"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    works_total = models.PositiveIntegerField(_("works to search"), default=0)
    works_done = models.PositiveIntegerField(_("works searched"), default=0)
    queries = models.PositiveIntegerField(_("queries"), default=0)
    results = models.PositiveIntegerField(_("results"), default=0)
    pages_fetched = models.PositiveIntegerField(_("pages fetched"), default=0)
    pages_matched = models.PositiveIntegerField(_("pages copying works"), default=0)
    new_cases = models.PositiveIntegerField(_("new cases"), default=0)
    note = models.TextField(_("note"), blank=True)

    class Meta:
        verbose_name = _("web search run")
        verbose_name_plural = _("web search runs")
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"#{self.pk}"

    def summary(self) -> dict:
        """The run's figures as the ``discover`` command prints them."""
        return {"run": self.pk, "status": self.status, "queries": self.queries,
                "results": self.results, "pages_fetched": self.pages_fetched,
                "pages_matched": self.pages_matched, "new_cases": self.new_cases,
                "note": notes.in_english(self.note)}


class SearchQuery(models.Model):
    """A phrase of ``work`` asked in run ``run``: ``provider`` (the one that answered, or the
    last one tried), ``status`` ('ok' or 'failed'), ``results`` (URLs returned), ``attempts``
    (requests made, retries included), ``error`` (a coded note: why it failed)."""

    run = models.ForeignKey(SearchRun, verbose_name=_("run"), on_delete=models.CASCADE,
                            related_name="search_queries")
    work = models.ForeignKey(Work, verbose_name=_("work"), on_delete=models.CASCADE,
                             related_name="+")
    phrase = models.CharField(_("phrase"), max_length=100)
    provider = models.CharField(_("provider"), max_length=40, blank=True)
    status = models.CharField(_("status"), max_length=8, default="ok")
    results = models.PositiveIntegerField(_("results"), default=0)
    attempts = models.PositiveSmallIntegerField(_("requests"), default=0)
    error = models.TextField(_("error"), blank=True)
    asked_at = models.DateTimeField(_("asked"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("web search query")
        verbose_name_plural = _("web search queries")
        ordering = ["asked_at", "pk"]

    def __str__(self) -> str:
        return self.phrase


class SearchHit(models.Model):
    """A result URL of a query, read like a scan's page: ``rank`` (1 = first), ``outcome`` (the
    crawl outcome: ok, robots_disallowed, ssrf_refused, too_large ...), ``reason``, and
    ``match``: the match recorded for the page, if it copies the query's work or another."""

    query = models.ForeignKey(SearchQuery, verbose_name=_("query"), on_delete=models.CASCADE,
                              related_name="hits")
    url = models.CharField(_("URL"), max_length=2048)
    rank = models.PositiveSmallIntegerField(_("rank"))
    outcome = models.CharField(_("outcome"), max_length=32, blank=True)
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    match = models.ForeignKey(Match, verbose_name=_("match"), null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="search_hits")
    found_at = models.DateTimeField(_("found"), default=timezone.now)

    class Meta:
        verbose_name = _("web search result")
        verbose_name_plural = _("web search results")
        ordering = ["query", "rank"]

    def __str__(self) -> str:
        return self.url
from crawler.archive_models import ArchiveFind, ArchiveScan, ArchiveStatus  # noqa: E402, F401
