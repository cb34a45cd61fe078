"""Query throughput end to end through the command line, against MinHashLSH in process.

Run from the repository root::

    .venv/bin/python -m bench.cli_speed                 # 300 works, >= 2,000 pages, 3 runs
    .venv/bin/python -m bench.cli_speed --corpora judgments --repeat 5

For each corpus (``bench.corpus``) the works are written to a JSON Lines file and indexed once
with ``python -m fingerprint index --db DIR``; the benchmark pages of ``bench.run`` (every edit
and the negatives) are repeated in order until there are at least ``--pages`` of them and
written to a second file. Each run then times, interleaved:

- ``cli``: ``python -m fingerprint query --db DIR PAGES`` as a subprocess, wall clock from
  launch to exit: process start, imports, index and store load, every page, JSON output;
- ``engine``: the same pages through ``Engine.match`` in this process, index already loaded
  (the rewrite stage's keys in a second MemoryIndex, as the command line keeps them);
- ``minhash``: datasketch MinHashLSH (``bench.peers.MinHashDetector``) answering the same
  pages in this process, its index already built.

Pages per second are medians over ``--repeat`` runs; "× minhash" is a ratio of medians of the
same run set. Each way is timed by the wall clock and by CPU time (the subprocess's user and
system time from ``resource.getrusage(RUSAGE_CHILDREN)``, ``time.process_time`` in process):
on a shared, loaded machine the wall clock counts other processes' time, CPU time much less.
Results go to standard output as a Markdown table, with the load average before and after.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from bench.corpus import CorpusError, speed_options
from bench.peers import MinHashDetector
from bench.run import build_queries, parse_builders

ROOT = Path(__file__).resolve().parents[1]
WAYS = ("cli", "engine", "minhash")


def _write(path: Path, records: list[tuple[str, str]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for record_id, text in records:
            out.write(json.dumps({"id": record_id, "text": text}, ensure_ascii=False) + "\n")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(db: Path, pages: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``python -m fingerprint query`` over ``pages``
    (output discarded)."""
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "fingerprint", "query", "--db", str(db),
                    "--no-progress", str(pages)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - cpu


def _timed(call, texts: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``call(text)`` for every text."""
    started, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        call(text)
    return time.perf_counter() - started, time.process_time() - cpu


@dataclass
class SpeedSetup:
    """A corpus ready to be queried: its ``corpus`` (bench.corpus), the distinct benchmark
    ``queries`` (texts), the ``texts`` queried (the queries repeated in order), the ``engine``
    (MemoryIndex, MemoryWorkStore, the rewrite stage's keys in a second MemoryIndex, as the
    command line keeps them) and ``minhash`` (bench.peers.MinHashDetector), both indexed."""

    corpus: object
    queries: list[str]
    texts: list[str]
    engine: object
    minhash: MinHashDetector


def speed_setup(name: str, works: int, pages: int, seed: int, data: Path) -> SpeedSetup:
    """The SpeedSetup of corpus ``name`` (``bench.run`` builders) with ``works`` works and at
    least ``pages`` pages queried. Raises CorpusError when the data is missing or too small."""
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    corpus = parse_builders()[name](works, 100, 100, seed, data)
    queries = [q.text for q in build_queries(corpus, 100, seed, data)]
    texts = (queries * (pages // len(queries) + 1))[:max(pages, len(queries))]
    engine = Engine(MemoryIndex(), MemoryWorkStore(), rewrite_index=MemoryIndex())
    minhash = MinHashDetector()
    for doc in corpus.works:
        with contextlib.suppress(ValueError):
            engine.add_work(doc.id, doc.text)
        minhash.index(doc.id, doc.text)
    return SpeedSetup(corpus, queries, texts, engine, minhash)


def measure(name: str, works: int, pages: int, repeat: int, seed: int, data: Path) -> dict:
    """Throughput of the three ways on one corpus.

    Args:
        name: corpus name (``bench.run`` builders).
        works: works indexed.
        pages: least number of pages queried.
        repeat: interleaved runs.
        seed: sampling seed.
        data: the shared data folder.

    Returns:
        ``{"pages": int, "works": int, "cli": [s per run], "engine": [...], "minhash": [...]}``
        (wall seconds), and the same keys with ``_cpu`` (CPU seconds).

    Raises:
        CorpusError: the data is missing or too small.
    """
    setup = speed_setup(name, works, pages, seed, data)
    corpus, texts, engine, minhash = setup.corpus, setup.texts, setup.engine, setup.minhash
    result: dict = {"pages": len(texts), "works": len(corpus.works)}
    for way in WAYS:
        result[way], result[f"{way}_cpu"] = [], []
    with tempfile.TemporaryDirectory(prefix="cli-speed-") as tmp:
        tmp = Path(tmp)
        _write(tmp / "works.jsonl", [(d.id, d.text) for d in corpus.works])
        _write(tmp / "pages.jsonl", [(f"p{i}", t) for i, t in enumerate(texts)])
        subprocess.run([sys.executable, "-m", "fingerprint", "index", "--db", str(tmp / "db"),
                        "--no-progress", str(tmp / "works.jsonl")], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(repeat):
            for way, (wall, cpu) in (("cli", _cli(tmp / "db", tmp / "pages.jsonl")),
                                     ("engine", _timed(engine.match, texts)),
                                     ("minhash", _timed(minhash.query, texts))):
                result[way].append(wall)
                result[f"{way}_cpu"].append(cpu)
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print the table; returns 0 (2 when the data is missing)."""
    args = speed_options(__doc__.split("\n\n")[0], "novels,news,judgments,english,dailies",
                         2000).parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    print("| corpus | works | pages | clock | CLI end to end, pages/s | engine in process, pages/s "
          "| MinHashLSH in process, pages/s | CLI × minhash | in process × minhash |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.corpora.split(","):
        try:
            r = measure(name, args.works, args.pages, args.repeat, args.seed, args.data)
        except CorpusError as exc:
            print(f"[{name}] {exc}", file=sys.stderr)
            return 2
        for clock, suffix in (("wall", ""), ("CPU", "_cpu")):
            rate = {k: r["pages"] / statistics.median(r[k + suffix]) for k in WAYS}
            print(f"| {name} | {r['works']} | {r['pages']:,} | {clock} | {rate['cli']:,.0f} | "
                  f"{rate['engine']:,.0f} | {rate['minhash']:,.0f} | "
                  f"{rate['cli'] / rate['minhash']:.2f} | "
                  f"{rate['engine'] / rate['minhash']:.2f} |", flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
