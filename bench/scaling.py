"""How the engine's query time grows with its index, in memory and on Redis.

Run from the repository root::

    .venv/bin/python -m bench.scaling                          # 10k ... 1M windows, both backends
    .venv/bin/python -m bench.scaling --sizes 10000,100000 --backends memory --pages 40

The engine indexes novel chapters (all of at least 200 characters, shuffled with the seed) until
its index holds each size in turn (windows, as counted by ``Engine.add_work``). At each size it
answers the same pages: half are copies of works indexed before the first size, wrapped in a real
portal's header/footer (so the expected match exists at every size), half are chapters never
indexed, wrapped the same way. After one untimed pass every page is timed ``--passes`` times and
its median kept; the whole growth is done ``--repeat`` times from an empty index and each figure
is the median over those runs (the machine is shared and noisy). The table gives, for the
copying pages and for the unrelated ones apart, the median over the pages (milliseconds) and its
ratio to the same figure at the smallest size. The Redis backend is the platform's: ``RedisIndex`` on an embedded Redis and
``MongoWorkStore`` on an embedded MongoDB (``tracker.embedded``), both stopped at the end.
Results go to standard output (Markdown) and to ``bench/results/scaling-<time>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/scaling.py``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import CHAPTER_CHARS, DATA_DIR, Doc, load_chapters
from bench.edits import EditKit, header_footer

RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_SIZES = "10000,30000,100000,300000,1000000"
SCALING_CHARS = (200, 200_000)  # all chapters: 1M windows took ~28M of the 42M characters


def _engine(backend: str, workdir: Path, services: list):
    from fingerprint import Engine

    if backend == "memory":
        from fingerprint.index import MemoryIndex
        from fingerprint.store import MemoryWorkStore

        return Engine(MemoryIndex(), MemoryWorkStore())
    import pymongo
    import redis

    from fingerprint.index import RedisIndex
    from fingerprint.store import MongoWorkStore
    from tracker.embedded import start_mongo, start_redis

    services.append(start_redis(workdir / "redis", persist=False))
    services.append(start_mongo(workdir / "mongo", journal=False))
    client = redis.Redis.from_url(services[-2].url)
    return Engine(RedisIndex(client, prefix="scaling"),
                  MongoWorkStore(pymongo.MongoClient(services[-1].url)["bench_scaling"]))


def _pages(engine, pages: list[tuple[str | None, str]], passes: int) -> tuple[list[float], float]:
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
    positives = sum(1 for expected, _ in pages if expected) * passes
    return [statistics.median(times) for times in runs], found / positives if positives else 0.0


def grow(backend: str, works: list[Doc], pages: list[tuple[str | None, str]],
         sizes: list[int], workdir: Path, passes: int = 3) -> list[dict]:
    """Fill one engine up to each size and time the pages there.

    Args:
        backend: ``"memory"`` or ``"redis"``.
        works: chapters in indexing order (the positives' sources come first).
        pages: (expected work id or None, page text).
        sizes: index sizes in windows, ascending.
        workdir: folder for the embedded servers' files.
        passes: timed passes over the pages; a page's time is its median over the passes.

    Returns:
        One dict per size reached: ``windows``, ``works`` (taken, including the few refused
        as too short), ``chars`` indexed; ``copy_ms`` and
        ``unrelated_ms``, the median time (milliseconds) of the copying and of the unrelated
        pages (kept apart: an unrelated page has few candidates and returns much sooner, so a
        median over the mix would jump between the two groups); ``mean_ms`` over all pages;
        ``recall`` (share of the copying pages whose work was returned); ``index_s`` (seconds
        spent indexing since the previous size). Sizes the corpus cannot fill are left out.
    """
    services: list = []
    rows = []
    try:
        engine = _engine(backend, workdir, services)
        windows = chars = added = 0
        for size in sizes:
            start = time.perf_counter()
            while windows < size and added < len(works):
                doc = works[added]
                added += 1
                try:
                    windows += engine.add_work(doc.id, doc.text)
                except ValueError:  # EmptyTextError: too few letters for the engine to index
                    continue
                chars += len(doc.text)
            index_s = time.perf_counter() - start
            if windows < size:
                print(f"[{backend}] corpus exhausted at {windows:,} windows", file=sys.stderr)
                break
            times, recall = _pages(engine, pages, passes)
            copies = [t for t, (expected, _) in zip(times, pages, strict=True) if expected]
            unrelated = [t for t, (expected, _) in zip(times, pages, strict=True) if not expected]
            rows.append({"windows": windows, "works": added, "chars": chars,
                         "copy_ms": statistics.median(copies),
                         "unrelated_ms": statistics.median(unrelated),
                         "mean_ms": statistics.fmean(times), "recall": recall,
                         "index_s": index_s})
            print(f"[{backend}] {windows:,} windows: copies {rows[-1]['copy_ms']:.2f} ms, "
                  f"unrelated {rows[-1]['unrelated_ms']:.2f} ms, recall {recall:.2f}, "
                  f"indexed in {index_s:.1f} s", file=sys.stderr)
    finally:
        for service in reversed(services):
            service.stop()
    return rows


def combine(runs: list[list[dict]]) -> list[dict]:
    """Merge repeated growths of one backend: per size, the median of each timing over the runs.

    Args:
        runs: the outputs of ``grow`` for the same backend, pages and sizes.

    Returns:
        One dict per size reached by every run: the first run's counts, ``copy_ms``,
        ``unrelated_ms``, ``mean_ms`` and ``index_s`` as medians over the runs, ``recall`` the
        lowest, and ``runs`` holding each run's (copy_ms, unrelated_ms).
    """
    merged = []
    for rows in zip(*runs, strict=False):
        row = dict(rows[0])
        for key in ("copy_ms", "unrelated_ms", "mean_ms", "index_s"):
            row[key] = statistics.median(r[key] for r in rows)
        row["recall"] = min(r["recall"] for r in rows)
        row["runs"] = [(r["copy_ms"], r["unrelated_ms"]) for r in rows]
        merged.append(row)
    return merged


COLUMNS = ("copy ms", "× first", "unrelated ms", "× first", "recall")


def table(results: dict[str, list[dict]]) -> str:
    """Markdown: one row per size; per backend the medians and their ratio to the first size."""
    backends = list(results)
    head = ["windows"] + [f"{b} {col}" for b in backends for col in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for step in range(max(len(rows) for rows in results.values())):
        cells = []
        windows = ""
        for backend in backends:
            rows = results[backend]
            if step >= len(rows):
                cells += ["—"] * len(COLUMNS)
                continue
            row, first = rows[step], rows[0]
            windows = windows or f"{row['windows']:,}"
            cells += [f"{row['copy_ms']:.2f}", f"{row['copy_ms'] / first['copy_ms']:.2f}",
                      f"{row['unrelated_ms']:.2f}",
                      f"{row['unrelated_ms'] / first['unrelated_ms']:.2f}", f"{row['recall']:.2f}"]
        lines.append("| " + " | ".join([windows, *cells]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the scaling benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="index sizes in windows")
    parser.add_argument("--backends", default="memory,redis")
    parser.add_argument("--pages", type=int, default=60,
                        help="pages timed at each size (half copies, half unrelated)")
    parser.add_argument("--passes", type=int, default=5, help="timed passes per size")
    parser.add_argument("--repeat", type=int, default=3,
                        help="growths from empty per backend; medians over them")
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
    taken = {doc.id for doc in typical}
    works = sources + [doc for doc in chapters if doc.id not in taken]
    kit = EditKit.build([doc.text for doc in works[:500]], unindexed, args.data)
    pages = [(doc.id, header_footer(doc.text, random.Random(f"{args.seed}:{doc.id}"), kit))
             for doc in sources]
    pages += [(None, header_footer(doc.text, random.Random(f"{args.seed}:{doc.id}"), kit))
              for doc in unindexed]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as workdir:
        for backend in args.backends.split(","):
            results[backend] = combine([
                grow(backend, works, pages, sizes, Path(workdir) / f"{backend}-{run}", args.passes)
                for run in range(args.repeat)])
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"scaling-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    path.write_text(json.dumps({"command": " ".join(sys.argv), "pages": len(pages),
                                "results": results}, indent=1))
    print(f"JSON: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
