"""Evidence bundle benchmark: size (median, p95) of the WACZ bundle of each demo-site page and
the time to make it (median, p95), with a real headless Chromium and the demo TSA.

    .venv/bin/python bench/evidence_bench.py                 # every page of demo/site, 3 rounds
    .venv/bin/python bench/evidence_bench.py --rounds 1
    .venv/bin/python bench/evidence_bench.py --witnessed --only reprint   # through warcprox

With ``--witnessed`` the picture comes from a witnessed visit instead (crawler.evidence.capture:
Chromium loads the page through a recording proxy, warcprox from .venv-recorder, started for
each capture, whose WARC records and the DOM snapshot join the bundle's WARC); the time then
counts the proxy's start and stop too; ``--film`` adds the screen recording (the MP4 made
from Chromium's screencast, lib.evidence.video) to it and to the bundle. ``--only
PREFIX`` keeps the pages under that folder.

Everything is local: demo/site/ is served on 127.0.0.1, each page is fetched by the crawler's
Fetcher (its raw exchange kept, as a crawl does), then captured as the capture task does it
(crawler.evidence.capture): the WARC of the exchange (lib.evidence.warc), a screenshot
and a PDF print in Chromium (Renderer.snapshot, every request of the page through the SSRF
guard), the text, and the WACZ (lib.evidence.bundle) with an RFC 3161 timestamp from the
demo TSA (lib.evidence.demo_tsa). The capture time counts these steps; not the database
rows, the storage write (one file) nor the provenance page's template, which are milliseconds.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import statistics
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SITE = ROOT / "demo" / "site"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    from lib.crawl.config import CrawlConfig
    from lib.crawl.fetch import Fetcher
    from lib.crawl.render import Renderer
    from lib.evidence.bundle import build_wacz
    from lib.evidence.demo_tsa import start_demo_tsa
    from lib.evidence.timestamp import TsaConfig, request_timestamp
    from lib.evidence.video import screen_recording
    from lib.evidence.warc import exchange_warc

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--witnessed", action="store_true")
    parser.add_argument("--film", action="store_true")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    pages = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                   if not str(p.relative_to(SITE)).startswith("private")
                   and str(p.relative_to(SITE)).startswith(args.only))
    config = CrawlConfig(allow_addresses=("127.0.0.1",), render_settle_seconds=1.0)
    fetcher, renderer = Fetcher(config), Renderer(config)
    with tempfile.TemporaryDirectory() as tmp:
        tsa = start_demo_tsa(Path(tmp) / "tsa")
        tsa_config = TsaConfig(urls=(tsa.url,))

        def stamp(datapackage: bytes) -> dict:
            token = request_timestamp(hashlib.sha256(datapackage).digest(), tsa_config)
            return {"timestamp": {"tsr": token.response.hex(), "tsa": token.tsa_url}}

        sizes, seconds, shots, prints, films = [], [], [], [], []
        renderer.snapshot(base, "<html><body>warm-up</body></html>", width=1280,
                          max_height=10_000, timeout=30)
        for _ in range(args.rounds):
            for page in pages:
                result = fetcher.fetch(base + page)
                started = time.perf_counter()
                html = result.body.decode("utf-8", "replace")
                warc = exchange_warc(result.exchange, software="bench")
                if args.witnessed:
                    shot, visit_warc = _witnessed(renderer, config, result.final_url, tmp,
                                                  args.film)
                    warc += visit_warc
                else:
                    shot = renderer.snapshot(result.final_url, html, width=1280,
                                             max_height=10_000, timeout=30)
                files = {"evidence/text.txt": html.encode("utf-8")}
                if shot.png:
                    files["evidence/screenshot.png"], files["evidence/page.pdf"] = shot.png, shot.pdf
                if shot.frames:
                    files["evidence/visit.mp4"] = screen_recording(
                        shot.frames, result.final_url, width=1280, height=900, fps=10,
                        tail_seconds=1.0)
                    films.append(len(files["evidence/visit.mp4"]))
                bundle = build_wacz(warc, files,
                                    main_url=result.final_url, captured_at=result.exchange.hops[-1].started,
                                    title=page, description="bench", software="bench", stamp=stamp)
                seconds.append(time.perf_counter() - started)
                sizes.append(len(bundle.data))
                shots.append(len(shot.png))
                prints.append(len(shot.pdf))
        renderer.close()
        tsa.stop()
    server.shutdown()
    print(f"{len(pages)} demo pages x {args.rounds} rounds = {len(sizes)} bundles")
    print(f"bundle size   median {statistics.median(sizes) / 1024:.0f} KiB   "
          f"p95 {_p95(sizes) / 1024:.0f} KiB   max {max(sizes) / 1024:.0f} KiB")
    print(f"screenshot    median {statistics.median(shots) / 1024:.0f} KiB   "
          f"p95 {_p95(shots) / 1024:.0f} KiB")
    print(f"PDF print     median {statistics.median(prints) / 1024:.0f} KiB   "
          f"p95 {_p95(prints) / 1024:.0f} KiB")
    print(f"capture time  median {statistics.median(seconds):.2f} s   p95 {_p95(seconds):.2f} s")
    if films:
        print(f"recording     median {statistics.median(films) / 1024:.0f} KiB   "
              f"p95 {_p95(films) / 1024:.0f} KiB")
    return 0


def _witnessed(renderer, config, url: str, tmp: str, film: bool):
    """A witnessed visit of ``url``: (RenderResult, the proxy's WARC and the DOM snapshot's)."""
    from datetime import UTC, datetime

    from lib.evidence.recorder import Recorder
    from lib.evidence.warc import witness_warc

    started = datetime.now(UTC)
    with Recorder(str(ROOT / ".venv-recorder" / "bin" / "python"), f"{tmp}/recorder-ca.pem",
                  config.allow_addresses, 50 * 1024 * 1024) as recorder:
        shot = renderer.witness(url, proxy=recorder.proxy_url, proxy_spki=recorder.ca_spki(),
                                width=1280, max_height=10_000, timeout=30,
                                max_frames=600 if film else 0)
        recording = recorder.finish()
    return shot, recording.warc + witness_warc(url, shot.html, started, {"bench": True})


if __name__ == "__main__":
    sys.exit(main())
