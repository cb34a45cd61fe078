"""The engine at publisher scale: index memory and query time from 10k to 10M windows.

Run from the repository root::

    .venv/bin/python -m bench.scaling                     # 10k, 100k, 1M, 10M windows; both
    .venv/bin/python -m bench.scaling --sizes 10000,100000 --backends memory --pages 20

Works. The engine indexes novel chapters (all of at least 200 characters, shuffled with the
seed) until its index holds each size in turn (windows, as counted by ``Engine.add_work``).
``../shared/data/novels_dev.jsonl.gz`` gives about 2.3M windows; beyond that come generated
*variants*: round r cuts the sentences of every chapter not used for a page, shuffled with seed
``seed + r``, into new works of the original chapters' lengths. Their text is real sentences
in an order never seen, so their windows are new (a window spans 32 letters, more than most
sentences) and they match no page: the index grows, the pages' answers do not change.

Pages. Half are copies of chapters indexed before the first size, wrapped in a real portal's
header/footer (so the expected match exists at every size), half are chapters never indexed
(nor their sentences), wrapped the same way. No indexed work or variant shares a passage with
any page's chapter (``unrelated_to``), so each page's answer is the same at every size. After
one untimed pass every page is timed ``--passes`` times and its median kept.

Backends. ``memory``: MemoryIndex and MemoryWorkStore in this process; at each size the index
is also saved (bytes per window on disk), loaded again (seconds) and the pages are timed on the
loaded index too (``memory-loaded``: the arrays ``python -m fingerprint query`` uses). ``redis``:
RedisIndex on an embedded Redis and MongoWorkStore on an embedded MongoDB
(``tracker.embedded``), both private to the run, so ``INFO used_memory`` (minus that of the
empty server) is the index's, and MongoDB's ``collStats`` gives the work store's bytes.

Per size: windows, works, characters; index build time and windows per second; Redis
used_memory per window and per character; disk bytes per window of the saved MemoryIndex and
its load time; MongoDB bytes per work and per character (BSON size and compressed storage);
and, per backend, the median and 90th percentile of the page times (milliseconds) for copying
and for unrelated pages, and of the index lookup alone (the page's query keys, all pages; each
page's median over the passes), with the ratio of each median to the smallest size's. Results go to
standard output (Markdown) and ``bench/results/scaling-<time>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/scaling.py``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import (
    CHAPTER_CHARS,
    DATA_DIR,
    NEGATIVE_OVERLAP,
    Doc,
    _OverlapGuard,
    load_chapters,
)
from bench.edits import EditKit, header_footer, sentences

RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_SIZES = "10000,100000,1000000,10000000"
SCALING_CHARS = (200, 200_000)  # all chapters
MAX_ROUNDS = 20  # variant rounds at most (each adds about 2.2M windows)


def unrelated_to(pages: list[Doc], chapters: list[Doc]) -> list[Doc]:
    """The chapters (in order) that are not pages and share no 40-character passage and at
    most ``NEGATIVE_OVERLAP`` of their 12-grams with any page's chapter (``bench.corpus``'s
    rules). Upstream some novels repeat other novels' chapters (the data README), so without
    this an "unrelated" page became a copying page once its twin was indexed at a larger size,
    and a copying page gained a second true match: growth of the answer, not of the index."""
    guard = _OverlapGuard()
    for doc in pages:
        guard.accept(doc.text)
    taken = {doc.id for doc in pages}
    return [doc for doc in chapters if doc.id not in taken and not guard.shares_passage(doc.text)
            and guard.overlap(doc.text) <= NEGATIVE_OVERLAP]


def variants(chapters: list[Doc], seed: int) -> Iterator[Doc]:
    """Generated works after the real ones (module docstring): rounds 1, 2, ... of the
    chapters' sentences shuffled with ``seed + round``, cut at the chapters' lengths.

    Args:
        chapters: the chapters whose sentences and lengths are used (not the pages').
        seed: base of each round's seed.

    Yields:
        Docs with ids ``variant-<round>-<n>``, about as many characters per round as the
        chapters have together.
    """
    pool = [s for doc in chapters for s in sentences(doc.text)]
    lengths = [len(doc.text) for doc in chapters]
    for rnd in range(1, MAX_ROUNDS + 1):
        rng = random.Random(seed + rnd)
        order = pool[:]
        rng.shuffle(order)
        at = 0
        for n, length in enumerate(lengths):
            parts, size = [], 0
            while size < length and at < len(order):
                parts.append(order[at])
                size += len(order[at])
                at += 1
            if not parts:
                break
            yield Doc(f"variant-{rnd}-{n}", "".join(parts), "variant")


class _Backend:
    """One engine under growth, with the servers and measurements its backend needs."""

    def __init__(self, name: str, workdir: Path):
        from fingerprint import Engine

        self.name, self.workdir, self.services = name, workdir, []
        if name == "memory":
            from fingerprint.index import MemoryIndex
            from fingerprint.store import MemoryWorkStore

            self.engine = Engine(MemoryIndex(), MemoryWorkStore())
            return
        import pymongo
        import redis

        from fingerprint.index import RedisIndex
        from fingerprint.store import MongoWorkStore
        from tracker.embedded import start_mongo, start_redis

        self.services.append(start_redis(workdir / "redis", persist=False))
        self.services.append(start_mongo(workdir / "mongo", journal=False))
        self.redis = redis.Redis.from_url(self.services[0].url)
        self.mongo = pymongo.MongoClient(self.services[1].url)["bench_scaling"]
        self.engine = Engine(RedisIndex(self.redis, prefix="scaling"), MongoWorkStore(self.mongo))
        self.engine.index.check()
        self.empty_memory = self.redis.info("memory")["used_memory"]

    def sizes(self, windows: int, chars: int) -> tuple[dict, list]:
        """(figures of the index's size at this point, [(label, engine)] to time pages on)."""
        if self.name == "redis":
            used = self.redis.info("memory")["used_memory"] - self.empty_memory
            self.mongo.client.admin.command("fsync")  # a checkpoint: storageSize is then current
            stats = [self.mongo.command("collStats", name)
                     for name in ("works_fp", "works_fp_chunks")]
            works = max(stats[0]["count"], 1)
            bson = sum(s.get("size", 0) for s in stats)
            disk = sum(s.get("storageSize", 0) for s in stats)
            return {"redis_bytes_per_window": used / windows, "redis_bytes_per_char": used / chars,
                    "mongo_bson_bytes_per_work": bson / works,
                    "mongo_storage_bytes_per_work": disk / works,
                    "mongo_bson_bytes_per_char": bson / chars,
                    "mongo_storage_bytes_per_char": disk / chars,
                    }, [("redis", self.engine)]
        from fingerprint import Engine
        from fingerprint.index import MemoryIndex

        folder = self.workdir / "saved"
        start = time.perf_counter()
        self.engine.index.save(folder)
        save_s = time.perf_counter() - start
        disk = sum(f.stat().st_size for f in folder.iterdir())
        start = time.perf_counter()
        loaded = MemoryIndex.load(folder)
        load_s = time.perf_counter() - start
        return {"disk_bytes_per_window": disk / windows, "save_s": save_s, "load_s": load_s}, [
            ("memory", self.engine), ("memory-loaded", Engine(loaded, self.engine.store))]

    def stop(self) -> None:
        """Stop the embedded servers."""
        for service in reversed(self.services):
            service.stop()


def _time_pages(engine, pages: list[tuple[str | None, str]], passes: int) -> dict:
    """Median over ``passes`` of each page's match time; the figures of module docstring."""
    for _, text in pages:  # warm-up pass: caches, connections, lazy tables
        engine.match(text)
    runs: list[list[float]] = [[] for _ in pages]
    found = 0
    for _ in range(passes):
        for i, (expected, text) in enumerate(pages):
            start = time.perf_counter()
            ids = {match.work_id for match in engine.match(text)}
            runs[i].append((time.perf_counter() - start) * 1000)
            found += expected in ids if expected else 0
    lookups = []  # the index's share: the lookup of the page's query keys alone
    for _, text in pages:
        keys = engine.query_keys(engine.letters(text))
        lookup = getattr(engine.index, "lookup_revisions", engine.index.lookup)
        spent = []
        for _ in range(passes):
            start = time.perf_counter()
            lookup(keys)
            spent.append((time.perf_counter() - start) * 1000)
        lookups.append(statistics.median(spent))
    times = [statistics.median(t) for t in runs]
    copies = sorted(t for t, (e, _) in zip(times, pages, strict=True) if e)
    unrelated = sorted(t for t, (e, _) in zip(times, pages, strict=True) if not e)
    positives = len(copies) * passes
    return {"copy_ms": statistics.median(copies), "copy_p90_ms": _p90(copies),
            "unrelated_ms": statistics.median(unrelated), "unrelated_p90_ms": _p90(unrelated),
            "lookup_ms": statistics.median(lookups),
            "recall": found / positives if positives else 0.0}


def _p90(values: list[float]) -> float:
    """90th percentile (statistics.quantiles, exclusive method) of at least two values."""
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def grow(backend: str, works: Iterator[Doc], pages: list[tuple[str | None, str]],
         sizes: list[int], workdir: Path, passes: int = 3) -> list[dict]:
    """Fill one engine up to each size, measure its index there and time the pages.

    Args:
        backend: ``"memory"`` or ``"redis"``.
        works: works in indexing order (the copying pages' sources come first).
        pages: (expected work id or None, page text).
        sizes: index sizes in windows, ascending.
        workdir: folder for the embedded servers' files and the saved index.
        passes: timed passes over the pages; a page's time is its median over the passes.

    Returns:
        One dict per size reached: ``windows``, ``works`` (taken, including the few refused
        as too short), ``chars`` indexed, ``index_s`` (seconds of ``add_work`` since the
        previous size) and ``windows_per_s``, the backend's size figures (``_Backend.sizes``),
        and ``timings``: {engine label: the figures of ``_time_pages``}. Sizes the works cannot
        fill are left out.
    """
    state = _Backend(backend, workdir)
    rows = []
    try:
        windows = chars = added = 0
        last = 0
        for size in sizes:
            start = time.perf_counter()
            for doc in works:
                added += 1
                try:
                    windows += state.engine.add_work(doc.id, doc.text)
                except ValueError:  # EmptyTextError: too few letters for the engine to index
                    continue
                chars += len(doc.text)
                if windows >= size:
                    break
            index_s = time.perf_counter() - start
            if windows < size:
                print(f"[{backend}] works exhausted at {windows:,} windows", file=sys.stderr)
                break
            figures, engines = state.sizes(windows, chars)
            row = {"windows": windows, "works": added, "chars": chars, "index_s": index_s,
                   "windows_per_s": (windows - last) / index_s, **figures, "timings": {}}
            last = windows
            for label, engine in engines:
                row["timings"][label] = _time_pages(engine, pages, passes)
            rows.append(row)
            print(f"[{backend}] {json.dumps(row)}", file=sys.stderr)
    finally:
        state.stop()
    return rows


def table(results: dict[str, list[dict]]) -> str:
    """Markdown: per size, the index figures, then per engine the copy and unrelated page
    medians (ratio to the smallest size) and 90th percentiles."""
    lines = []
    for backend, rows in results.items():
        if not rows:
            continue
        labels = list(rows[0]["timings"])
        size_cols = (["Redis B/window", "Redis B/char", "MongoDB B/work (BSON / disk)"]
                     if backend == "redis" else ["disk B/window", "save s", "load s"])
        head = ["windows", "works", "build windows/s", *size_cols]
        for label in labels:
            head += [f"{label} copy ms (×)", "p90", f"{label} unrelated ms (×)", "p90",
                     f"{label} lookup ms (×)"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        first = rows[0]["timings"]
        for row in rows:
            if backend == "redis":
                sized = [f"{row['redis_bytes_per_window']:.1f}",
                         f"{row['redis_bytes_per_char']:.2f}",
                         f"{row['mongo_bson_bytes_per_work']:,.0f} / "
                         f"{row['mongo_storage_bytes_per_work']:,.0f}"]
            else:
                sized = [f"{row['disk_bytes_per_window']:.2f}", f"{row['save_s']:.1f}",
                         f"{row['load_s']:.2f}"]
            cells = [f"{row['windows']:,}", f"{row['works']:,}", f"{row['windows_per_s']:,.0f}",
                     *sized]
            for label in labels:
                t, t0 = row["timings"][label], first[label]
                cells += [f"{t['copy_ms']:.2f} ({t['copy_ms'] / t0['copy_ms']:.2f})",
                          f"{t['copy_p90_ms']:.2f}",
                          f"{t['unrelated_ms']:.2f} ({t['unrelated_ms'] / t0['unrelated_ms']:.2f})",
                          f"{t['unrelated_p90_ms']:.2f}",
                          f"{t['lookup_ms']:.2f} ({t['lookup_ms'] / t0['lookup_ms']:.2f})"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the scaling benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="index sizes in windows")
    parser.add_argument("--backends", default="memory,redis")
    parser.add_argument("--pages", type=int, default=40,
                        help="pages timed at each size (half copies, half unrelated)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    chapters = load_chapters(args.data, SCALING_CHARS)
    random.Random(args.seed).shuffle(chapters)
    half = max(1, args.pages // 2)
    low, high = CHAPTER_CHARS  # the pages are ordinary chapters, as in bench.run
    typical = [doc for doc in chapters if low <= len(doc.text) <= high][:2 * half]
    unindexed, sources = typical[:half], typical[half:]
    rest = unrelated_to(typical, chapters)
    kit = EditKit.build([doc.text for doc in rest[:500]], unindexed, args.data)
    pages = [(doc.id, header_footer(doc.text, random.Random(f"{args.seed}:{doc.id}"), kit))
             for doc in sources]
    pages += [(None, header_footer(doc.text, random.Random(f"{args.seed}:{doc.id}"), kit))
              for doc in unindexed]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as workdir:
        for backend in args.backends.split(","):
            works = iter([*sources, *rest])
            stream = (doc for part in (works, variants(rest, args.seed)) for doc in part)
            results[backend] = grow(backend, stream, pages, sizes, Path(workdir) / backend,
                                    args.passes)
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"scaling-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    path.write_text(json.dumps({"command": " ".join(sys.argv), "pages": len(pages),
                                "results": results}, indent=1))
    print(f"JSON: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
