"""Where a page's time goes: the query stages of ``Engine.match``, timed one by one.

Run from the repository root::

    .venv/bin/python -m bench.stages                       # every corpus, 300 works, 3 passes
    .venv/bin/python -m bench.stages --corpora judgments --passes 5

For each corpus (``bench.corpus``) the works are indexed in a MemoryIndex and the pages of
``bench.run`` (every edit and the negatives) are matched ``--passes`` times; each pass times,
page by page, the stages in the order ``Engine.match_with_keys`` runs them:

- ``letters``: ``Engine.letters`` (text -> letters);
- ``keys``: the page's query keys (windows, fingerprints, short-text k-grams);
- ``lookup``: the index lookup, the ranking of candidates and the finding of template siblings;
- ``align``: the alignment of the page with every candidate but the template siblings (works
  prepared beforehand);
- ``judge``: the judgement of the alignments (numbers, same-text groups, document frequency);
- ``rewrite``: the rewrite stage, on the pages the first stage matched nothing in (the engine
  keeps its rewrite keys in a second MemoryIndex, as the command line does).

Per stage: CPU microseconds per page (``time.process_time``: the machine is shared, and the
wall clock of a loaded machine counts other processes' time), the median of the passes' totals
over the pages; then the whole ``match`` per page in CPU and wall time, and two fingerprinting
rates in characters per CPU second: the pages' letters and query keys, and indexing the works
(``Engine.add_work``: letters, keys, record, postings and rewrite keys). Load average before
and after is printed with the table.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from bench.corpus import speed_options
from bench.run import build_queries, parse_builders

STAGES = ("letters", "keys", "lookup", "align", "judge", "rewrite")


def time_pass(engine, texts: list[str]) -> dict[str, float]:
    """Seconds per stage over ``texts`` (one pass), plus ``match`` wall and CPU seconds."""
    from fingerprint.engine import exact_codes

    c = engine.config
    total = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time
    for text in texts:
        t0 = clock()
        letters = engine.letters(text)
        t1 = clock()
        keys = engine._query_key_array(letters)
        t2 = clock()
        if len(letters) < c.min_text_letters:
            total["letters"] += t1 - t0
            total["keys"] += t2 - t1
            continue
        hits = engine._hits(keys)
        ranked = engine._rank(hits)
        candidates = engine._revised(hits, ranked)
        siblings = engine._siblings(hits, ranked, len(keys))
        t3 = clock()
        aligned = engine._align_candidates(letters, candidates, siblings=siblings)
        t4 = clock()
        matches = engine._judge(letters, exact_codes(letters, text) if aligned else None, aligned)
        t5 = clock()
        if not matches and engine.rewrite is not None:
            engine._rewritten(text, hits)
        t6 = clock()
        for name, span in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5),
                              strict=True):
            total[name] += span
    wall, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        engine.match(text)
    total["match"] = time.perf_counter() - wall
    total["match_cpu"] = time.process_time() - cpu
    return total


def measure(name: str, works: int, passes: int, seed: int, data: Path) -> dict[str, float]:
    """Median seconds per stage and per ``match`` over ``passes`` passes, per page, on one
    corpus; also ``pages`` and ``chars`` (characters of all pages)."""
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    corpus = parse_builders()[name](works, 100, 100, seed, data)
    texts = [q.text for q in build_queries(corpus, 100, seed, data)]
    engine = Engine(MemoryIndex(), MemoryWorkStore(), rewrite_index=MemoryIndex())
    cpu = time.process_time()
    for doc in corpus.works:
        with contextlib.suppress(ValueError):
            engine.add_work(doc.id, doc.text)
    index_cpu = time.process_time() - cpu
    for text in texts:  # warm: every candidate prepared, caches filled
        engine.match(text)
    runs = [time_pass(engine, texts) for _ in range(passes)]
    out = {k: statistics.median(r[k] for r in runs) / len(texts) for k in runs[0]}
    out["pages"] = len(texts)
    out["chars"] = sum(map(len, texts))
    t = time.process_time()
    for text in texts:
        engine._query_key_array(engine.letters(text))
    out["fingerprint_chars_per_s"] = out["chars"] / (time.process_time() - t)
    out["index_chars_per_s"] = sum(len(doc.text) for doc in corpus.works) / index_cpu
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the per-stage table (CPU µs per page); returns 0."""
    args = speed_options(__doc__.split("\n\n")[0], "novels,news,judgments,english,dailies",
                         repeat="passes").parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    print("| corpus | pages | " + " | ".join(STAGES) + " | match (wall) | match (CPU) "
          "| page fingerprinting M chars/s | indexing M chars/s |")
    print("|---|---|" + "---|" * (len(STAGES) + 4))
    for name in args.corpora.split(","):
        r = measure(name, args.works, args.passes, args.seed, args.data)
        cells = " | ".join(f"{1e6 * r[s]:.0f}" for s in STAGES)
        print(f"| {name} | {r['pages']} | {cells} | {1e6 * r['match']:.0f} | "
              f"{1e6 * r['match_cpu']:.0f} | {r['fingerprint_chars_per_s'] / 1e6:.2f} | "
              f"{r['index_chars_per_s'] / 1e6:.2f} |",
              flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
