"""Web-archive scans: WARC and WET files read record by record, each record's text matched with
the registered works and its matches recorded like a crawled page's, with their provenance.

``do_start_archive_scans`` records one ArchiveScan per file or byte range and queues one
``crawler.scan_archive_file`` task each (settings.QUEUE_ARCHIVE); ``run`` is that task's body.
A record whose text copies a work is stored as a page version under its WARC-Target-URI's
canonical URL (the same page a crawl of that URL would store, so that the copy found by a scan
and in an archive is one match) and recorded by ``crawler.matching.record_matches``: matches,
cases and evidence captures as for a scan. Each match gets an ArchiveFind (file, offset,
WARC-Date, WARC-Target-URI), once per (match, file, offset): a file read again records nothing
twice. Records that match nothing leave no trace but the counters: most of an archive.

Records are matched in batches (settings.ARCHIVE_BATCH_RECORDS records or
settings.ARCHIVE_BATCH_BYTES payload bytes, whichever comes first): one index lookup for a
batch, not one Redis round trip per record. Progress is committed every
settings.ARCHIVE_PROGRESS_RECORDS records, between two batches (the offset of the first record
not done: every record before it is matched and recorded); a task delivered again after its
worker died resumes there, and ``sweep_stuck`` sends again a scan whose worker died, or fails it after
settings.ARCHIVE_MAX_ATTEMPTS starts. A truncated or corrupt file keeps the records before
the fault and is failed with the fault's offset and reason.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.models import AuditEvent
from core.queueing import queue_after_commit
from crawler import matching, scans
from crawler.models import ArchiveFind, ArchiveScan, ArchiveStatus, Match
from lib.crawl.archive import cdx, sources
from lib.crawl.archive.reader import ArchiveRecord, Fault, read_records
from lib.crawl.archive.text import RecordText, matched_texts
from lib.crawl.canonical import InvalidURL, canonical_url, host_of

log = logging.getLogger(__name__)

TASK = "crawler.scan_archive_file"
OPEN = (ArchiveStatus.QUEUED, ArchiveStatus.RUNNING)


@dataclass(frozen=True)
class Part:
    """What one ArchiveScan reads: ``source`` (local path or HTTP(S) URL) from byte ``start``
    to ``end`` (exclusive; None: to the end of the file)."""

    source: str
    start: int = 0
    end: int | None = None


def do_start_archive_scans(parts: list[Part], *, acting_user=None,
                           trigger: str = "command") -> list[ArchiveScan]:
    """Record one queued ArchiveScan per part of ``parts`` (one batch) and send one
    scan_archive_file task each once they are committed; the start is recorded in the audit
    trail (``acting_user``: who asked, None for a command). Returns the ArchiveScans, in the
    order of ``parts``. Raises ValueError for an empty list or a range that ends before it
    starts."""
    if not parts:
        raise ValueError("no archive file to scan")
    if any(p.start < 0 or (p.end is not None and p.end <= p.start) for p in parts):
        raise ValueError("a byte range must start at 0 or later and end after its start")
    batch = uuid.uuid4().hex
    with transaction.atomic():
        rows = ArchiveScan.objects.bulk_create([ArchiveScan(
            source=p.source, identity=sources.identity(p.source), range_start=p.start,
            range_end=p.end, offset=p.start, batch=batch,
            bytes_total=None if p.end is None else p.end - p.start) for p in parts])
        AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=acting_user, holder=None,
                          target=rows[0], subject=f"archive scan {batch}: {len(rows)} file(s)",
                          old_state="", new_state=ArchiveStatus.QUEUED,
                          reason=f"{trigger}: {parts[0].source}"[:2000])
        for row in rows:
            queue_after_commit(TASK, row.pk)
    return rows


@dataclass
class _Counts:
    """Counters of a scan not yet committed."""

    records: int = 0
    cut: int = 0
    pages: int = 0
    matches: int = 0
    pending: dict = field(default_factory=dict)


class _Taken(Exception):
    """Another task took the scan over (the sweeper sent it again while this one hung)."""


def run(scan_id: int, engine, crawler, task_id: str = "") -> str:
    """Scan ArchiveScan ``scan_id`` from its committed offset (the body of task ``task_id``):
    each record's text matched with ``engine`` (fingerprint.Engine) and its matches recorded,
    pages stored through ``crawler`` (lib.crawl.pipeline.Crawler, for its page store).

    The task takes the scan when it is queued, when it is the same task delivered again (its
    worker died), or when the scan's progress is older than settings.ARCHIVE_STALE_SECONDS;
    any other delivery (a duplicate message) leaves it alone. Returns the scan's status
    afterwards ('finished', 'failed', or the status it has when another task holds or finished
    it). Raises what MongoDB, Redis, PostgreSQL and the engine raise (the task then leaves the
    scan running: it is delivered or swept again and resumes).
    """
    stale = timezone.now() - timedelta(seconds=settings.ARCHIVE_STALE_SECONDS)
    claimed = ArchiveScan.objects.filter(
        Q(status=ArchiveStatus.QUEUED) | Q(status=ArchiveStatus.RUNNING, task_id=task_id)
        | Q(status=ArchiveStatus.RUNNING, heartbeat_at__lt=stale), pk=scan_id).update(
        status=ArchiveStatus.RUNNING, task_id=task_id, attempts=F("attempts") + 1,
        heartbeat_at=timezone.now())
    scan = ArchiveScan.objects.filter(pk=scan_id).first()
    if scan is None or not claimed:
        return scan.status if scan else "missing"
    try:
        return _scan(scan, engine, crawler)
    except _Taken:
        log.warning("archive scan #%s was taken over by another task", scan_id)
        return ArchiveScan.objects.filter(pk=scan_id).values_list("status", flat=True).first() or ""


def _scan(scan: ArchiveScan, engine, crawler) -> str:
    """The reading of a claimed scan (``run``). Raises _Taken when it lost the scan."""
    scan_id = scan.pk
    if scan.attempts > settings.ARCHIVE_MAX_ATTEMPTS:
        return _close(scan, ArchiveStatus.FAILED, notes.coded(
            "archive_attempts", gettext_noop("failed: started %(n)s times without finishing"),
            n=scan.attempts - 1))
    config = scans.crawl_config()
    http = sources.session(config)
    timeout = settings.ARCHIVE_READ_TIMEOUT_SECONDS
    try:
        if scan.bytes_total is None:
            scan.bytes_total = sources.size_of(scan.source, http, timeout) - scan.range_start
            ArchiveScan.objects.filter(pk=scan_id).update(bytes_total=scan.bytes_total)
        end = scan.range_end if scan.range_end is not None else scan.range_start + scan.bytes_total
        with sources.open_range(scan.source, http, scan.offset, scan.range_end, timeout) as stream:
            counts, batch = _Counts(), _Batch()
            for item in read_records(stream, max_bytes=config.max_body_bytes,
                                     base_offset=scan.offset, end_offset=scan.range_end):
                if isinstance(item, Fault):
                    _match_batch(scan, batch, engine, crawler, counts)
                    _commit(scan, counts, item.offset)
                    return _close(scan, ArchiveStatus.FAILED, notes.coded(
                        "archive_fault", gettext_noop("failed at byte %(offset)s: %(reason)s"),
                        offset=item.offset, reason=item.reason), error_offset=item.offset)
                if batch.full(counts.records):
                    _match_batch(scan, batch, engine, crawler, counts)
                if not batch.records and counts.records >= settings.ARCHIVE_PROGRESS_RECORDS:
                    _commit(scan, counts, item.offset)  # every record before it is matched
                batch.add(item)
                counts.records += 1
                counts.cut += item.cut
            _match_batch(scan, batch, engine, crawler, counts)
            _commit(scan, counts, max(end, scan.offset))
    except sources.SourceError as exc:
        return _close(scan, ArchiveStatus.FAILED, notes.coded(
            "archive_source", gettext_noop("failed: %(error)s"), error=str(exc)[:500]),
            error_offset=scan.offset)
    finally:
        http.close()
    return _close(scan, ArchiveStatus.FINISHED, "")


@dataclass
class _Batch:
    """Records read but not matched yet, and their payload bytes."""

    records: list[ArchiveRecord] = field(default_factory=list)
    size: int = 0

    def add(self, record: ArchiveRecord) -> None:
        self.records.append(record)
        self.size += len(record.body)

    def full(self, uncommitted: int) -> bool:
        """True when the batch is to be matched before another record joins it: it holds
        settings.ARCHIVE_BATCH_RECORDS records or settings.ARCHIVE_BATCH_BYTES payload bytes,
        or progress is due (``uncommitted`` records since the last commit), which commits
        only between batches."""
        return bool(self.records) and (
            len(self.records) >= settings.ARCHIVE_BATCH_RECORDS
            or self.size >= settings.ARCHIVE_BATCH_BYTES
            or uncommitted >= settings.ARCHIVE_PROGRESS_RECORDS)


def _match_batch(scan: ArchiveScan, batch: _Batch, engine, crawler, counts: _Counts) -> None:
    """Match the records of ``batch`` (one index lookup for all, ``matched_texts``), record
    what each copies (``_record``) and empty the batch."""
    records = [r for r in batch.records if r.uri]
    for record, matched in zip(records, matched_texts(records, engine), strict=True):
        if matched is not None:
            _record(scan, record, *matched, crawler, counts)
    batch.records, batch.size = [], 0


def _record(scan: ArchiveScan, record: ArchiveRecord, text: RecordText, found: list, crawler,
            counts: _Counts) -> None:
    """Store the page of ``record`` (its ``text``) and record the matches ``found`` in it, with
    their ArchiveFinds (see the module docstring)."""
    try:
        url = canonical_url(record.uri)
    except InvalidURL:
        log.info("archive scan %s: record at %s has no usable URI %r", scan.pk, record.offset,
                 record.uri)
        return
    known = crawler.pages.get(url)
    saved = crawler.pages.save(
        canonical_url=url, url=record.uri, final_url=record.uri, domain=host_of(url),
        site_id=known.site_id if known else None, scan_id=None, status=record.status or 200,
        outcome="ok", reason="", headers={}, validators={}, body=record.body, text=text.text,
        title=text.title, published=None, encoding=text.encoding, extraction=text.extraction,
        links=[], expect_new=known is None)
    page, version = saved.stored or (crawler.pages.page(saved.page_id),
                                     crawler.pages.version(saved.version_id))
    if page is None or version is None:
        return
    with transaction.atomic():
        report = matching.record_matches(page, version, None, found)
        rows = Match.objects.filter(page_id=page.id, still_matching=True,
                                    work__uid__in=[m.work_id for m in found])
        ArchiveFind.objects.bulk_create([ArchiveFind(
            match_id=pk, scan=scan, identity=scan.identity, source=scan.source,
            offset=record.offset, warc_date=record.date[:40], target_uri=record.uri[:2048])
            for pk in rows.values_list("pk", flat=True)], ignore_conflicts=True)
    crawler.pages.mark_matched(page.id, version.id)
    counts.pages += 1 if report.found else 0
    counts.matches += report.found


def _commit(scan: ArchiveScan, counts: _Counts, offset: int) -> None:
    """Commit the progress: every record before byte ``offset`` is done; ``counts`` are added
    to the row and reset. Raises _Taken when another task holds the scan now."""
    mine = ArchiveScan.objects.filter(pk=scan.pk, status=ArchiveStatus.RUNNING,
                                      task_id=scan.task_id)
    if not mine.update(
            offset=offset, bytes_done=offset - scan.range_start, heartbeat_at=timezone.now(),
            records=F("records") + counts.records, records_cut=F("records_cut") + counts.cut,
            pages_matched=F("pages_matched") + counts.pages, matches=F("matches") + counts.matches):
        raise _Taken(scan.pk)
    scan.offset = offset
    counts.records = counts.cut = counts.pages = counts.matches = 0


def _close(scan: ArchiveScan, status: str, note: str, error_offset: int | None = None) -> str:
    """Close ``scan`` with ``status`` and ``note`` unless it is closed already or another task
    holds it; recorded in the audit trail. Returns the status it has now."""
    with transaction.atomic():
        closed = ArchiveScan.objects.filter(pk=scan.pk, status__in=OPEN,
                                            task_id=scan.task_id).update(
            status=status, note=note, error_offset=error_offset, finished_at=timezone.now())
        if closed:
            AuditEvent.record(kind=AuditEvent.Kind.SCAN, user=None, holder=None, target=scan,
                              subject=f"archive scan #{scan.pk}: {scan}"[:2000],
                              old_state=ArchiveStatus.RUNNING, new_state=status,
                              reason=notes.in_english(note) if note else "")
    if status == ArchiveStatus.FAILED:
        log.warning("archive scan #%s %s", scan.pk, notes.in_english(note))
    return ArchiveScan.objects.filter(pk=scan.pk).values_list("status", flat=True).first() or status


def sweep_stuck() -> list[int]:
    """Send again every running archive scan without progress for
    settings.ARCHIVE_STALE_SECONDS (its worker died, or hangs: the new task takes it over), and
    every scan still queued settings.ARCHIVE_QUEUED_RESEND_SECONDS after it was queued or last
    sent (its message lost with the broker; a duplicate finds it taken and does nothing). The
    task resumes a scan at its committed offset, or fails it after settings.ARCHIVE_MAX_ATTEMPTS
    starts. Returns the ids sent again."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARCHIVE_STALE_SECONDS)
    waiting = now - timedelta(seconds=settings.ARCHIVE_QUEUED_RESEND_SECONDS)
    rows = ArchiveScan.objects.filter(
        Q(status=ArchiveStatus.RUNNING, heartbeat_at__lt=stale)
        | Q(status=ArchiveStatus.QUEUED, heartbeat_at__lt=waiting)
        | Q(status=ArchiveStatus.QUEUED, heartbeat_at=None, created_at__lt=waiting))
    sent = []
    with transaction.atomic():
        for pk in rows.values_list("pk", flat=True):
            # queued again with its time of sending, so that the task may take it
            if ArchiveScan.objects.filter(pk=pk, status__in=OPEN).update(
                    status=ArchiveStatus.QUEUED, heartbeat_at=now):
                queue_after_commit(TASK, pk)
                sent.append(pk)
    return sent


