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
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from tqdm import tqdm

from tracker.text import SUFFIXES

from . import actions, errors, import_jobs, ingestion
from .conflicts import DuplicateWork
from .models import ImportJob, ImportState, RightsHolder, WorkKind, WorkLanguage
from .uploads import Extracted, UploadError, extract_file, extract_pasted, open_zip

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


def import_path(path: Path, holder: RightsHolder, *, kind: str | None = None,
                now: bool = False, progress: bool = True, allow_duplicates: bool = False,
                on_item: Callable[[int, int], None] | None = None,
                acting_user=None) -> ImportSummary:
    """Register every work found at ``path`` for ``holder``.

    Args:
        path: a folder, a .zip, a .jsonl file or one work file.
        holder: the RightsHolder owning the works.
        kind: a WorkKind value for every work (default: the record's, else detected).
        now: ingest each work in this process (no Celery worker needed) instead of queueing.
        progress: show a tqdm progress bar on stderr.
        allow_duplicates: register a text even when the holder registered it already as
            another work (``tracker.core.conflicts``); else it goes to ``duplicates``.
        on_item: called with (items done, items in all) before each item and at the end
            (a progress row).
        acting_user: the user recorded in the audit trail, or None (a command).

    Returns:
        The ImportSummary. One bad item never stops the others; a reference given twice in one
        import fails the second time.

    Raises:
        FileNotFoundError, UploadError: from ``iter_items`` (the source itself is unusable).
    """
    summary = ImportSummary()
    items = list(iter_items(path, summary.skipped))
    seen: dict[str, str] = {}
    for done, item in enumerate(tqdm(items, desc="works", unit="work", disable=not progress)):
        if on_item is not None:
            on_item(done, len(items))
        reference = item.reference
        try:
            extracted, meta = item.load()
            reference = meta.pop("reference", reference)
            if reference in seen:
                raise ValueError(_("reference %(reference)s already imported from %(source)s "
                                   "in this import") % {"reference": repr(reference),
                                                        "source": seen[reference]})
            seen[reference] = item.source
            if kind:
                meta["kind"] = kind
            result = actions.do_register_work(holder, reference, extracted, ingest=not now,
                                              check_duplicate=not allow_duplicates,
                                              acting_user=acting_user,
                                              source_name=item.source, **meta)
        except DuplicateWork as exc:
            summary.duplicates.append((reference, f"{exc.overlap.work.reference} "
                                                  f"({exc.overlap.containment:.0%})"))
            continue
        except (UploadError, ValueError) as exc:
            summary.failed.append((reference if reference in seen else item.source, str(exc)))
            continue
        if result.outcome == "skipped":  # queued all the same when it is still pending
            summary.skipped.append((reference, _("unchanged; still pending, queued again")
                                    if result.queued else _("unchanged")))
        else:
            getattr(summary, result.outcome).append(reference)
        if result.queued:
            summary.queued.append(result.work.pk)
            if now:
                try:
                    ingestion.ingest(result.work.pk)
                except errors.StorageUnavailable as exc:
                    summary.failed.append((reference, f"registered but not indexed yet: {exc}"))
    if on_item is not None:
        on_item(len(items), len(items))
    return summary


def run_job(job_id: int) -> str:
    """Import the staged archive of job ``job_id`` for its holder, updating ``done``/``total``
    after each work; the works' ingestion is queued as usual.

    Returns:
        The job's final state ("finished" or "failed"), or "gone" (no such running job).
    """
    job = ImportJob.objects.filter(pk=job_id, state=ImportState.RUNNING).first()
    if job is None:
        return "gone"
    path = import_jobs.staged_file(job)

    def progress(done: int, total: int) -> None:
        ImportJob.objects.filter(pk=job.pk).update(done=done, total=total,
                                                   updated_at=timezone.now())

    try:
        with translation.override(job.language or settings.LANGUAGE_CODE):
            summary = import_path(path, job.holder, progress=False, on_item=progress,
                                  acting_user=job.user)
    except (FileNotFoundError, UploadError) as exc:
        return import_jobs.close(job, ImportState.FAILED, error=str(exc),
                                 error_code=exc.code if isinstance(exc, UploadError) else "missing")
    except Exception as exc:  # never leave the job running: say what broke
        log.exception("import job %s failed", job.pk)
        return import_jobs.close(job, ImportState.FAILED, error=f"{type(exc).__name__}: {exc}",
                                 error_code="internal")
    return import_jobs.close(job, ImportState.FINISHED, summary=asdict(summary))
