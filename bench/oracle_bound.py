"""How fast a page could be matched if the engine knew beforehand which works it reports: an
upper bound on what skipping template siblings can buy.

Run from the repository root::

    .venv/bin/python -m bench.oracle_bound --corpora judgments,dailies --repeat 3

For each corpus (``bench.corpus``) the works are indexed in a MemoryIndex (the rewrite stage's
keys in a second one, as the command line keeps them) and the pages of ``bench.run`` (every
edit and the negatives) are repeated in order up to ``--pages``. Each run times, interleaved,
in CPU seconds of this process:

- ``engine``: ``Engine.match`` as shipped;
- ``oracle``: ``Engine.match`` whose candidates are cut, after the lookup and ranking, to the
  works that ``Engine.match`` reported for the same page in a pass before (an oracle: no real
  engine knows them before aligning); the other candidates are neither prepared, aligned nor
  judged, so a page costs what its reported works cost, and a page with none goes on to the
  rewrite stage as it does as shipped;
- ``minhash``: datasketch MinHashLSH (``bench.peers.MinHashDetector``) on the same pages.

Prints microseconds per page (medians of the runs) and each way's ratio to MinHashLSH; the
command line's own costs (start, reading and writing lines) come on top of both engine rows
(``bench.cli_speed`` measures them). Load average before and after.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cli_speed import speed_setup
from bench.corpus import speed_options

WAYS = ("engine", "oracle", "minhash")


def _cpu_seconds(call, texts: list[str]) -> float:
    started = time.process_time()
    for text in texts:
        call(text)
    return time.process_time() - started


def oracle_match(engine, reported: dict[str, set[str]]):
    """A ``match(text)`` that aligns only the works in ``reported[text]`` (see the module)."""
    ranked = engine._revised

    def match(text: str):
        keep = reported[text]
        engine._revised = lambda *args: [c for c in ranked(*args) if c[0] in keep]
        try:
            return engine.match(text)
        finally:
            engine._revised = ranked

    return match


def measure(name: str, works: int, pages: int, repeat: int, seed: int, data: Path) -> dict:
    """Median CPU seconds per page of each way on one corpus, and ``pages`` (distinct pages),
    ``same`` (pages the oracle answers with the same works as the engine)."""
    setup = speed_setup(name, works, pages, seed, data)
    engine, texts = setup.engine, setup.texts
    reported = {t: {m.work_id for m in engine.match(t)} for t in set(setup.queries)}
    oracle = oracle_match(engine, reported)
    same = sum({m.work_id for m in oracle(t)} == reported[t] for t in reported)
    runs: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(repeat):
        for way, call in (("engine", engine.match), ("oracle", oracle),
                          ("minhash", setup.minhash.query)):
            runs[way].append(_cpu_seconds(call, texts))
    out = {way: statistics.median(runs[way]) / len(texts) for way in WAYS}
    out.update(pages=len(reported), same=same)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns 0."""
    args = speed_options(__doc__.split("\n\n")[0], "judgments,dailies", 20000).parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    print("| corpus | distinct pages | same answers | engine µs/page | oracle µs/page "
          "| MinHashLSH µs/page | engine × minhash | oracle × minhash |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.corpora.split(","):
        r = measure(name, args.works, args.pages, args.repeat, args.seed, args.data)
        print(f"| {name} | {r['pages']:,} | {r['same']:,} | {1e6 * r['engine']:.1f} | "
              f"{1e6 * r['oracle']:.1f} | {1e6 * r['minhash']:.1f} | "
              f"{r['minhash'] / r['engine']:.2f} | {r['minhash'] / r['oracle']:.2f} |",
              flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