def batch_summary(batch: str) -> dict:
    """The JSON summary of a batch of scans: ``records``, ``pages_matched``, ``matches``,
    ``files`` and ``status`` ('running' while one is open, 'failed' when one failed, else
    'finished'), with ``failed`` ([{"file", "offset", "reason"}])."""
    rows = list(ArchiveScan.objects.filter(batch=batch))
    failed = [r for r in rows if r.status == ArchiveStatus.FAILED]
    status = ("running" if any(r.status in OPEN for r in rows)
              else "failed" if failed else "finished")
    return {"records": sum(r.records for r in rows),
            "pages_matched": sum(r.pages_matched for r in rows),
            "matches": sum(r.matches for r in rows), "files": len(rows), "status": status,
            "failed": [{"file": r.source, "offset": r.error_offset,
                        "reason": notes.in_english(r.note)} for r in failed]}


def common_crawl_parts(crawl: str, patterns: list[str]) -> list[Part]:
    """The byte ranges of the captures of ``patterns`` (domains or URL prefixes,
    lib.crawl.archive.cdx.match_type) in Common Crawl's crawl ``crawl`` (e.g.
    CC-MAIN-2024-10), asked of settings.ARCHIVE_CDX_URL, as Parts of the files on
    settings.ARCHIVE_DATA_URL; each capture once. Raises sources.SourceError when the index
    cannot be asked, ValueError for a crawl id that is not one word."""
    if not crawl or any(c in crawl for c in "/?#& "):
        raise ValueError(f"not a crawl id: {crawl!r}")
    index = settings.ARCHIVE_CDX_URL.replace("{crawl}", crawl)
    http = sources.session(scans.crawl_config())
    parts: dict[tuple[str, int], Part] = {}
    try:
        for pattern in patterns:
            for c in cdx.query(http, index, pattern, limit=settings.ARCHIVE_CDX_MAX_CAPTURES,
                               timeout=settings.ARCHIVE_READ_TIMEOUT_SECONDS):
                url = data_url(c.filename)
                parts.setdefault((url, c.offset), Part(url, c.offset, c.offset + c.length))
    finally:
        http.close()
    return list(parts.values())


def data_url(path: str) -> str:
    """The URL of ``path`` (a file path as Common Crawl's index and path lists name it) on
    settings.ARCHIVE_DATA_URL; an absolute URL stays as it is."""
    if sources.is_url(path):
        return path
    return settings.ARCHIVE_DATA_URL.rstrip("/") + "/" + path.strip().lstrip("/")
