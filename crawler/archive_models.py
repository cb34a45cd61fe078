"""Models of web-archive scans (WARC/WET files, crawler.archives): ``ArchiveScan``, one file
or byte range of a file read by one Celery task, with its committed progress; ``ArchiveFind``,
where in an archive a match was found (the match's provenance). Imported by crawler.models,
so they belong to the crawler app."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ArchiveStatus(models.TextChoices):
    """The states of an ArchiveScan: queued, running, then finished or failed."""

    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")


class ArchiveScan(models.Model):
    """One WARC or WET file, or the byte range [``range_start``, ``range_end``) of one (a CDX
    capture, or a part of a large file), scanned by one task on settings.QUEUE_ARCHIVE.

    ``source``: the local path or HTTP(S) URL read; ``identity``: the file's identity
    (lib.crawl.archive.sources.identity) with which record offsets name records for good;
    ``batch``: the scans started together (one command, one CDX query). Progress is committed
    every settings.ARCHIVE_PROGRESS_RECORDS records: ``offset`` is the file offset of the
    first record not yet done (a worker killed mid-file resumes there), ``records`` and
    ``bytes_done`` count what is done, of ``bytes_total`` (the range's bytes; None until known).
    ``attempts``: how often a worker started it; ``task_id``: the Celery task reading it now
    (only that task may commit progress: a duplicate message finds it taken). A failed file keeps its records before the
    fault and names it: ``error_offset`` (bytes) and ``note`` (a coded note, core.notes).
    """

    source = models.CharField(_("file"), max_length=2048)
    identity = models.CharField(_("file identity"), max_length=2048, db_index=True)
    range_start = models.BigIntegerField(_("from byte"), default=0)
    range_end = models.BigIntegerField(_("to byte"), null=True, blank=True)
    batch = models.CharField(_("batch"), max_length=32, db_index=True)
    status = models.CharField(_("status"), max_length=16, choices=ArchiveStatus.choices,
                              default=ArchiveStatus.QUEUED, db_index=True)
    offset = models.BigIntegerField(_("next record at byte"), default=0)
    records = models.PositiveIntegerField(_("records"), default=0)
    records_cut = models.PositiveIntegerField(_("records cut at the byte limit"), default=0)
    bytes_done = models.BigIntegerField(_("bytes done"), default=0)
    bytes_total = models.BigIntegerField(_("bytes in all"), null=True, blank=True)
    pages_matched = models.PositiveIntegerField(_("pages matched"), default=0)
    matches = models.PositiveIntegerField(_("matches"), default=0)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    task_id = models.CharField(_("task"), max_length=64, blank=True)
    error_offset = models.BigIntegerField(_("fault at byte"), null=True, blank=True)
    note = models.TextField(_("note"), blank=True)
    created_at = models.DateTimeField(_("queued"), default=timezone.now, db_index=True)
    heartbeat_at = models.DateTimeField(_("last progress"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("archive scan")
        verbose_name_plural = _("archive scans")
        ordering = ["-pk"]

    def __str__(self) -> str:
        return self.source.rsplit("/", 1)[-1] or self.source


class ArchiveFind(models.Model):
    """A match found in a web archive: the record's file (``identity`` and the ``source`` read),
    ``offset`` (bytes), ``warc_date`` (WARC-Date as written), ``target_uri``
    (WARC-Target-URI) and the ``scan`` that read it. One row per (match, file, offset): a file
    scanned again records nothing twice."""

    match = models.ForeignKey("crawler.Match", verbose_name=_("match"), on_delete=models.CASCADE,
                              related_name="archive_finds")
    scan = models.ForeignKey(ArchiveScan, verbose_name=_("archive scan"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="finds")
    identity = models.CharField(_("file identity"), max_length=2048)
    source = models.CharField(_("file"), max_length=2048)
    offset = models.BigIntegerField(_("record at byte"))
    warc_date = models.CharField(_("WARC-Date"), max_length=40, blank=True)
    target_uri = models.CharField(_("WARC-Target-URI"), max_length=2048)
    found_at = models.DateTimeField(_("found"), default=timezone.now)

    class Meta:
        verbose_name = _("archive find")
        verbose_name_plural = _("archive finds")
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["match", "identity", "offset"],
                                               name="archive_find_once")]

    def __str__(self) -> str:
        return f"{self.target_uri} @ {self.offset}"
