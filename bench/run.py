"""Recall, precision and throughput of the engine and its peers on the same real data.

Run from the repository root::

    .venv/bin/python -m bench.run                       # defaults: 300 works, 100 queries/edit
    .venv/bin/python -m bench.run --works 600 --queries 200 --repeat 5
    .venv/bin/python -m bench.run --detectors minhash,engine --corpora news --no-redis

For each corpus (novels, news) every detector indexes the same works and answers the same
queries: ``--queries`` edited copies of works per edit (see ``bench.edits``) and ``--queries``
negatives per kind (each wrapped in a portal's header/footer like a crawled page). The index and
the queries are timed ``--repeat`` times on a fresh detector; throughput is the median.
Results go to standard output as Markdown tables and to ``bench/results/run-<time>.json``.
Column meanings are in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/run.py``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import (
    ANSWER_WORDS,
    DATA_DIR,
    Corpus,
    CorpusError,
    Doc,
    build_dailies,
    build_english,
    build_judgments,
    build_news,
    build_novels,
)
from bench.edits import EDITS, ENGLISH_EDITS, EditKit, header_footer
from bench.peers import Detector, factories
from bench.revisions import REVISION_COLUMNS, REVISION_EDITS
from bench.rewrites import REWRITE_COLUMNS, REWRITE_EDITS

RESULTS_DIR = Path(__file__).resolve().parent / "results"
COLUMNS = {"header_footer": "header", "substitute_1": "sub 1%", "substitute_3": "sub 3%",
           "homophones_5": "homoph 5%", "traditional": "trad", "reorder": "reorder",
           "delete_10": "del 10%", "excerpt": "excerpt", "combination": "combo",
           "light_cuts": "cuts (en)", "reword_20": "reword (en)", **REVISION_COLUMNS,
           **REWRITE_COLUMNS}
MISTAKES = 10  # wrong pages listed per kind and detector in the JSON, for diagnosis
REFERENCE = {"minhash-redis": "engine-redis", "engine-redis": "engine-redis"}  # else "engine"


@dataclass(frozen=True)
class Query:
    """One benchmark page.

    Attributes:
        kind: the edit's name, or ``neg:<kind>`` for a negative.
        expected: the id of the work the page copies; None for a negative.
        text: the page text.
        twins: ids of the other works registered with the same text as ``expected``
            (``--twins``); the page is found only when all of them are returned too.
    """

    kind: str
    expected: str | None
    text: str
    twins: tuple[str, ...] = ()


def build_queries(corpus: Corpus, count: int, seed: int, data_dir: Path) -> list[Query]:
    """Apply every edit to the same ``count`` sampled works, and wrap the negatives.

    Each page has its own random source seeded by (seed, edit, work id), so a page does not
    change when other edits or sizes change.

    Args:
        corpus: the corpus.
        count: works sampled per edit (at most the number of works).
        seed: sampling seed.
        data_dir: folder of the shared data.

    Returns:
        The positive queries, edit by edit, then the negatives.
    """
    kit = EditKit.build([doc.text for doc in corpus.works + corpus.hosts], corpus.hosts,
                        data_dir)
    sources = random.Random(seed).sample(corpus.works, min(count, len(corpus.works)))
    queries = [Query(name, doc.id, edit(doc.text, random.Random(f"{seed}:{name}:{doc.id}"), kit))
               for name, edit in (ENGLISH_EDITS | REVISION_EDITS if corpus.english
                                  else EDITS | REWRITE_EDITS).items()
               for doc in sources]
    for kind, docs in corpus.negatives.items():
        queries += [Query(f"neg:{kind}", None,
                          header_footer(doc.text, random.Random(f"{seed}:neg:{doc.id}"), kit))
                    for doc in docs]
    return queries


def add_twins(corpus: Corpus, queries: list[Query], copies: int) -> list[Query]:
    """Register the text of every work that a page copies as ``copies`` works in all: the
    work and ``copies - 1`` more works with the same text (ids ``<id>~2``, ``<id>~3``, ...,
    added to ``corpus.works``). Returns the queries with their ``twins`` set."""
    if copies < 2:
        return queries
    sources = {query.expected for query in queries if query.expected is not None}
    twins = {doc.id: tuple(f"{doc.id}~{k}" for k in range(2, copies + 1))
             for doc in corpus.works if doc.id in sources}
    corpus.works += [Doc(twin, doc.text, doc.group) for doc in corpus.works if doc.id in twins
                     for twin in twins[doc.id]]
    return [Query(q.kind, q.expected, q.text, twins.get(q.expected, ())) for q in queries]


def run_once(make: Callable[[], Detector], corpus: Corpus, queries: list[Query]) -> dict:
    """Index the works on a fresh detector and answer every page once, timed.

    Args:
        make: a callable returning an empty Detector.
        corpus: the corpus whose works are indexed.
        queries: the pages.

    Returns:
        ``{"index_s": seconds to index and commit, "query_s": seconds for all pages,
        "results": [set of ids per page], "errors": [message per refused work or page that
        raised]}``; a page that raises counts as returning nothing, a work refused with a
        ValueError (e.g. EmptyTextError, by ``index`` or at ``commit``) is skipped and so never
        found.

    Raises:
        ImportError: the detector's package is missing (the engine before it lands).
    """
    detector = make()
    try:
        errors = []
        start = time.perf_counter()
        for doc in corpus.works:
            try:
                detector.index(doc.id, doc.text)
            except ValueError as exc:  # a work the detector refuses (too short): never found
                errors.append(f"index {doc.id}: {type(exc).__name__}: {exc}")
        errors += detector.commit() or []
        index_s = time.perf_counter() - start
        results = []
        start = time.perf_counter()
        for query in queries:
            try:
                results.append(detector.query(query.text))
            except Exception as exc:  # a crash on one page must not lose the whole table
                results.append(set())
                errors.append(f"{query.kind}: {type(exc).__name__}: {exc}")
        query_s = time.perf_counter() - start
    finally:
        detector.close()
    return {"index_s": index_s, "query_s": query_s, "results": results, "errors": errors}


def run_all(makers: dict[str, Callable[[], Detector]], corpus: Corpus, queries: list[Query],
            repeat: int) -> dict[str, dict]:
    """Run every detector ``repeat`` times, interleaved (run 1 of each, then run 2 of each, ...).

    Interleaving keeps the load of the shared machine comparable across detectors, so that the
    throughput ratios of one run are fair.

    Args:
        makers: detector name -> constructor of an empty detector.
        corpus: the corpus.
        queries: the pages.
        repeat: number of timed runs per detector (at least 1).

    Returns:
        name -> ``{"index_s": [seconds per run], "query_s": [...], "results": first run's ids,
        "errors": first run's errors, "stable": later runs returned the same ids}``. Detectors
        whose package is missing are left out (reported on standard error).
    """
    runs: dict[str, dict] = {}
    skipped: set[str] = set()
    for turn in range(repeat):
        for name, make in makers.items():
            if name in skipped:
                continue
            started = time.perf_counter()
            try:
                once = run_once(make, corpus, queries)
            except ImportError as exc:
                print(f"[{corpus.name}] {name}: skipped ({exc})", file=sys.stderr)
                skipped.add(name)
                continue
            print(f"[{corpus.name}] {name} run {turn + 1}: {time.perf_counter() - started:.1f} s"
                  + (f", {len(once['errors'])} errors" if once["errors"] else ""),
                  file=sys.stderr)
            if name not in runs:
                runs[name] = {**once, "index_s": [], "query_s": [], "stable": True}
            elif once["results"] != runs[name]["results"]:
                runs[name]["stable"] = False
            runs[name]["index_s"].append(once["index_s"])
            runs[name]["query_s"].append(once["query_s"])
    return runs


def score(queries: list[Query], results: list[set[str]]) -> dict:
    """Recall per edit and precision over all returned ids.

    Args:
        queries: the pages.
        results: the ids returned for each page, same order.

    Returns:
        ``{"recall": {edit: share of its pages whose work was returned}, "tp": int, "fp": int,
        "precision": tp / (tp + fp) or None when nothing was returned, "negatives_hit": share
        of negative pages with any id returned, "mistakes": up to ``MISTAKES`` pages per kind
        that missed their work or returned a wrong one, as {"kind", "expected", "returned"}}``.
        A page is found when its work and all its ``twins`` are returned; any other returned
        id is a false positive, on positive pages as on negatives.
    """
    hits: dict[str, list[bool]] = {}
    tp = fp = 0
    negatives = negatives_hit = 0
    mistakes: list[dict] = []
    listed: dict[str, int] = {}
    for query, found in zip(queries, results, strict=True):
        if query.expected is None:
            negatives += 1
            negatives_hit += bool(found)
        else:
            group = {query.expected, *query.twins}
            hits.setdefault(query.kind, []).append(group <= found)
        correct = len(found & {query.expected, *query.twins}) if query.expected else 0
        tp += correct
        fp += len(found) - correct
        wrong = (query.expected is not None and correct < 1 + len(query.twins)) \
            or len(found) > correct
        if wrong and listed.get(query.kind, 0) < MISTAKES:
            listed[query.kind] = listed.get(query.kind, 0) + 1
            mistakes.append({"kind": query.kind, "expected": query.expected,
                             "returned": sorted(found)})
    return {"recall": {kind: sum(v) / len(v) for kind, v in hits.items()}, "tp": tp, "fp": fp,
            "precision": tp / (tp + fp) if tp + fp else None,
            "negatives_hit": negatives_hit / negatives if negatives else None,
            "mistakes": mistakes}


def _fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(corpus: str, rows: dict[str, dict]) -> str:
    """The Markdown table of one corpus.

    Args:
        corpus: the corpus name (the table's caption).
        rows: detector name -> its summary (see ``summarize``).

    Returns:
        Markdown text, one row per detector, then a line of characters per second.
    """
    head = ["detector", *COLUMNS.values(), "precision", "FP", "neg hit", "index docs/s",
            "query docs/s", "index ×ref", "query ×ref"]
    lines = [f"**{corpus}**", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for name, row in rows.items():
        cells = [name, *(_fmt(row["recall"].get(edit)) for edit in COLUMNS),
                 _fmt(row["precision"], 3), str(row["fp"]), _fmt(row["negatives_hit"]),
                 f"{row['index_docs_s']:,.0f}", f"{row['query_docs_s']:,.0f}",
                 _fmt(row.get("index_vs_ref")), _fmt(row.get("query_vs_ref"))]
        lines.append("| " + " | ".join(cells) + " |")
    speeds = "; ".join(f"{name} {row['index_chars_s'] / 1e6:.2f} / {row['query_chars_s'] / 1e6:.2f}"
                       for name, row in rows.items())
    lines += ["", f"Million characters per second, index / query: {speeds}."]
    return "\n".join(lines)


def summarize(corpus: Corpus, queries: list[Query], run: dict) -> dict:
    """Scores and median throughput of one detector on one corpus.

    Args:
        corpus: the corpus (works, for the indexing rate).
        queries: the pages.
        run: one detector's entry in the output of ``run_all``.

    Returns:
        ``score`` plus ``index_docs_s``, ``query_docs_s``, ``index_chars_s``, ``query_chars_s``
        (medians over the runs), the raw run times, ``errors`` and ``stable``.
    """
    index_s, query_s = statistics.median(run["index_s"]), statistics.median(run["query_s"])
    work_chars = sum(len(doc.text) for doc in corpus.works)
    page_chars = sum(len(query.text) for query in queries)
    return {**score(queries, run["results"]),
            "index_docs_s": len(corpus.works) / index_s, "query_docs_s": len(queries) / query_s,
            "index_chars_s": work_chars / index_s, "query_chars_s": page_chars / query_s,
            "index_s": run["index_s"], "query_s": run["query_s"],
            "errors": run["errors"][:20], "error_count": len(run["errors"]),
            "stable": run["stable"]}


def add_ratios(rows: dict[str, dict]) -> None:
    """Add ``index_vs_ref`` and ``query_vs_ref``: the reference engine's docs/s ÷ this row's.

    The reference is ``engine-redis`` for the Redis-backed rows and ``engine`` for the others;
    a ratio of 10 means the engine is 10 times faster. Rows get no ratio without a reference.
    """
    for name, row in rows.items():
        ref = rows.get(REFERENCE.get(name, "engine"))
        if ref:
            row["index_vs_ref"] = ref["index_docs_s"] / row["index_docs_s"]
            row["query_vs_ref"] = ref["query_docs_s"] / row["query_docs_s"]


def targets(corpora: dict[str, dict]) -> str:
    """The issue's targets checked against this run's engine rows (Markdown list).

    Args:
        corpora: corpus name -> {"detectors": name -> summary}.

    Returns:
        One line per target with each corpus' figure; targets whose rows are missing are
        left out.
    """
    lines = []

    def each(figure) -> str:
        parts = []
        for name, corpus in corpora.items():
            value = figure(corpus["detectors"])
            if value is not None:
                parts.append(f"{name} {value}")
        return ", ".join(parts)

    def worst_recall(rows):
        if "engine" not in rows:
            return None
        edit, value = min(rows["engine"]["recall"].items(), key=lambda item: item[1])
        return f"{value:.2f} ({COLUMNS[edit]})"

    def ratio(row, key):
        return lambda rows: (f"{rows[row]['query_vs_ref']:.2f}×" if row in rows
                             and "query_vs_ref" in rows[row] and key in rows else None)

    checks = [
        ("engine recall >= 0.98 on every edit: lowest", worst_recall),
        ("engine precision >= 0.99", lambda rows: _fmt(rows["engine"]["precision"], 3)
         if "engine" in rows else None),
        ("engine query docs/s >= 10 × minhash", ratio("minhash", "engine")),
        ("engine-redis query docs/s >= 5 × minhash-redis", ratio("minhash-redis",
                                                                "engine-redis")),
        ("engine indexing (letters, windows, index, store) >= 2M characters/s",
         lambda rows: f"{rows['engine']['index_chars_s'] / 1e6:.2f}M" if "engine" in rows
         else None),
    ]
    for label, figure in checks:
        text = each(figure)
        if text:
            lines.append(f"- {label}: {text}")
    heading = "Targets (recall, precision, query and indexing speed), this run:\n"
    return heading + "\n".join(lines) if lines else ""


def _servers(workdir: Path, mongo: bool) -> tuple[list, str, str | None]:
    from lib.runtime.embedded import start_mongo, start_redis

    services = [start_redis(workdir / "redis", persist=False)]
    redis_url = services[0].url.rsplit("/", 1)[0] + "/1"
    mongo_url = None
    if mongo:
        services.append(start_mongo(workdir / "mongo", journal=False))
        mongo_url = services[-1].url
    return services, redis_url, mongo_url


def parse_builders() -> dict:
    """Corpus name -> its builder ``(works, negatives, hosts, seed, data_dir) -> Corpus``."""
    return {"novels": build_novels, "news": build_news, "judgments": build_judgments,
            "english": build_english, "dailies": build_dailies}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see ``--help``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=300, help="works indexed per corpus")
    parser.add_argument("--queries", type=int, default=100,
                        help="pages per edit, and negatives per kind")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; medians reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--english-words", default=None, metavar="MIN,MAX",
                        help="words of an English answer (default "
                             f"{ANSWER_WORDS[0]},{ANSWER_WORDS[1]})")
    parser.add_argument("--twins", type=int, default=1, metavar="N",
                        help="register the text of every copied work as N works (default 1)")
    parser.add_argument("--corpora", default="novels,news,judgments,english,dailies")
    parser.add_argument("--detectors", default=None,
                        help="comma-separated names (default: all available)")
    parser.add_argument("--no-redis", action="store_true",
                        help="skip the Redis-backed detectors (no servers started)")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the JSON")
    args = parser.parse_args(argv)
    if min(args.works, args.queries, args.repeat, args.twins) < 1:
        parser.error("--works, --queries, --repeat and --twins must be at least 1")
    if args.english_words is not None:
        try:
            least, most = map(int, args.english_words.split(","))
        except ValueError:
            parser.error("--english-words takes two integers: MIN,MAX")
        if not 20 <= least <= most:
            parser.error("--english-words needs 20 <= MIN <= MAX")
        args.english_words = (least, most)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status (0; 2 for an unknown detector, or data missing
    or too small for the sizes asked)."""
    args = parse_args(argv)
    wanted = args.detectors.split(",") if args.detectors else None
    use_redis = not args.no_redis and (wanted is None or any("redis" in w for w in wanted))
    builders = parse_builders()
    if args.english_words:
        builders["english"] = partial(build_english, lengths=args.english_words)
    report: dict = {"started": datetime.now(UTC).isoformat(timespec="seconds"),
                    "command": " ".join(sys.argv), "options": {
                        k: str(v) for k, v in vars(args).items()}, "corpora": {}}
    services: list = []
    with tempfile.TemporaryDirectory(prefix="bench-") as workdir:
        try:
            redis_url = mongo_url = None
            if use_redis:
                mongo = wanted is None or "engine-redis" in wanted
                services, redis_url, mongo_url = _servers(Path(workdir), mongo)
            makers = factories(redis_url, mongo_url)
            unknown = set(wanted or []) - set(makers)
            if unknown:
                print(f"unknown detectors: {', '.join(sorted(unknown))}; known: "
                      f"{', '.join(makers)}", file=sys.stderr)
                return 2
            for name in args.corpora.split(","):
                started = time.perf_counter()
                try:
                    corpus = builders[name](args.works, args.queries, args.queries, args.seed,
                                            args.data)
                except CorpusError as exc:
                    print(f"[{name}] {exc}", file=sys.stderr)
                    return 2
                queries = add_twins(corpus, build_queries(corpus, args.queries, args.seed,
                                                          args.data), args.twins)
                print(f"[{name}] {len(corpus.works)} works, {len(queries)} pages, built in "
                      f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
                chosen = {k: v for k, v in makers.items() if not wanted or k in wanted}
                rows = {detector: summarize(corpus, queries, run) for detector, run
                        in run_all(chosen, corpus, queries, args.repeat).items()}
                add_ratios(rows)
                report["corpora"][name] = {
                    "works": len(corpus.works), "work_chars": sum(len(d.text)
                                                                  for d in corpus.works),
                    "pages": len(queries), "detectors": rows}
                print(table(f"{name}: {len(corpus.works)} works, {args.queries} pages per "
                            f"edit, medians of {args.repeat} runs", rows) + "\n")
        finally:
            for service in services:
                service.stop()
    print(targets(report["corpora"]))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"run-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1))
    print(f"JSON: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
