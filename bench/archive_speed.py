"""Web-archive scan speed: records per second of one worker process reading a WET file.

    .venv/bin/python -m bench.archive_speed --data ../shared/data            # 100,000 records
    .venv/bin/python -m bench.archive_speed --data ../shared/data --index redis --repeat 5

The bench writes a Common Crawl-like WET file (gzip, one member a record, warcio) of
``--records`` conversion records from the corpora: People's Daily documents (1998) and novel
chapters that are not indexed, and one record in ``--copy-every`` that copies a 1,500-character
excerpt of an indexed work inside a news document. It indexes ``--works`` chapters (the
engine over a MemoryIndex, or with ``--index redis`` over a RedisIndex on an embedded Redis
server: one round trip per record's lookup, as in a worker) and reads the file ``--repeat``
times in this one process, each pass timed in wall and CPU seconds and split into reading
(crawler.lib.archive.reader) and text and matching (crawler.lib.archive.text.matched_text,
Engine.match): the work of crawler.archives per record, without PostgreSQL and MongoDB, which only the few
matching records reach. Printed: the median pass and the load average around the runs, as
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


def one_pass(path: Path, engine, max_bytes: int) -> dict:
    """Read the whole file once; returns records, matched records and seconds per stage."""
    from crawler.lib.archive.reader import ArchiveRecord, read_records
    from crawler.lib.archive.text import matched_text

    t = {"read": 0.0, "text_match": 0.0}
    records = matched = 0
    wall, cpu = time.perf_counter(), time.process_time()
    with open(path, "rb") as stream:
        mark = time.perf_counter()
        for item in read_records(stream, max_bytes=max_bytes):
            got = time.perf_counter()
            t["read"] += got - mark
            if not isinstance(item, ArchiveRecord):
                raise RuntimeError(f"fault: {item}")
            records += 1
            matched += matched_text(item, engine) is not None
            mark = time.perf_counter()
            t["text_match"] += mark - got
    return {"records": records, "matched": matched, "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu, **{f"{k}_s": v for k, v in t.items()}}


def build_engine(kind: str, tmp: Path):
    """(Engine, stop function) over a MemoryIndex, or a RedisIndex on an embedded Redis."""
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    if kind == "memory":
        return Engine(MemoryIndex(), MemoryWorkStore()), lambda: None
    import redis

    from fingerprint.index.redis import RedisIndex
    from tracker.runtime import embedded

    server = embedded.start_redis(tmp / "redis", persist=False)
    client = redis.Redis.from_url(server.url)
    return Engine(RedisIndex(client, prefix="bench"), MemoryWorkStore()), server.stop


def main(argv: list[str] | None = None) -> int:
    """Run the bench (see the module docstring); returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--works", type=int, default=300)
    parser.add_argument("--copy-every", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--index", choices=["memory", "redis"], default="memory")
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
        engine, stop = build_engine(args.index, tmp)
        try:
            for w in works:
                engine.add_work(w.id, w.text)
            one_pass(path, engine, args.max_bytes)  # warm: caches filled, file in the page cache
            load_before = os.getloadavg()
            runs = []
            for _ in range(args.repeat):
                runs.append(one_pass(path, engine, args.max_bytes))
                print(json.dumps(runs[-1]), flush=True)
            load_after = os.getloadavg()
        finally:
            stop()
    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    n = median["records"]
    print(f"\nindex: {args.index}; {args.works} works; {n:.0f} records ({copies} copies, "
          f"{median['matched']:.0f} matched); load average before {load_before}, after {load_after}\n")
    print("| records/s (wall) | records/s (CPU) | read µs/record (wall) | "
          "text + match µs/record (wall) |")
    print("|---|---|---|---|")
    print(f"| {n / median['wall_s']:.0f} | {n / median['cpu_s']:.0f} | "
          f"{1e6 * median['read_s'] / n:.0f} | {1e6 * median['text_match_s'] / n:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
