"""Memory and time of the bundle verifier on archive bombs, as the web process runs it.

Writes three uploads into a temporary folder: a genuine small bundle, one whose
``datapackage.json`` is GIB_OF_ZEROS GiB of zeros deflated (about a megabyte on the wire), and
one whose WARC gains a gzip record of as many zeros. Each is verified in a fresh process with
the default limits (those of settings: ARCHIVE_MAX_*), which reports its resident memory before
and at its peak (``ru_maxrss``) and the verification's wall time. Run:
``.venv/bin/python -m bench.verify_bombs [--repeat 5]``; prints one JSON line per bundle with
the medians over the runs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

GIB_OF_ZEROS = 1

_PROBE = """
import json, resource, sys, time
from lib.evidence.verify import verify_bundle
idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
verdict = verify_bundle(sys.argv[1])
took = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"status": verdict.status, "code": verdict.failure.code if verdict.failure else "",
                  "seconds": took, "growth_mb": (peak - idle) / 1024}))
"""


def _bundles(folder: Path) -> dict[str, Path]:
    from lib.crawl.exchange import Exchange, Hop
    from lib.evidence.bundle import build_wacz
    from lib.evidence.warc import exchange_warc
    from tests.bundles import entries, evidence_files, forged, zeros_entry

    hop = Hop(started=datetime.now(UTC), method="GET", url="http://copy.example/1.html",
              target="/1.html", request_headers=[["Host", "copy.example"]], status=200,
              reason="OK", response_headers=[["Content-Type", "text/html"]],
              body="<p>盗版正文</p>".encode() * 200, body_complete=True)
    warc = exchange_warc(Exchange([hop]), software="bench")
    genuine = build_wacz(warc, evidence_files(warc), main_url=hop.url, captured_at=hop.started,
                         title="bench", description="bench", software="bench").data
    paths = {"genuine": folder / "genuine.wacz", "datapackage_bomb": folder / "dp-bomb.wacz",
             "warc_record_bomb": folder / "warc-bomb.wacz"}
    paths["genuine"].write_bytes(genuine)
    with zipfile.ZipFile(paths["datapackage_bomb"], "w") as bomb:
        for info, body in entries(genuine):
            if info.filename != "datapackage.json":
                bomb.writestr(info, body)
        zeros_entry(bomb, "datapackage.json", GIB_OF_ZEROS * 2**30)
    member = folder / "member.gz"
    with gzip.open(member, "wb", compresslevel=1) as out:
        out.write(b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: %d\r\n\r\n" % 2**30)
        for _ in range(GIB_OF_ZEROS * 1024):
            out.write(bytes(2**20))
    warc_bomb = forged(genuine, {"archive/data.warc.gz": warc + member.read_bytes()})
    paths["warc_record_bomb"].write_bytes(warc_bomb)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = _bundles(Path(tmp))
        runs: dict[str, list[dict]] = {name: [] for name in paths}
        for _ in range(args.repeat):  # interleaved
            for name, path in paths.items():
                out = subprocess.run([sys.executable, "-c", _PROBE, str(path)], check=True,
                                     capture_output=True, text=True).stdout
                runs[name].append(json.loads(out))
        for name, results in runs.items():
            print(json.dumps({"bundle": name, "upload_bytes": paths[name].stat().st_size,
                              "verdict": results[0]["status"], "code": results[0]["code"],
                              "median_seconds": round(statistics.median(r["seconds"] for r in results), 3),
                              "max_seconds": round(max(r["seconds"] for r in results), 3),
                              "median_growth_mb": round(statistics.median(r["growth_mb"] for r in results), 1),
                              "max_growth_mb": round(max(r["growth_mb"] for r in results), 1)}))


if __name__ == "__main__":
    main()
