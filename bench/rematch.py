"""Benchmark of the stored-page search for a new work (crawler.rematch's pass), issue 12.

A throwaway MongoDB (tracker.embedded) receives ``--pages`` page versions in the page store's
layout (crawler.pagestore): windows of ``--page-chars`` characters cut from the novels' chapters
and the People's Daily paragraphs of ../shared/data, ``--copies`` of which embed a passage of the
new work (a chapter left out of the library). The timed pass is the one crawler.rematch.run
makes: every current version read from MongoDB (PageStore.iter_current) and looked up in an
in-memory engine holding only the new work (fingerprint.Engine(MemoryIndex(), MemoryWorkStore()),
``candidates``). The full match of the candidate pages with the platform engine (Redis, the
whole corpus) is not timed: it runs for the candidates only (here ``--copies`` pages).

With ``--stored-keys`` each version is stored with its query keys (``Engine.query_keys``,
computed while filling, untimed) and the timed pass reads only those keys and looks them up in
the small index: the cost of the pass if the matching of a crawled page kept its keys.

Run: ``.venv/bin/python -m bench.rematch --pages 100000 [--stored-keys]`` (prints a JSON line:
seconds, microseconds per stored page, candidates found, copies planted).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pymongo

from crawler.pagestore import PageStore, sha256
from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _texts(data_dir: Path) -> tuple[list[str], str]:
    """(library source texts, the new work's text): novel chapters and newspaper paragraphs;
    the new work is the longest chapter, kept out of the sources."""
    with gzip.open(data_dir / "novels_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        chapters = [json.loads(line)["text"] for line in f]
    with gzip.open(data_dir / "peoples_daily_199801_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        news = "".join(json.loads(line)["text"] for line in f)
    chapters.sort(key=len)
    work = chapters.pop()
    return chapters + [news], work


def _pages(sources: list[str], work: str, n: int, chars: int, copies: int, seed: int):
    """Yield ``n`` (canonical URL, text) pages; ``copies`` of them embed 600 characters of
    ``work`` at random positions."""
    rng = random.Random(seed)
    planted = set(rng.sample(range(n), copies))
    for i in range(n):
        source = sources[rng.randrange(len(sources))]
        start = rng.randrange(max(1, len(source) - chars))
        text = source[start:start + chars]
        if i in planted:
            at = rng.randrange(len(work) - 600)
            text = text[: chars // 3] + work[at:at + 600] + text[chars // 3:]
        yield f"https://site{i % 500}.example/p/{i}.html", text


def fill(db, pages, keyer: Engine | None = None) -> int:
    """Insert ``pages`` ((url, text) pairs) as pages + current versions; returns the count.
    With ``keyer`` (an Engine) each version also keeps its query keys (``keys``: uint64 bytes),
    as the matching of a crawled page could store them."""
    count, batch_p, batch_v = 0, [], []

    def flush():
        if batch_v:
            ids = db["page_versions"].insert_many(batch_v).inserted_ids
            for doc, vid in zip(batch_p, ids, strict=True):
                doc["version_id"] = str(vid)
            db["pages"].insert_many(batch_p)
            batch_p.clear()
            batch_v.clear()

    for url, text in pages:
        version = {"page_id": url, "canonical_url": url, "number": 1, "text": text,
                   "text_hash": sha256(text)}
        if keyer is not None:
            version["keys"] = np.asarray(keyer.query_keys(keyer.letters(text)), np.uint64).tobytes()
        batch_v.append(version)
        batch_p.append({"canonical_url": url, "domain": url.split("/")[2], "versions": 1,
                        "text_hash": sha256(text)})
        count += 1
        if len(batch_v) >= 2000:
            flush()
    flush()
    return count


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; returns (and prints) its figures as a dict."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--page-chars", type=int, default=1500)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--stored-keys", action="store_true",
                        help="time the pass over query keys stored with each version instead "
                             "of re-fingerprinting the texts")
    args = parser.parse_args(argv)

    from tracker.embedded import start_mongo

    workdir = Path(tempfile.mkdtemp(prefix="bench-rematch-"))
    mongo = start_mongo(workdir / "mongo", journal=False)
    try:
        db = pymongo.MongoClient(mongo.url)["bench_rematch"]
        sources, work = _texts(args.data)
        started = time.perf_counter()
        keyer = Engine(MemoryIndex(), MemoryWorkStore()) if args.stored_keys else None
        n = fill(db, _pages(sources, work, args.pages, args.page_chars, args.copies, args.seed),
                 keyer)
        filled = time.perf_counter() - started
        store = PageStore(db)
        small = Engine(MemoryIndex(), MemoryWorkStore())
        small.add_work("new-work", work)
        started = time.perf_counter()
        searched = candidates = 0
        if args.stored_keys:  # what the pass would cost with each version's keys stored
            need = small.config.min_window_hits
            for doc in db["page_versions"].find({}, {"keys": 1}, batch_size=2000):
                searched += 1
                hits = small.index.lookup(np.frombuffer(doc["keys"], np.uint64).tolist())
                if sum(len(p) for p in hits.values()) >= need:
                    candidates += 1
        else:
            for _page, version in store.iter_current():
                searched += 1
                if small.candidates(small.letters(version.text)):
                    candidates += 1
        seconds = time.perf_counter() - started
        result = {"mode": "stored keys" if args.stored_keys else "re-fingerprint", "pages": n, "page_chars": args.page_chars, "searched": searched,
                  "copies_planted": args.copies, "candidates": candidates,
                  "seconds": round(seconds, 2), "us_per_page": round(seconds / searched * 1e6, 1),
                  "fill_seconds": round(filled, 1), "work_chars": len(work)}
        print(json.dumps(result))
        return result
    finally:
        mongo.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
