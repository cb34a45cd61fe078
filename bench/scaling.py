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
one untimed pass every page is timed ``--passes`` times and its median kept; each page is
matched by the engines of every size and backend in turn (all are kept alive), so that the
machine's load weighs on every size alike and the ratios between sizes are taken in one run.

Backends. ``memory``: MemoryIndex and MemoryWorkStore in this process; at each size the index
is also saved (bytes per window on disk), loaded again (seconds) and the pages are timed on the
loaded index too (``memory-loaded``: the arrays ``python -m fingerprint query`` uses). ``redis``:
RedisIndex on an embedded Redis and MongoWorkStore on an embedded MongoDB
(``lib.runtime.embedded``), both private to the run; each size has its own key prefix and
database, filled one after the other, so the growth of ``INFO used_memory`` while one is
filled is that index's, and MongoDB's ``collStats`` gives the work store's bytes.

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
from collections.abc import Callable, Iterator
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
    """One backend's servers (Redis and MongoDB for ``redis``, none for ``memory``) and an
    engine per index size on them, each filled separately."""

    def __init__(self, name: str, workdir: Path):
        self.name, self.workdir, self.services = name, workdir, []
        if name == "memory":
            return
        import pymongo
        import redis

        from lib.runtime.embedded import start_mongo, start_redis

        self.services.append(start_redis(workdir / "redis", persist=False))
        self.services.append(start_mongo(workdir / "mongo", journal=False))
        self.redis = redis.Redis.from_url(self.services[0].url)
        self.mongo = pymongo.MongoClient(self.services[1].url)

    def engine(self, size: int):
        """A new, empty engine for the index of ``size`` windows: its own MemoryIndex and
        store, or its own key prefix on the Redis and database on the MongoDB."""
        from fingerprint import Engine

        if self.name == "memory":
            from fingerprint.index import MemoryIndex
            from fingerprint.store import MemoryWorkStore

            return Engine(MemoryIndex(), MemoryWorkStore())
        from fingerprint.index import RedisIndex
        from fingerprint.store import MongoWorkStore

        engine = Engine(RedisIndex(self.redis, prefix=f"scaling{size}"),
                        MongoWorkStore(self.mongo[f"bench_scaling_{size}"]))
        engine.index.check()
        return engine

    def used_memory(self) -> int:
        """Redis ``used_memory`` in bytes now (0 for ``memory``)."""
        return self.redis.info("memory")["used_memory"] if self.name == "redis" else 0

    def sizes(self, engine, size: int, windows: int, chars: int, used: int) -> tuple[dict, list]:
        """(figures of the index of ``size`` just filled, [(label, engine)] to time pages on);
        ``used``: the Redis bytes its filling added."""
        if self.name == "redis":
            database = self.mongo[f"bench_scaling_{size}"]
            self.mongo.admin.command("fsync")  # a checkpoint: storageSize is then current
            stats = [database.command("collStats", name) for name in ("works_fp", "works_fp_chunks")]
            works = max(stats[0]["count"], 1)
            bson = sum(s.get("size", 0) for s in stats)
            disk = sum(s.get("storageSize", 0) for s in stats)
            return {"redis_bytes_per_window": used / windows, "redis_bytes_per_char": used / chars,
                    "mongo_bson_bytes_per_work": bson / works,
                    "mongo_storage_bytes_per_work": disk / works,
                    "mongo_bson_bytes_per_char": bson / chars,
                    "mongo_storage_bytes_per_char": disk / chars,
                    }, [("redis", engine)]
        from fingerprint import Engine
        from fingerprint.index import MemoryIndex

        folder = self.workdir / f"saved-{size}"
        start = time.perf_counter()
        engine.index.save(folder)
        save_s = time.perf_counter() - start
        disk = sum(f.stat().st_size for f in folder.iterdir())
        start = time.perf_counter()
        loaded = MemoryIndex.load(folder)
        load_s = time.perf_counter() - start
        return {"disk_bytes_per_window": disk / windows, "save_s": save_s, "load_s": load_s}, [
            ("memory", engine), ("memory-loaded", Engine(loaded, engine.store))]

    def stop(self) -> None:
        """Stop the embedded servers."""
        for service in reversed(self.services):
            service.stop()


