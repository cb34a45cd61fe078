"""Benchmark of the stored-page search for new works (crawler.rematch.run, issue 12).

Everything is real and local (bench.crawl_bench.bench_environment: MongoDB and Redis from
lib.runtime.embedded, a fresh SQLite Django database). The page store (lib.crawl.pagestore, the
platform's MongoDB) receives ``--pages`` pages with one current version each: windows of
``--page-chars`` characters cut from the novels' chapters and the People's Daily paragraphs of
../shared/data. ``--works`` chapters are kept out of the library and registered as works (Work
rows, indexed in the platform engine: Redis index, MongoDB work store); ``--copies`` pages embed
600 characters of the first of them and as many again of the others. Each version keeps its
query keys as the matching of a crawled page does (lib.crawl.pagekeys, computed while filling,
untimed).

Timed, the job's own code path: ``crawler.rematch.run`` for one new work (the first) and for the
batch of ``--works`` works in one pass, including its RematchJob progress rows and the full match
(crawler.matching.match_version, platform engine) of every candidate page; matches recorded by a
run are deleted before the next. With ``--text-runs`` the pass also runs over versions whose
keys were removed (the fallback: each text fingerprinted again, keys stored back). Runs are
interleaved ``--repeat`` times; medians are reported with the load average around each run
(the machine is shared).

Run: ``.venv/bin/python -m bench.rematch --pages 100000 --works 1000 --repeat 3`` (prints one
JSON line per run, then a summary line).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import time
from pathlib import Path

import bson

from bench.corpus import DATA_DIR
from bench.crawl_bench import bench_environment

PASSAGE_CHARS = 600


def _texts(data_dir: Path, works: int, seed: int) -> tuple[list[str], list[str]]:
    """(library source texts, texts of the new works): ``works`` chapters of at least 2,000
    characters drawn at random become works (the longest first) and are kept out of the
    sources; the other chapters and the newspaper paragraphs are the sources."""
    with gzip.open(data_dir / "novels_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        chapters = [json.loads(line)["text"] for line in f]
    with gzip.open(data_dir / "peoples_daily_199801_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        news = "".join(json.loads(line)["text"] for line in f)
    rng = random.Random(seed)
    long_ones = [i for i, c in enumerate(chapters) if len(c) >= 2000]
    chosen = set(rng.sample(long_ones, works))
    new = sorted((chapters[i] for i in chosen), key=len, reverse=True)
    return [c for i, c in enumerate(chapters) if i not in chosen] + [news], new


def _pages(sources: list[str], works: list[str], n: int, chars: int, copies: int, seed: int):
    """Yield ``n`` (canonical URL, text) pages; ``copies`` embed a passage of ``works[0]`` and
    ``copies`` more one of another work (when there are others)."""
    rng = random.Random(seed)
    planted = rng.sample(range(n), 2 * copies if len(works) > 1 else copies)
    source_of = {p: (works[0] if k < copies else works[rng.randrange(1, len(works))])
                 for k, p in enumerate(planted)}
    for i in range(n):
        source = sources[rng.randrange(len(sources))]
        start = rng.randrange(max(1, len(source) - chars))
        text = source[start:start + chars]
        if i in source_of:
            work = source_of[i]
            at = rng.randrange(len(work) - PASSAGE_CHARS)
            text = text[: chars // 3] + work[at:at + PASSAGE_CHARS] + text[chars // 3:]
        yield f"https://site{i % 500}.example/p/{i}.html", text


def fill(pages, engine) -> dict:
    """Store ``pages`` ((url, text) pairs) in the platform's page store with their query keys
    (lib.crawl.pagekeys.compute with ``engine``), as crawled and matched pages are. Returns
    {"pages": count, "keys_bytes_per_version": mean extra BSON bytes of the two key fields,
    "text_bytes_per_version": mean UTF-8 bytes of the texts}."""
    from core.connections import get_mongo_db
    from lib.crawl import pagekeys
    from lib.crawl.pagestore import PageStore, sha256

    db = get_mongo_db()
    store = PageStore(db)
    store.ensure_indexes()
    count = key_bytes = text_bytes = 0
    batch_p, batch_v = [], []

    def flush():
        if batch_v:
            ids = db["page_versions"].insert_many(batch_v).inserted_ids
            for doc, vid in zip(batch_p, ids, strict=True):
                doc["version_id"] = str(vid)
            db["pages"].insert_many(batch_p)
            batch_p.clear()
            batch_v.clear()

    for url, text in pages:
        keys = pagekeys.compute(engine, text)
        extra = {"query_keys": bson.Binary(keys.data), "query_keys_tag": keys.tag}
        key_bytes += len(bson.encode(extra)) - len(bson.encode({}))
        text_bytes += len(text.encode("utf-8"))
        page_id = bson.ObjectId()
        batch_v.append({"page_id": str(page_id), "canonical_url": url, "number": 1, "text": text,
                        "text_hash": sha256(text), **extra})
        batch_p.append({"_id": page_id, "canonical_url": url, "domain": url.split("/")[2],
                        "versions": 1, "text_hash": sha256(text)})
        count += 1
        if len(batch_v) >= 2000:
            flush()
    flush()
    return {"pages": count, "keys_bytes_per_version": round(key_bytes / count, 1),
            "text_bytes_per_version": round(text_bytes / count, 1)}


def register(texts: list[str], engine) -> list[int]:
    """Work rows (indexed) for ``texts``, indexed in the platform engine; returns their ids."""
    from django.utils import timezone

    from core.models import RightsHolder, Work

    holder, _ = RightsHolder.objects.get_or_create(name="bench holder")
    ids = []
    for k, text in enumerate(texts):
        work = Work.objects.create(holder=holder, reference=f"NEW-{k}", title=f"new {k}",
                                   length=len(text), status="indexed", indexed_at=timezone.now())
        engine.add_work(work.engine_id, text)
        ids.append(work.pk)
    return ids


def timed_run(mode: str, work_ids: list[int], engine, store) -> dict:
    """One ``crawler.rematch.run`` over the library, timed; in mode 'text' the versions' keys
    are removed first (untimed). Matches recorded are deleted afterwards."""
    from core.connections import get_mongo_db
    from crawler import rematch
    from crawler.models import Match

    if mode == "text":
        get_mongo_db()["page_versions"].update_many(
            {}, {"$unset": {"query_keys": "", "query_keys_tag": ""}})
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    job = rematch.run(work_ids, engine, store)
    seconds = time.perf_counter() - started
    Match.objects.all().delete()
    return {"mode": mode, "works": len(work_ids), "seconds": round(seconds, 2),
            "us_per_page": round(seconds / job.pages_searched * 1e6, 1),
            "pages_searched": job.pages_searched, "candidates": job.candidates,
            "matches_found": job.matches_found, "load_before": load_before,
            "load_after": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; returns (and prints) the summary as a dict."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--page-chars", type=int, default=1500)
    parser.add_argument("--works", type=int, default=1000, help="works in the batch run")
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--text-runs", type=int, default=0,
                        help="runs over versions without stored keys (text fingerprinted again)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)

    with bench_environment("bench-rematch-"):
        from core.connections import get_mongo_db
        from core.engine import get_engine
        from lib.crawl.pagestore import PageStore

        engine = get_engine()
        sources, works = _texts(args.data, args.works, args.seed)
        started = time.perf_counter()
        work_ids = register(works, engine)
        filled = fill(_pages(sources, works, args.pages, args.page_chars, args.copies, args.seed),
                      engine)
        setup_seconds = time.perf_counter() - started
        store = PageStore(get_mongo_db())
        plan = [("keys", tuple(work_ids[:1])), ("keys", tuple(work_ids))] * args.repeat
        plan += [("text", tuple(work_ids[:1]))] * args.text_runs
        runs = []
        for mode, ids in plan:
            runs.append(timed_run(mode, list(ids), engine, store))
            print(json.dumps(runs[-1]), flush=True)
        summary = {**filled, "page_chars": args.page_chars, "copies_planted": args.copies,
                   "setup_seconds": round(setup_seconds, 1), "medians": {}}
        for mode, ids in dict.fromkeys(plan):
            mine = [r for r in runs if r["mode"] == mode and r["works"] == len(ids)]
            median = statistics.median(r["seconds"] for r in mine)
            summary["medians"][f"{mode}, {len(ids)} works"] = {
                "runs": len(mine), "seconds": round(median, 2),
                "us_per_page": round(median / filled["pages"] * 1e6, 1),
                "candidates": mine[0]["candidates"], "matches_found": mine[0]["matches_found"],
                "load": [min(r["load_before"] for r in mine), max(r["load_after"] for r in mine)]}
        print(json.dumps(summary), flush=True)
        return summary


if __name__ == "__main__":
    main()
