"""Web-archive scan speed: records per second of one worker process reading a WET file.

    .venv/bin/python -m bench.archive_speed --data ../shared/data            # 100,000 records
    .venv/bin/python -m bench.archive_speed --data ../shared/data --index redis --batch 1,200

The bench writes a Common Crawl-like WET file (gzip, one member a record, warcio) of
``--records`` conversion records from the corpora: People's Daily documents (1998) and novel
chapters that are not indexed, and one record in ``--copy-every`` that copies a 1,500-character
excerpt of an indexed work inside a news document. It indexes ``--works`` chapters (the
engine over a MemoryIndex, and over a RedisIndex on an embedded Redis server: one round trip
per ``--batch`` records' lookup, as in a worker) and reads the file ``--repeat`` times in this
one process for each index and batch size, interleaved (pass 1 of each, then pass 2 ...), each
pass timed in wall and CPU seconds and split into reading (lib.crawl.archive.reader) and text
and matching (lib.crawl.archive.text.matched_texts, Engine.match_many): the work of
crawler.archives per record, without PostgreSQL and MongoDB, which only the few matching
records reach. Printed: the median pass of each and the load average around the runs, as
Markdown, and one JSON line per pass.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.corpus import DATA_DIR, load_chapters, load_news


def write_wet(path: Path, records: int, works: list[str], fillers: list[str], copy_every: int,
              seed: int) -> int:
    """Write ``records`` conversion records to ``path`` (gzip WET); returns the number of
    records that copy a work."""
    from warcio.warcwriter import WARCWriter

    rng = random.Random(seed)
    copies = 0
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "bench"}))
        for i in range(records):
            text = fillers[i % len(fillers)]
            if copy_every and i % copy_every == copy_every // 2:
                work = rng.choice(works)
                start = rng.randrange(max(1, len(work) - 1500))
                text = text[:300] + "\n" + work[start:start + 1500] + "\n" + text[300:600]
                copies += 1
            record = writer.create_warc_record(
                f"http://site{i % 5000}.example/page/{i}.html", "conversion",
                payload=io.BytesIO(text.encode("utf-8")), warc_content_type="text/plain")
            writer.write_record(record)
    return copies


def one_pass(path: Path, engine, max_bytes: int, batch: int) -> dict:
    """Read the whole file once, matching its records ``batch`` at a time (one index lookup a
    batch, as crawler.archives does); returns records, matched records and seconds per stage."""
    from lib.crawl.archive.reader import ArchiveRecord, read_records
    from lib.crawl.archive.text import matched_texts

    t = {"read": 0.0, "text_match": 0.0}
    records = matched = 0
    pending: list = []

    def match_pending() -> int:
        started = time.perf_counter()
        found = sum(m is not None for m in matched_texts(pending, engine))
        t["text_match"] += time.perf_counter() - started
        pending.clear()
        return found

    wall, cpu = time.perf_counter(), time.process_time()
    with open(path, "rb") as stream:
        mark = time.perf_counter()
        for item in read_records(stream, max_bytes=max_bytes):
            t["read"] += time.perf_counter() - mark
            if not isinstance(item, ArchiveRecord):
                raise RuntimeError(f"fault: {item}")
            records += 1
            pending.append(item)
            if len(pending) >= batch:
                matched += match_pending()
            mark = time.perf_counter()
    matched += match_pending()
    return {"records": records, "matched": matched, "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu, **{f"{k}_s": v for k, v in t.items()}}


def build_engine(kind: str, server):
    """An Engine over a MemoryIndex, or over a RedisIndex on ``server`` (an embedded Redis)."""
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    if kind == "memory":
        return Engine(MemoryIndex(), MemoryWorkStore())
    import redis

    from fingerprint.index.redis import RedisIndex

    client = redis.Redis.from_url(server.url)
    return Engine(RedisIndex(client, prefix="bench"), MemoryWorkStore())


def main(argv: list[str] | None = None) -> int:
    """Run the bench (see the module docstring); returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--works", type=int, default=300)
    parser.add_argument("--copy-every", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--index", default="memory,redis",
                        help="comma-separated: memory, redis (runs interleaved)")
    parser.add_argument("--batch", default="200",
                        help="comma-separated records per index lookup (settings."
                             "ARCHIVE_BATCH_RECORDS; 1 = one lookup a record), interleaved")
    parser.add_argument("--max-bytes", type=int, default=5 * 1024 * 1024,
                        help="payload bytes kept per record (CrawlConfig.max_body_bytes)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    chapters = load_chapters(args.data)
    rng = random.Random(args.seed)
    rng.shuffle(chapters)
    works = chapters[:args.works]
    indexed = {w.group for w in works}  # fillers: chapters of novels with no chapter indexed
    others = [c for c in chapters[args.works:] if c.group not in indexed][:2000]
    fillers = [d.text for d in load_news(args.data, args.seed)] + [d.text[:3000] for d in others]
    rng.shuffle(fillers)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = tmp / "bench.warc.wet.gz"
        started = time.perf_counter()
        copies = write_wet(path, args.records, [w.text for w in works], fillers,
                           args.copy_every, args.seed)
        print(f"wrote {args.records} records ({copies} copies), {path.stat().st_size / 1e6:.1f} MB "
              f"in {time.perf_counter() - started:.0f} s", flush=True)
        kinds = args.index.split(",")
        setups = [(kind, int(b)) for kind in kinds for b in args.batch.split(",")]
        server = None
        if "redis" in kinds:
            from lib.runtime import embedded

            server = embedded.start_redis(tmp / "redis", persist=False)
        try:
            engines = {kind: build_engine(kind, server) for kind in kinds}
            for engine in engines.values():
                for w in works:
                    engine.add_work(w.id, w.text)
            for kind, batch in setups:  # warm: caches filled, file in the page cache
                one_pass(path, engines[kind], args.max_bytes, batch)
            load_before = os.getloadavg()
            runs: dict[tuple[str, int], list[dict]] = {setup: [] for setup in setups}
            for _ in range(args.repeat):  # interleaved: run i of every setup, then run i + 1
                for kind, batch in setups:
                    runs[kind, batch].append(one_pass(path, engines[kind], args.max_bytes, batch))
                    print(json.dumps({"index": kind, "batch": batch, **runs[kind, batch][-1]}),
                          flush=True)
            load_after = os.getloadavg()
        finally:
            if server is not None:
                server.stop()
    print(f"\n{args.works} works; {args.records} records ({copies} copies); load average "
          f"before {load_before}, after {load_after}\n")
    print("| index | records per lookup | records/s (wall) | records/s (CPU) | "
          "read µs/record (wall) | text + match µs/record (wall) | matched |")
    print("|---|---|---|---|---|---|---|")
    for (kind, batch), passes in runs.items():
        median = {k: statistics.median(r[k] for r in passes) for k in passes[0]}
        n = median["records"]
        print(f"| {kind} | {batch} | {n / median['wall_s']:.0f} | {n / median['cpu_s']:.0f} | "
              f"{1e6 * median['read_s'] / n:.0f} | {1e6 * median['text_match_s'] / n:.0f} | "
              f"{median['matched']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