def time_pages(engines: list, pages: list[tuple[str | None, str]], passes: int) -> list[dict]:
    """Page times on every engine, interleaved: in each pass every page is matched by each
    engine in turn, starting with a different engine for each page, so that the machine's load
    and the caches weigh on all sizes alike.

    Args:
        engines: Engines to time (one per backend label and index size).
        pages: (expected work id or None, page text).
        passes: timed passes after one untimed one (caches, connections, lazy tables).

    Returns:
        Per engine, in order: ``copy_ms``, ``copy_p90_ms``, ``unrelated_ms``,
        ``unrelated_p90_ms`` (over the pages, each page's median over the passes, in
        milliseconds), ``lookup_ms`` (median over all pages of the index lookup of the page's
        query keys alone, timed the same way) and ``recall`` (share of the copying pages'
        matches that found their work).
    """
    for _, text in pages:
        for engine in engines:
            engine.match(text)
    keys = [engines[0].query_keys(engines[0].letters(text)) for _, text in pages]
    runs = [[[] for _ in pages] for _ in engines]
    looks = [[[] for _ in pages] for _ in engines]
    found = [0] * len(engines)
    for p in range(passes):
        for i, (expected, text) in enumerate(pages):
            # each page and pass starts on another engine: the first after a page change meets the
            # CPU caches as the previous engine left them
            for e in rotated(len(engines), i + p):
                engine = engines[e]
                start = time.perf_counter()
                ids = {match.work_id for match in engine.match(text)}
                runs[e][i].append((time.perf_counter() - start) * 1000)
                found[e] += expected in ids if expected else 0
                lookup = getattr(engine.index, "lookup_revisions", engine.index.lookup)
                start = time.perf_counter()
                lookup(keys[i])
                looks[e][i].append((time.perf_counter() - start) * 1000)
    positives = sum(1 for expected, _ in pages if expected) * passes
    out = []
    for e in range(len(engines)):
        times = [statistics.median(t) for t in runs[e]]
        copies = sorted(t for t, (x, _) in zip(times, pages, strict=True) if x)
        unrelated = sorted(t for t, (x, _) in zip(times, pages, strict=True) if not x)
        out.append({"copy_ms": statistics.median(copies), "copy_p90_ms": _p90(copies),
                    "unrelated_ms": statistics.median(unrelated),
                    "unrelated_p90_ms": _p90(unrelated),
                    "lookup_ms": statistics.median(statistics.median(t) for t in looks[e]),
                    "recall": found[e] / positives if positives else 0.0})
    return out


def rotated(n: int, start: int) -> list[int]:
    """0..n-1 starting at ``start % n`` and wrapping around."""
    return [(start + k) % n for k in range(n)]


def _p90(values: list[float]) -> float:
    """90th percentile (statistics.quantiles, exclusive method) of at least two values."""
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def fill(engine, works: Iterator[Doc], size: int) -> tuple[int, int, int, float]:
    """Add works to ``engine`` until its index holds ``size`` windows.

    Returns:
        (windows, works taken including the few refused as too short, characters indexed,
        seconds of ``add_work``); windows < size when the works ran out.
    """
    windows = chars = taken = 0
    start = time.perf_counter()
    for doc in works:
        taken += 1
        try:
            windows += engine.add_work(doc.id, doc.text)
        except ValueError:  # EmptyTextError: too few letters for the engine to index
            continue
        chars += len(doc.text)
        if windows >= size:
            break
    return windows, taken, chars, time.perf_counter() - start


def build(backend: _Backend, works: Callable[[], Iterator[Doc]], sizes: list[int]
          ) -> tuple[list[dict], list[tuple[str, int, object]]]:
    """Fill one engine per size on ``backend`` (each from the start of ``works()``, so the
    smaller indexes are prefixes of the larger) and measure each index.

    Returns:
        (one dict per size reached: ``windows``, ``works``, ``chars``, ``index_s``,
        ``windows_per_s`` and the backend's size figures (``_Backend.sizes``);
        [(engine label, size, engine)] to time). Sizes the works cannot fill are left out.
    """
    rows, timed = [], []
    for size in sizes:
        engine = backend.engine(size)
        before = backend.used_memory()
        windows, taken, chars, index_s = fill(engine, works(), size)
        if windows < size:
            print(f"[{backend.name}] works exhausted at {windows:,} windows", file=sys.stderr)
            break
        figures, engines = backend.sizes(engine, size, windows, chars,
                                         backend.used_memory() - before)
        rows.append({"size": size, "windows": windows, "works": taken, "chars": chars, "index_s": index_s,
                     "windows_per_s": windows / index_s, **figures, "timings": {}})
        timed += [(label, size, each) for label, each in engines]
        print(f"[{backend.name}] {json.dumps(rows[-1])}", file=sys.stderr)
    return rows, timed


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
    results, timed, backends = {}, [], []
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as workdir:
        try:
            for name in args.backends.split(","):
                backends.append(_Backend(name, Path(workdir) / name))
                results[name], engines = build(backends[-1], lambda: (
                    doc for part in (iter([*sources, *rest]), variants(rest, args.seed))
                    for doc in part), sizes)
                timed += engines
            for (label, size, _), timing in zip(timed, time_pages(
                    [engine for _, _, engine in timed], pages, args.passes), strict=True):
                row = next(r for r in results[label.split("-")[0]] if r["size"] == size)
                row["timings"][label] = timing
        finally:
            for backend in backends:
                backend.stop()
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"scaling-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    path.write_text(json.dumps({"command": " ".join(sys.argv), "pages": len(pages),
                                "results": results}, indent=1))
    print(f"JSON: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
