"""Evidence bundle benchmark: size (median, p95) of the WACZ bundle of each demo-site page and
the time to make it (median, p95), with a real headless Chromium and the demo TSA.

    .venv/bin/python bench/evidence_bench.py                 # every page of demo/site, 3 rounds
    .venv/bin/python bench/evidence_bench.py --rounds 1

Everything is local: demo/site/ is served on 127.0.0.1, each page is fetched by the crawler's
Fetcher (its raw exchange kept, as a crawl does), then captured as the capture task does it
(crawler.evidence.capture): the WARC of the exchange (crawler.lib.evidence.warc), a screenshot
and a PDF print in Chromium (Renderer.snapshot, every request of the page through the SSRF
guard), the text, and the WACZ (crawler.lib.evidence.bundle) with an RFC 3161 timestamp from the
demo TSA (crawler.lib.evidence.demo_tsa). The capture time counts these steps; not the database
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
    from crawler.lib.config import CrawlConfig
    from crawler.lib.evidence.bundle import build_wacz
    from crawler.lib.evidence.demo_tsa import start_demo_tsa
    from crawler.lib.evidence.timestamp import TsaConfig, request_timestamp
    from crawler.lib.evidence.warc import exchange_warc
    from crawler.lib.fetch import Fetcher
    from crawler.lib.render import Renderer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    pages = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                   if not str(p.relative_to(SITE)).startswith("private"))
    config = CrawlConfig(allow_addresses=("127.0.0.1",), render_settle_seconds=1.0)
    fetcher, renderer = Fetcher(config), Renderer(config)
    with tempfile.TemporaryDirectory() as tmp:
        tsa = start_demo_tsa(Path(tmp) / "tsa")
        tsa_config = TsaConfig(urls=(tsa.url,))

        def stamp(datapackage: bytes) -> dict:
            token = request_timestamp(hashlib.sha256(datapackage).digest(), tsa_config)
            return {"timestamp": {"tsr": token.response.hex(), "tsa": token.tsa_url}}

        sizes, seconds, shots, prints = [], [], [], []
        renderer.snapshot(base, "<html><body>warm-up</body></html>", width=1280,
                          max_height=10_000, timeout=30)
        for _ in range(args.rounds):
            for page in pages:
                result = fetcher.fetch(base + page)
                started = time.perf_counter()
                html = result.body.decode("utf-8", "replace")
                shot = renderer.snapshot(result.final_url, html, width=1280, max_height=10_000,
                                         timeout=30)
                files = {"evidence/text.txt": html.encode("utf-8")}
                if shot.png:
                    files["evidence/screenshot.png"], files["evidence/page.pdf"] = shot.png, shot.pdf
                bundle = build_wacz(exchange_warc(result.exchange, software="bench"), files,
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
