"""Bulk registration of works from a folder, a ZIP archive or a JSON Lines file.

Each file (``.txt .docx .pdf .epub .html``) becomes one work whose reference is its path inside
the folder or archive without the suffix (``novels/xiyouji``); each JSON Lines record
``{"id", "title", "text"}`` (``author``, ``kind``, ``language`` optional) becomes one work whose
reference is its ``id``. ``.jsonl`` files inside a folder or archive are read the same way.
Importing the same reference again updates that work (or skips it when nothing changed).
"""

from __future__ import annotations

import json
import logging
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from tqdm import tqdm

from lib.text import SUFFIXES

from . import errors, import_jobs, ingestion, work_actions
from .conflicts import DuplicateWork
from .models import ImportItem, ImportJob, ImportState, RightsHolder, WorkKind, WorkLanguage
from .text_extraction import Extracted, UploadError, extract_file, extract_pasted, open_zip

log = logging.getLogger(__name__)


@dataclass
class Item:
    """One work to import: its reference, where it came from, and how to read it.

    ``load()`` returns (Extracted, metadata dict with optional "title", "author", "kind",
    "language") or raises UploadError / ValueError with a message for the summary.
    """

    reference: str
    source: str
    load: Callable[[], tuple[Extracted, dict]]


@dataclass
class ImportSummary:
    """Counts and reasons of one import.

    Attributes:
        registered, updated: references of new and changed works.
        skipped: (reference or file, reason): unchanged works, files of other types.
        failed: (reference or source, reason).
        duplicates: (reference, the holder's work whose text it repeats, as
            "reference (NN%)"): not registered unless ``allow_duplicates``.
        queued: works whose ingestion was queued (or run, with ``now``).
    """

    registered: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)


def iter_items(path: Path, skipped: list[tuple[str, str]]) -> Iterator[Item]:
    """Yield the works found at ``path`` (a folder, a .zip, a .jsonl or a single file).

    Files of unsupported types inside a folder or archive are appended to ``skipped``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        UploadError: a ZIP archive is damaged or an archive bomb; an unsupported single file.
    """
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            rel = file.relative_to(path).as_posix()
            yield from _items_of(rel, file.read_bytes, skipped)
    elif path.suffix.lower() == ".zip":
        archive = open_zip(path.read_bytes(), "ZIP")
        for info in archive.infolist():
            if not info.is_dir():
                yield from _items_of(info.filename, lambda i=info: _entry(archive, i), skipped)
    elif path.suffix.lower() in (".jsonl", ".ndjson") or path.suffix.lower() in SUFFIXES:
        yield from _items_of(path.name, path.read_bytes, skipped, single=True)
    else:
        raise UploadError("unsupported", _("%(path)s: give a folder, a .zip, a .jsonl file or "
                                           "a work file (%(types)s)") % {
            "path": path, "types": " ".join(sorted(SUFFIXES))})


def _entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The bytes of one archive entry.

    Raises:
        UploadError: "corrupt", the entry's data is damaged (bad CRC or deflate data) or
            encrypted.
    """
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, OSError) as exc:
        raise UploadError("corrupt", _("%(name)s in the archive is damaged and cannot be read "
                                       "(%(error)s).") % {"name": info.filename,
                                                          "error": exc}) from exc


def _unreadable(error: UploadError) -> Callable[[], tuple[Extracted, dict]]:
    """An Item's ``load`` that raises ``error``: a file that could not be read is one failed
    line of the summary, and the rest is imported."""
    def load() -> tuple[Extracted, dict]:
        raise error
    return load


def _items_of(rel: str, read: Callable[[], bytes], skipped, single: bool = False):
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        try:
            data = read()
        except UploadError as exc:
            yield Item(rel, rel, _unreadable(exc))
            return
        yield from _jsonl_items(rel, data)
    elif suffix in SUFFIXES:
        reference = PurePosixPath(rel).stem if single else str(PurePosixPath(rel).with_suffix(""))
        yield Item(reference, rel, lambda: (extract_file(rel, read()), {}))
    else:
        skipped.append((rel, _("not a work file (type not accepted)")))


def _jsonl_items(rel: str, data: bytes) -> Iterator[Item]:
    for number, line in enumerate(data.decode("utf-8-sig", errors="replace").splitlines(), 1):
        if line.strip():
            yield Item(f"{rel}:{number}", f"{rel} line {number}",
                       lambda line=line, number=number: _record(line, number))


def _record(line: str, number: int) -> tuple[Extracted, dict]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number} is not JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise ValueError(f"line {number} is not a JSON object")
    for key in ("id", "title", "text"):
        if not isinstance(record.get(key), str | int) or not str(record[key]).strip():
            raise ValueError(f"line {number}: \"{key}\" is missing or empty")
    meta = {"reference": str(record["id"]), "title": str(record["title"]),
            "author": str(record.get("author") or "")}
    if record.get("kind") in WorkKind.values:
        meta["kind"] = record["kind"]
    if record.get("language") in WorkLanguage.values:
        meta["language"] = record["language"]
    return extract_pasted(str(record["text"])), meta


@dataclass
class Outcome:
    """What one item became: ``kind`` "registered", "updated", "skipped", "duplicate" or
    "failed"; ``reference`` (or the source, when it failed before its reference was known);
    ``detail``: the reason, or the duplicated work as "reference (NN%)"; ``work_id`` and
    ``queued`` for a registered, updated or skipped work."""

    kind: str
    reference: str
    source: str
    detail: str = ""
    work_id: int | None = None
    queued: bool = False

    def add_to(self, summary: ImportSummary) -> None:
        """Append this outcome to ``summary``'s list of its kind."""
        if self.kind in ("registered", "updated"):
            getattr(summary, self.kind).append(self.reference)
        elif self.kind == "duplicate":
            summary.duplicates.append((self.reference, self.detail))
        else:
            getattr(summary, self.kind).append((self.reference, self.detail))
        if self.queued and self.work_id is not None:
            summary.queued.append(self.work_id)


