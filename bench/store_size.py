"""Bytes per stored work: the engine's work records as the work store encodes them.

Run from the repository root::

    .venv/bin/python -m bench.store_size --works 300

Takes every 20th chapter of ``novels_dev.jsonl.gz`` (of at least 200 characters) up to
``--works``, builds each record's text, letters and offset map as ``Engine.add_work`` stores
them, encodes it with :mod:`fingerprint.store.codec` into the BSON document MongoWorkStore and
MemoryWorkStore write, and prints (JSON) the bytes per work and per character, per field, and
the decoding time per million characters (``bson.decode`` + ``codec.decode``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/store_size.py``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bson
import numpy as np

from bench.corpus import DATA_DIR, NOVELS_FILE
from fingerprint import Engine
from fingerprint.store import codec

FIELDS = ("text", "letters", "offsets")


def records(path: Path, works: int) -> list[dict]:
    """The records (text, letters, offsets as uint32) of every 20th chapter, up to ``works``."""
    engine = Engine(None, None)
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            text = json.loads(line)["text"]
            if i % 20 or len(text) < 200:
                continue
            letters = engine.letters(text)
            out.append({"text": text, "letters": letters.letters,
                        "offsets": letters.offsets.astype(np.uint32)})
            if len(out) >= works:
                break
    return out


def measure(recs: list[dict]) -> dict:
    """Bytes per work and per character (whole document and per field), decode seconds per
    million characters."""
    chars = sum(len(r["text"]) for r in recs)
    docs = [bson.encode({"_id": "work", "record": codec.encode(r)}) for r in recs]
    start = time.perf_counter()
    for doc in docs:
        codec.decode(bson.decode(doc)["record"])
    decode_s = time.perf_counter() - start
    return {
        "works": len(recs), "chars_per_work": round(chars / len(recs)),
        "bytes_per_work": round(sum(map(len, docs)) / len(recs)),
        "bytes_per_char": round(sum(map(len, docs)) / chars, 2),
        "field_bytes_per_char": {f: round(sum(len(bson.encode({"v": codec.encode(r[f])}))
                                              for r in recs) / chars, 2) for f in FIELDS},
        "decode_s_per_million_chars": round(decode_s / chars * 1e6, 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, measure, print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=300)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    print(json.dumps(measure(records(args.data / NOVELS_FILE, args.works)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
