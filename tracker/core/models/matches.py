"""Matches: crawled pages that copy a registered work, with their evidence; and the domains a
rights holder has whitelisted (owned by the crawler issue; reviewed in the dashboard).

The evidence is the page version the engine matched (``version_id``, an immutable document in
MongoDB ``page_versions``) and the passages: character offsets into that version's text and the
work's text. A page seen matching again updates ``last_seen`` (one row per page and work); a
page that no longer matches keeps its row and evidence, with ``still_matching`` False.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .holders import RightsHolder
from .sites import ScanRun, TargetSite
from .works import Work


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


class Match(models.Model):
    """A crawled page that copies (part of) a work.

    Attributes:
        page_id: the page's id in MongoDB ``pages`` (24 hex characters).
        version_id: the matched page version in MongoDB ``page_versions`` (the evidence).
        url, domain, title: the page's canonical URL, host and title when matched.
        score: the engine's score (0..1); containment_page: share of the page's text found in
            the work; containment_work: share of the work's text found on the page.
        passages: ``[{"page_start", "page_end", "work_start", "work_end"}]``, character offsets
            (end exclusive) into the version's text and the work's text.
        section: title of the work's section (chapter) holding most matched characters, or ''.
        first_seen / last_seen: first and latest time the page was found matching.
        still_matching: False once a later version of the page no longer matches.
    """

    work = models.ForeignKey(Work, verbose_name=_("work"), on_delete=models.CASCADE,
                             related_name="matches")
    page_id = models.CharField(_("page id"), max_length=24, db_index=True)
    version_id = models.CharField(_("page version id"), max_length=24)
    url = models.CharField(_("URL"), max_length=2048)
    domain = models.CharField(_("domain"), max_length=255, db_index=True)
    title = models.CharField(_("page title"), max_length=500, blank=True)
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
    first_seen = models.DateTimeField(_("first seen"), default=timezone.now, db_index=True)
    last_seen = models.DateTimeField(_("last seen"), default=timezone.now)
    still_matching = models.BooleanField(_("still matching"), default=True)
    review_status = models.CharField(_("review status"), max_length=16,
                                     choices=ReviewStatus.choices, default=ReviewStatus.NEW,
                                     db_index=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-first_seen", "-id"]
        constraints = [models.UniqueConstraint(fields=["page_id", "work"],
                                               name="match_unique_page_work")]

    def __str__(self) -> str:
        return f"{self.url} ~ {self.work}"