def import_path(path: Path, holder: RightsHolder, *, kind: str | None = None,
                now: bool = False, progress: bool = True, allow_duplicates: bool = False,
                on_item: Callable[[int, int], None] | None = None,
                acting_user=None, done: list[Outcome] | None = None,
                record: Callable[[int, Outcome], None] | None = None) -> ImportSummary:
    """Register every work found at ``path`` for ``holder``.

    Args:
        path: a folder, a .zip, a .jsonl file or one work file.
        holder: the RightsHolder owning the works.
        kind: a WorkKind value for every work (default: the record's, else detected).
        now: ingest each work in this process (no Celery worker needed) instead of queueing.
        progress: show a tqdm progress bar on stderr.
        allow_duplicates: register a text even when the holder registered it already as
            another work (``core.conflicts``); else it goes to ``duplicates``.
        on_item: called with (items done, items in all) before each item and at the end
            (a progress row).
        acting_user: the user recorded in the audit trail, or None (a command).
        done: the outcomes of the first items, handled by an earlier run of the same import
            (a job started again): those items are not read again.
        record: called with (item's position, Outcome) inside the transaction that registers
            the item's work, so that both commit together (a job's ``ImportItem`` rows).

    Returns:
        The ImportSummary. One bad item never stops the others; a reference given twice in one
        import fails the second time. A deadlock or serialization failure of the database is
        tried again, up to settings.IMPORT_ITEM_ATTEMPTS times per item.

    Raises:
        FileNotFoundError, UploadError: from ``iter_items`` (the source itself is unusable).
        django.db.Error: the database failed an item for another reason, or every attempt.
    """
    summary = ImportSummary()
    items = list(iter_items(path, summary.skipped))
    seen: dict[str, str] = {}
    for outcome in done or []:
        outcome.add_to(summary)
        if outcome.reference != outcome.source:  # a failure before its reference was read
            seen.setdefault(outcome.reference, outcome.source)  # names only its source
    first = len(done or [])
    for position in tqdm(range(first, len(items)), desc="works", unit="work",
                         disable=not progress):
        if on_item is not None:
            on_item(position, len(items))
        outcome = _with_retries(lambda position=position: _import_item(
            position, items[position], holder, seen, kind=kind, now=now, record=record,
            check_duplicate=not allow_duplicates, acting_user=acting_user))
        outcome.add_to(summary)
        if outcome.queued and now:
            try:
                ingestion.ingest(outcome.work_id)
            except errors.StorageUnavailable as exc:
                summary.failed.append((outcome.reference,
                                       f"registered but not indexed yet: {exc}"))
    if on_item is not None:
        on_item(len(items), len(items))
    return summary


