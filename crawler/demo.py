"""The bundled demo site (demo/site/) served on loopback, and the demo scan of `make run`.

``serve`` runs a ThreadingHTTPServer over demo/site/ in a background thread. The server is
Python's SimpleHTTPRequestHandler (it answers If-Modified-Since with 304, so a second scan shows
unchanged pages), except that ``{BASE}`` in sitemap.xml and feed.xml becomes the server's own
address (sitemaps need absolute URLs and the port is chosen at run time).
``scan_demo_site`` is a step of ``manage.py demo`` (settings.DEMO_STEPS): it serves the site
unless it is already served, registers it as a target site, scans it through the Celery workers
and prints the scan's summary; ``scan_demo_platform`` does the same for the second demo site,
demo/platform_site/, on the demo platform's host (http://localhost:8932). The workers must allow loopback: CRAWLER_ALLOW_ADDRESSES=127.0.0.1.
"""

from __future__ import annotations

import functools
import io
import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SITE_DIR = Path(__file__).resolve().parent.parent / "demo" / "site"
DEMO_SITE_NAME = "示例转载站 (demo)"
DEFAULT_PORT = 8931
# The second demo site, on the demo platform's host (localhost) and its own port.
PLATFORM_DIR = SITE_DIR.parent / "platform_site"
PLATFORM_SITE_NAME = "示例内容平台 (demo)"
PLATFORM_PORT = 8932
#: The loopback RDAP server of `make run` (lib.crawl.rdap_server, DEMO_RDAP_PORT).
RDAP_PORT = 8933
# the site's own pages; the real news pages link to their original sites' paths, which would
# only be 404s here
PATH_PATTERNS = [r"^/$", r"^/(news|reprint|private)/[\w-]+\.html$", r"^/(sitemap|feed)\.xml$", r"^/calendar/"]


class _Handler(SimpleHTTPRequestHandler):
    base = ""

    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def send_head(self):
        path = self.translate_path(self.path)
        if not path.endswith(".xml") or not os.path.isfile(path):
            return super().send_head()
        body = Path(path).read_text(encoding="utf-8").replace("{BASE}", self.base).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml" if path.endswith("feed.xml") else "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@dataclass
class DemoServer:
    """A running demo-site server: ``url`` (http://127.0.0.1:PORT, str) and ``stop()``."""

    url: str
    server: ThreadingHTTPServer
    thread: threading.Thread

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()


def serve(port: int = 0, host: str = "127.0.0.1", directory: Path = SITE_DIR) -> DemoServer:
    """Serve ``directory`` on ``host``:``port`` (0 = a free port) in a daemon thread.

    Returns a DemoServer. Raises OSError when the port is taken, FileNotFoundError when the
    directory does not exist.
    """
    if not directory.is_dir():
        raise FileNotFoundError(f"demo site folder {directory} does not exist")
    handler = type("DemoHandler", (_Handler,), {})
    server = ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(directory)))
    server.daemon_threads = True
    url = f"http://{host}:{server.server_address[1]}"
    handler.base = url
    thread = threading.Thread(target=server.serve_forever, args=(0.2,), daemon=True, name="demo-site")
    thread.start()
    return DemoServer(url, server, thread)


def _answering(url: str) -> bool:
    host, port = url.removeprefix("http://").split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def _scan_served(stdout, name: str, directory: Path, port: int, host: str, start_paths: list[str],
                 patterns: list[str], summary_label: str) -> dict:
    """Serve ``directory`` on 127.0.0.1:``port`` unless something answers there already,
    register it as target site ``name`` (start URLs ``start_paths`` on http://``host``:port),
    scan it through the workers, print the scan's summary to ``stdout`` and return its main
    figures (dict: label -> value, ``summary_label`` naming the scan)."""
    # Imported here: tracker.run imports this module before Django is set up.
    from django.conf import settings

    from crawler.scan_actions import do_start_scan
    from crawler.scans import wait_for
    from crawler.sites import register_site

    url = f"http://127.0.0.1:{port}"
    server = None if port and _answering(url) else serve(port, directory=directory)
    port = int((server.url if server else url).rsplit(":", 1)[1])
    base = f"http://{host}:{port}"
    try:
        site, _ = register_site(name, [base + p for p in start_paths], delay_seconds=0.1,
                                update=True, max_pages=200, max_depth=2, path_patterns=patterns)
        stdout.write(f"Scanning {base}/ (target site #{site.pk}) through the workers ...")
        started = time.monotonic()
        scan = do_start_scan(site, trigger="demo")
        if scan.status == "running":
            scan = wait_for(scan.pk, settings.DEMO_SCAN_TIMEOUT_SECONDS, sys.stderr)
        summary = scan.summary()
        stdout.write(f"Scan of {name} done in {time.monotonic() - started:.1f} s:\n"
                     + json.dumps(summary, ensure_ascii=False, indent=1))
        return {summary_label: f"#{scan.pk} {scan.status}", "pages fetched": scan.pages_fetched,
                "new or changed pages": scan.pages_new + scan.pages_changed,
                "unchanged pages": scan.pages_unchanged, "URLs refused or failed": scan.errors,
                "matches found": scan.matches_found, "new matches": scan.matches_new}
    finally:
        if server:
            server.stop()


def scan_demo_site(stdout) -> dict:
    """Demo step: serve demo/site (on DEMO_SITE_PORT, default 8931, 0 = any free port, unless
    something already answers there, e.g. ``manage.py demo_site`` started by `make run`), register it as the target
    site "示例转载站 (demo)" (start URLs: the index, sitemap.xml, feed.xml), scan it through the
    workers, print the scan's summary (ScanRun.summary) to ``stdout`` and return its main
    figures for the demo's closing summary (dict: label -> value).
    """
    port = int(os.environ.get("DEMO_SITE_PORT", DEFAULT_PORT))
    return _scan_served(stdout, DEMO_SITE_NAME, SITE_DIR, port, "127.0.0.1",
                        ["/", "/sitemap.xml", "/feed.xml"], PATH_PATTERNS, "demo scan")


def scan_demo_platform(stdout) -> dict:
    """Demo step: serve demo/platform_site (on DEMO_PLATFORM_PORT, default 8932, unless
    something answers there) as http://localhost:PORT, the host of the demo platform of the
    platforms' registry (read when settings.PLATFORM_REGISTRY_DEMO), register it as
    "示例内容平台 (demo)" and scan it as ``scan_demo_site`` does: its case is filed with a
    complaint package. Returns its main figures (dict)."""
    port = int(os.environ.get("DEMO_PLATFORM_PORT", PLATFORM_PORT))
    return _scan_served(stdout, PLATFORM_SITE_NAME, PLATFORM_DIR, port, "localhost", ["/"],
                        [r"^/$", r"^/article/[\w-]+\.html$"], "demo platform scan")
