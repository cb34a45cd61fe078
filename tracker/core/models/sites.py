"""Target sites the crawler scans, and the record of each scan run (owned by the crawler issue).

A site's schedule is a django-celery-beat PeriodicTask kept in step with the site by
``crawler.schedule`` (created when the site is saved: one scan a day by default; staff change
the schedule in the admin's Periodic tasks). The crawl itself is in ``crawler/``.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def _validate_start_urls(value):
    from crawler.urls import InvalidURL, canonical_url

    if not isinstance(value, list) or not all(isinstance(u, str) for u in value):
        raise ValidationError(_("Start URLs must be a list of URLs."))
    for url in value:
        try:
            canonical_url(url)
        except InvalidURL as exc:
            raise ValidationError(str(exc)) from exc


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
        periodic_task: its django-celery-beat schedule (managed by crawler.schedule).
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
            from crawler.urls import host_of

            self.allowed_domains = sorted({host_of(u) for u in self.start_urls if host_of(u)})
        super().save(*args, **kwargs)

    def rules(self):
        """The crawl rules of this site: a ``crawler.pipeline.SiteRules``."""
        from crawler.pipeline import SiteRules

        return SiteRules(site_id=self.pk, allowed_domains=tuple(self.allowed_domains),
                         path_patterns=tuple(self.path_patterns), delay_seconds=self.delay_seconds)


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
        urls_seen: URLs admitted to the frontier; pages_fetched: pages downloaded (HTTP 200,
            feeds and sitemaps included); pages_new / pages_changed: pages whose text was new or
            changed (these are matched); pages_unchanged: 304 answers or the same content.
        errors: {outcome: count} of the URLs that gave no page (crawler.outcomes.Outcome values,
            e.g. {"timeout": 2, "robots_disallowed": 1}), plus "match_failed": pages that could
            not be matched (engine or storage failure; the worker log says why).
        matches_found: matches recorded or confirmed again in this scan; matches_new: of those,
            pages and works never matched before.
        stage_seconds: {"fetch", "extract", "store", "match": seconds summed over all workers}.
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
        return f"{self.site} #{self.pk} ({self.status})"

    def summary(self) -> dict:
        """The scan's figures as a JSON-ready dict (what ``manage.py scan`` prints)."""
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
            "stage_seconds": self.stage_seconds, "note": self.note,
        }