def _with_retries(attempt: Callable[[], Outcome]) -> Outcome:
    """``attempt()``, called again after a deadlock or a serialization failure of the database
    (its transaction rolled back, nothing of it kept), at most settings.IMPORT_ITEM_ATTEMPTS
    times in all; any other error, or the last attempt's, is raised."""
    for _tries in range(settings.IMPORT_ITEM_ATTEMPTS - 1):
        try:
            return attempt()
        except OperationalError as exc:
            if getattr(exc.__cause__, "sqlstate", None) not in _TRANSIENT:
                raise
            log.warning("import item tried again after %s", exc)
    return attempt()


#: SQLSTATE codes of a transaction that may succeed when run again: deadlock detected,
#: serialization failure.
_TRANSIENT = {"40P01", "40001"}


def _import_item(position: int, item: Item, holder: RightsHolder, seen: dict[str, str], *,
                 kind: str | None, now: bool, check_duplicate: bool, acting_user,
                 record: Callable[[int, Outcome], None] | None) -> Outcome:
    """Read and register one item in one transaction (with ``record``'s row); its Outcome.
    ``seen`` (reference -> source) gains the item's reference once that transaction commits."""
    reference, named = item.reference, False
    with transaction.atomic():
        try:
            extracted, meta = item.load()
            reference = meta.pop("reference", reference)
            if reference in seen:
                raise ValueError(_("reference %(reference)s already imported from %(source)s "
                                   "in this import") % {"reference": repr(reference),
                                                        "source": seen[reference]})
            named = True
            if kind:
                meta["kind"] = kind
            result = work_actions.do_register_work(holder, reference, extracted, ingest=not now,
                                                   check_duplicate=check_duplicate,
                                                   acting_user=acting_user,
                                                   source_name=item.source, **meta)
        except DuplicateWork as exc:
            outcome = Outcome("duplicate", reference, item.source,
                              f"{exc.overlap.work.reference} ({exc.overlap.containment:.0%})")
        except (UploadError, ValueError) as exc:
            outcome = Outcome("failed", reference if named or reference in seen
                              else item.source, item.source, str(exc))
        else:
            detail = ""
            if result.outcome == "skipped":  # queued all the same when it is still pending
                detail = _("unchanged; still pending, queued again") if result.queued \
                    else _("unchanged")
            outcome = Outcome(result.outcome, reference, item.source, detail, result.work.pk,
                              result.queued)
        if record is not None:
            record(position, outcome)
    if named:
        seen[reference] = item.source
    return outcome


def run_job(job_id: int) -> str:
    """Import the staged archive of job ``job_id`` for its holder, updating ``done``/``total``
    after each work; the works' ingestion is queued as usual. A job started again (its task
    delivered again after its worker was lost, or queued again by ``import_jobs.resume_stale``)
    goes on after the last item committed (``ImportItem``): no item is registered twice.

    Returns:
        The job's final state ("finished" or "failed"), or "gone" (no such running job, or
        another run of it recorded an item first).
    """
    job = ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).first()
    if job is None:
        return "gone"
    path = import_jobs.staged_file(job)
    done = [Outcome(i.outcome, i.reference, i.source, i.detail, i.work_id, i.queued)
            for i in ImportItem.objects.filter(job=job).order_by("position")]

    def progress(position: int, total: int) -> None:
        ImportJob.objects.filter(pk=job.pk).update(done=position, total=total,
                                                   updated_at=timezone.now())

    def record(position: int, outcome: Outcome) -> None:
        ImportItem.objects.create(job=job, position=position, reference=outcome.reference[:500],
                                  source=outcome.source[:1000], outcome=outcome.kind,
                                  detail=outcome.detail, work_id=outcome.work_id,
                                  queued=outcome.queued)
        ImportJob.objects.filter(pk=job.pk).update(done=position + 1, updated_at=timezone.now())

    try:
        with translation.override(job.language or settings.LANGUAGE_CODE):
            summary = import_path(path, job.holder, progress=False, on_item=progress,
                                  acting_user=job.user, done=done, record=record)
    except (FileNotFoundError, UploadError) as exc:
        return import_jobs.close(job, ImportState.FAILED, error=str(exc),
                                 error_code=exc.code if isinstance(exc, UploadError) else "missing")
    except IntegrityError:  # another run of this job recorded the item: it goes on
        log.warning("import job %s is run elsewhere; this run stops", job.pk)
        return "gone"
    except Exception as exc:  # never leave the job running: say what broke
        log.exception("import job %s failed", job.pk)
        return import_jobs.close(job, ImportState.FAILED, error=f"{type(exc).__name__}: {exc}",
                                 error_code="internal")
    return import_jobs.close(job, ImportState.FINISHED, summary=asdict(summary))
