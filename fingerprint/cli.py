"""Command line: index works and query pages from JSON Lines files.

Usage::

    python -m fingerprint index --db DIR FILE            # works -> index + work store in DIR
    python -m fingerprint query --db DIR FILE            # pages -> one JSON line per match
    python -m fingerprint index --redis URL --mongo URL FILE   # the platform's servers

FILE holds one JSON object per line, ``{"id": str, "text": str}`` (other fields are ignored;
an integer id is taken as its decimal string), UTF-8, optionally gzip-compressed (detected by
its magic bytes, whatever the file name). ``-`` reads standard input.

Backends: ``--db DIR`` keeps a MemoryIndex in ``DIR/index``, the rewrite stage's keys in a
second one in ``DIR/rewrite`` and a MemoryWorkStore in ``DIR/works`` (created if missing, saved
after indexing; a lock file serializes writers).
``--redis URL`` (RedisIndex, key prefix ``--prefix``) and ``--mongo URL`` (MongoWorkStore,
the URL's database or ``fingerprint``, collection ``--collection``) go together: an index
without its work store cannot verify matches, and a store without its index finds nothing.

Output: ``index`` prints one summary line to standard output; ``query`` prints one JSON line per
(page, work) match: ``{"page_id", "work_id", "score", "containment_page", "containment_work",
"passages": [{"page_start", "page_end", "work_start", "work_end"}], "same_text", "kind"}`` with
offsets in characters (Python str indices, end exclusive) of the texts as given, ``kind`` "copy"
or "rewritten" (``Match.kind``) and ``same_text`` the
ids of the works matched in the page whose text is the same (``Match.same_text``; for each such
group of two or more, one line "page ID: the same text is registered as N works: IDS" goes to
standard error), and its summary to standard error. ``query --per-page`` prints instead one
line per input line, flushed as soon as that page is matched, ``{"page_id", "matches": [...]}``
(the match objects above; ``[]`` when none) or ``{"page_id": null, "line", "error"}`` for a
line that was skipped, so that a caller can keep one process and feed it pages on standard
input one at a time. Progress and messages go to standard error (a progress bar for inputs of
1 MiB or more, unless ``--no-progress``).

Bad input never stops the run: a line that is not UTF-8 or not JSON, a record without a str
``id`` or ``text``, an empty text, a text without letters or (``index``) a work text with a lone
surrogate escape, which no store can encode, is skipped with a message naming its line (at
most :data:`MAX_MESSAGES` messages, then a count). A corrupt gzip stream stops the reading at
that point; what was read before is kept.

Exit status: 0 when at least one record was processed (indexed, or queried whether it matched
or not), even if others were skipped; 1 when none was (missing or unreadable file, empty input,
every record bad, an index of another FINGERPRINT_VERSION in Redis); 2 for usage errors;
3 when Redis or MongoDB cannot be reached (at start or during the run; with ``--db``, what was
indexed before is saved); 130 on Ctrl-C (likewise saved).
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import io
import json
import os
import re
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import cast

import orjson

from fingerprint import Engine, EngineConfig
from fingerprint.index import MemoryIndex
from fingerprint.index.base import DEFAULT_MAX_DF, IndexVersionError
from fingerprint.store import MemoryWorkStore

MAX_MESSAGES = 100
PROGRESS_BYTES = 1 << 20  # inputs at least this large (bytes on disk) get a progress bar
EXIT_OK, EXIT_NOTHING, EXIT_USAGE, EXIT_BACKEND, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class BackendError(Exception):
    """A backend cannot be used (exit 3 when unreachable, 1 otherwise); message for the user."""

    def __init__(self, message: str, code: int = EXIT_BACKEND):
        super().__init__(message)
        self.code = code


@dataclass
class Record:
    """One usable input record: its line number (1-based), id and text."""

    line: int
    id: str
    text: str


def say(message: str) -> None:
    """Print a line to standard error, above the progress bar when one is shown (tqdm is
    imported only for a bar: it costs the command a third of its start-up)."""
    if "tqdm" in sys.modules:
        sys.modules["tqdm"].tqdm.write(message, file=sys.stderr)
    else:
        print(message, file=sys.stderr)


class Report:
    """Counts skipped records by reason and prints their messages to standard error.

    ``on_skip``: when set, also called as ``on_skip(line, message)`` for every skipped record
    (``query --per-page`` answers each input line, a skipped one too).
    """

    def __init__(self, source: str):
        self.source = source
        self.skipped: Counter[str] = Counter()
        self.messages = 0
        self.on_skip: Callable[[int | None, str], None] | None = None

    def skip(self, line: int | None, reason: str, detail: str = "") -> None:
        """Count a skipped record under ``reason`` and print ``FILE:LINE: reason: detail``."""
        self.skipped[reason] += 1
        message = f"{reason}{': ' + detail if detail else ''}"
        self.warn(line, message)
        if self.on_skip is not None:
            self.on_skip(line, message)

    def warn(self, line: int | None, message: str) -> None:
        """Print ``FILE:LINE: message`` to standard error (the first MAX_MESSAGES only)."""
        self.messages += 1
        if self.messages <= MAX_MESSAGES:
            where = f"{self.source}:{line}" if line else self.source
            say(f"{where}: {message}")

    def summary(self) -> str:
        """``skipped N (a reason, b reason)`` or ``skipped 0``."""
        total = sum(self.skipped.values())
        if not total:
            return "skipped 0"
        reasons = ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())
        return f"skipped {total} ({reasons})"


def read_records(path: str, report: Report, progress: bool) -> Iterator[Record]:
    """Yield the usable records of a JSON Lines file, reporting the others.

    Args:
        path: file name, or ``-`` for standard input; gzip detected by magic bytes.
        report: receives the skipped lines.
        progress: show a progress bar (bytes on disk) when the input is large enough.

    Raises:
        OSError: the file cannot be opened.
    """
    with ExitStack() as stack:
        # typeshed types stdin.buffer as BinaryIO; it is a BufferedReader (has peek)
        raw = (cast(io.BufferedReader, sys.stdin.buffer) if path == "-"
               else stack.enter_context(open(path, "rb")))
        size = os.fstat(raw.fileno()).st_size if path != "-" else 0
        stream: io.BufferedIOBase = raw
        if raw.peek(2)[:2] == b"\x1f\x8b":
            stream = stack.enter_context(gzip.GzipFile(fileobj=raw, mode="rb"))
        bar = None
        if progress and size >= PROGRESS_BYTES:
            from tqdm import tqdm  # late: 20 ms of every run's start, for large inputs only

            bar = stack.enter_context(tqdm(total=size, unit="B", unit_scale=True,
                                           file=sys.stderr, mininterval=1.0,
                                           desc=Path(path).name))
        number = 0
        try:
            for number, line in enumerate(stream, 1):  # noqa: B007 (number used after the loop)
                if bar is not None:
                    bar.update(raw.tell() - bar.n)
                record = _parse(line, number, report)
                if record is not None:
                    yield record
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            report.skip(number + 1, "corrupt input", f"{exc}; the rest of the file is unread")


#: Unicode's categories Cc (control characters) and Cs (surrogates), exactly
_CONTROL_OR_SURROGATE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _parse(line: bytes, number: int, report: Report) -> Record | None:
    if not line.strip():
        return None
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        obj = _parse_strictly(line, number, report)
        if obj is _SKIPPED:
            return None
    if not isinstance(obj, dict):
        report.skip(number, "not a JSON object", f"got {type(obj).__name__}")
        return None
    work_id = obj.get("id")
    if isinstance(work_id, int) and not isinstance(work_id, bool):
        work_id = str(work_id)
    if not isinstance(work_id, str) or not work_id:
        report.skip(number, "missing id", 'needs "id": a non-empty string')
        return None
    if _CONTROL_OR_SURROGATE.search(work_id):
        report.skip(number, "bad id", f"{work_id!r} has control or surrogate characters")
        return None
    body = obj.get("text")
    if not isinstance(body, str):
        report.skip(number, "missing text", f'record {work_id!r} needs "text": a string')
        return None
    if not body or body.isspace():  # as ``not body.strip()``, without copying the text
        report.skip(number, "empty text", f"record {work_id!r}")
        return None
    return Record(number, work_id, body)


_SKIPPED = object()


def _parse_strictly(line: bytes, number: int, report: Report):
    """The JSON value of a line that orjson refused, as the json module reads it (a BOM on the
    first line, a lone surrogate escape, NaN, integers past 64 bits), or ``_SKIPPED`` after
    reporting why the line is unusable (not UTF-8, malformed JSON)."""
    try:
        text = line.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        report.skip(number, "not UTF-8", f"byte 0x{line[exc.start]:02x} at byte {exc.start}")
        return _SKIPPED
    try:
        return json.loads(text)
    except ValueError as exc:
        report.skip(number, "malformed JSON", str(exc))
        return _SKIPPED


# --- backends -------------------------------------------------------------------------------

@contextmanager
def open_backends(args: argparse.Namespace, writing: bool):
    """Yield ``(index, rewrite_index, store, save, stale)`` for the chosen backend:
    ``rewrite_index`` holds the rewrite stage's keys (``DIR/rewrite``, or the prefix + "-rw"
    in Redis, as on the platform); ``save()`` persists a --db; ``stale`` is True when a --db
    index of another FINGERPRINT_VERSION, or a --db without rewrite keys, was dropped and must
    be rebuilt from the work store.

    Raises:
        BackendError: a server is unreachable, --db holds no index (query), or the index
            holds another FINGERPRINT_VERSION (Redis).
    """
    if args.db:
        yield from _open_db(Path(args.db), args.max_df, writing)
        return
    # Imported here for start-up cost: the redis and pymongo clients load only without --db.
    import pymongo
    import redis
    from pymongo.errors import PyMongoError
    from redis.exceptions import RedisError

    from fingerprint.index import RedisIndex
    from fingerprint.store import MongoWorkStore

    try:
        client = redis.Redis.from_url(args.redis, socket_connect_timeout=5, socket_timeout=60)
        client.ping()
    except (RedisError, ValueError) as exc:
        raise BackendError(f"cannot reach Redis at {args.redis}: {exc}") from exc
    try:
        mongo: pymongo.MongoClient[dict] = pymongo.MongoClient(
            args.mongo, serverSelectionTimeoutMS=5000)
        mongo.admin.command("ping")
    except (PyMongoError, ValueError) as exc:
        raise BackendError(f"cannot reach MongoDB at {args.mongo}: {exc}") from exc
    try:
        index = RedisIndex(client, prefix=args.prefix, max_df=args.max_df)
        rewrite_index = RedisIndex(client, prefix=f"{args.prefix}-rw", max_df=args.max_df)
        for each in (index, rewrite_index):
            each.lookup([])  # checks the index's FINGERPRINT_VERSION now (IndexVersionError)
        store = MongoWorkStore(mongo.get_default_database("fingerprint"), args.collection)
        yield index, rewrite_index, store, lambda: None, False
    finally:
        client.close()
        mongo.close()


def _open_db(path: Path, max_df: int, writing: bool):
    if not writing and not (path / "index" / "manifest.json").is_file():
        raise BackendError(f"no fingerprint index in {path}: run "
                           f"`python -m fingerprint index --db {path} FILE` first", EXIT_NOTHING)
    path.mkdir(parents=True, exist_ok=True)
    with open(path / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if writing else fcntl.LOCK_SH)
        store = MemoryWorkStore.load(path / "works") if (path / "works").is_dir() \
            else MemoryWorkStore()
        try:
            index, rewrite_index = (MemoryIndex.load(path / name, max_df=max_df)
                                    if (path / name).is_dir() else MemoryIndex(max_df)
                                    for name in ("index", "rewrite"))
            stale = (path / "index").is_dir() and not (path / "rewrite").is_dir()
            if stale:
                print(f"{path} holds no rewrite keys (indexed by an older version): rebuilding "
                      f"the index from {store.count()} stored works"
                      + ("" if writing else " for this run (`index --db` keeps them)"),
                      file=sys.stderr)
        except IndexVersionError as exc:
            print(f"{exc}; rebuilding it from {store.count()} stored works", file=sys.stderr)
            index, rewrite_index, stale = MemoryIndex(max_df), MemoryIndex(max_df), True

        def save():
            store.save(path / "works")
            index.save(path / "index")
            rewrite_index.save(path / "rewrite")

        yield index, rewrite_index, store, save, stale


# --- commands -------------------------------------------------------------------------------

def run_index(engine, records: Iterator[Record], report: Report) -> tuple[str, int]:
    """Add every record as a work; returns (summary line, works indexed)."""
    indexed = replaced = windows = 0
    for record in records:
        existed = engine.has_work(record.id)
        added = _guarded(partial(engine.add_work, record.id, record.text), record, report)
        if added is not None:
            windows += added
            indexed += 1
            replaced += existed
    return f"indexed {indexed} works ({replaced} replaced), {report.summary()}, " \
           f"{windows} windows", indexed


def run_query(engine, records: Iterator[Record], report: Report, per_page: bool = False
              ) -> tuple[str, int]:
    """Match every record as a page, printing one JSON line per match, or with ``per_page``
    one line per input line (flushed at once: ``{"page_id", "matches": [...]}``, or
    ``{"page_id", "line", "error"}`` for a skipped one); returns (summary line, pages
    queried)."""
    pages = matched = matches = 0
    out = sys.stdout.buffer  # JSON Lines as UTF-8 bytes (orjson: a tenth of json.dumps' time)
    if per_page:
        def answer_skip(line: int | None, message: str) -> None:
            out.write(_json_line({"page_id": None, "line": line, "error": message}))
            out.flush()
        report.on_skip = answer_skip
    for record in records:
        found = _guarded(partial(engine.match, record.text), record, report)
        if found is None:
            continue
        pages += 1
        matched += bool(found)
        matches += len(found)
        if per_page:
            out.write(_json_line({"page_id": record.id,
                                  "matches": [_match_line(record.id, m) for m in found]}))
            out.flush()
        else:
            for match in found:
                out.write(_json_line(_match_line(record.id, match)))
        for group in sorted({tuple(m.same_text) for m in found if len(m.same_text) > 1}):
            say(f"page {record.id!r}: the same text is registered as {len(group)} works: "
                f"{', '.join(group)}")
    return f"queried {pages} pages, {matched} with matches, {matches} matches, " \
           f"{report.summary()}", pages


def _guarded(call, record: Record, report: Report):
    """``call()`` (an add_work or match of ``record``), or None after reporting its failure.

    ValueError (EmptyTextError: no letters, or a text the engine refuses) and any other error
    of one record skip that record; connection errors propagate (the backend is gone).
    """
    try:
        return call()
    except (ConnectionError, IndexVersionError):  # the backend, not the record: stop
        raise
    except ValueError as exc:
        report.skip(record.line, "rejected text", f"record {record.id!r}: {exc}")
    except Exception as exc:  # noqa: BLE001 (one bad record must not stop the batch)
        report.skip(record.line, "failed", f"record {record.id!r}: {type(exc).__name__}: {exc}")
    return None


def _json_line(obj) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)


def _match_line(page_id: str, match) -> dict:
    return {  # the engine rounds the scores (4 decimals)
        "page_id": page_id,
        "work_id": match.work_id,
        "score": match.score,
        "containment_page": match.containment_page,
        "containment_work": match.containment_work,
        # Passage dataclasses: orjson writes their four offsets, in field order
        "passages": match.passages,
        "same_text": match.same_text,
        "kind": match.kind,
    }


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fingerprint``."""
    parser = argparse.ArgumentParser(
        prog="python -m fingerprint",
        description="Chinese near-duplicate detection with pinyin window fingerprints.",
        epilog="Exit status: 0 something processed, 1 nothing processed, 2 usage, "
               "3 Redis/MongoDB unreachable.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("index", "add works (replacing same ids) to the index"),
                       ("query", "print the indexed works each page copies, as JSON Lines")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("file", metavar="FILE",
                         help='JSON Lines, one {"id": str, "text": str} per line; gzip ok; - = stdin')
        sub.add_argument("--db", metavar="DIR", help="index and work store in this directory")
        sub.add_argument("--redis", metavar="URL", help="Redis index, e.g. redis://host:6379/0")
        sub.add_argument("--mongo", metavar="URL",
                         help="MongoDB work store, e.g. mongodb://host:27017/fingerprint")
        sub.add_argument("--prefix", default="fp", help="Redis key prefix (default fp)")
        sub.add_argument("--collection", default="works_fp",
                         help="MongoDB collection (default works_fp)")
        sub.add_argument("--max-df", type=int, default=DEFAULT_MAX_DF, metavar="N",
                         help=f"stop-list: ignore fingerprints in more than N works "
                              f"(default {DEFAULT_MAX_DF})")
        sub.add_argument("--no-progress", action="store_true", help="no progress bar")
        if name == "query":
            sub.add_argument("--per-page", action="store_true",
                             help="one JSON line per input line, written as soon as the page "
                                  "is matched (a caller can keep one process and feed it pages)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db and (args.redis or args.mongo):
        parser.error("use either --db DIR or --redis URL --mongo URL, not both")
    if not args.db and not (args.redis and args.mongo):
        parser.error("give --db DIR, or both --redis URL and --mongo URL")
    if args.max_df < 1:
        parser.error("--max-df must be at least 1")
    writing = args.command == "index"
    if args.file != "-" and not os.path.isfile(args.file):
        print(f"error: {args.file}: no such file", file=sys.stderr)
        return EXIT_NOTHING

    report = Report("<stdin>" if args.file == "-" else args.file)
    started = time.perf_counter()
    summary, done, code = "", 0, EXIT_OK
    try:
        with open_backends(args, writing) as (index, rewrite_index, store, save, stale):
            engine = Engine(index, store, config=EngineConfig(), rewrite_index=rewrite_index)
            if stale:
                engine.rebuild_index()
            records = read_records(args.file, report, progress=not args.no_progress)
            try:
                summary, done = run_index(engine, records, report) if writing \
                    else run_query(engine, records, report, args.per_page)
            except KeyboardInterrupt:
                summary, code = "interrupted", EXIT_INTERRUPTED
            except ConnectionError as exc:  # IndexUnavailableError, StoreUnavailableError
                summary, code = f"stopped: {exc}", EXIT_BACKEND
            finally:
                if writing:
                    save()
    except BackendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except ConnectionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BACKEND
    except (IndexVersionError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    print(f"{summary}, {time.perf_counter() - started:.2f} s",
          file=sys.stdout if writing else sys.stderr)
    if code == EXIT_OK and not done:
        if not report.messages:
            print(f"error: {args.file}: no records", file=sys.stderr)
        return EXIT_NOTHING
    return code
