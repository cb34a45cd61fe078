"""Web-archive test material: WARC and WET files written with warcio, a loopback file server
with HTTP Range support and a loopback CDX index server (the pywb/CDX JSON-lines API). Test
modules import it as ``from tests import archive_files``."""

from __future__ import annotations

import io
import json
import re
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from lib.runtime.serving import serve_in_thread


@dataclass(frozen=True)
class Page:
    """One record to write: ``uri``, ``text`` (a WET conversion's text, or the body of an HTML
    response), ``html`` (True: a WARC response with that HTML), ``raw`` (bytes of the payload
    instead of text, e.g. a gzip bomb's)."""

    uri: str
    text: str = ""
    html: bool = False
    raw: bytes | None = None


def html_page(title: str, text: str) -> str:
    """An HTML page whose article holds ``text``'s paragraphs."""
    paras = "".join(f"<p>{p}</p>" for p in text.split("\n") if p.strip())
    return (f"<html><head><title>{title}</title></head><body><div class='nav'>首页 | 小说</div>"
            f"<article><h1>{title}</h1>{paras}</article></body></html>")


def write(path: Path, pages: list[Page], *, gzip: bool = True, warcinfo: bool = True) -> list[int]:
    """Write ``pages`` as one WARC/WET file at ``path`` (one gzip member a record when
    ``gzip``), after a warcinfo record when ``warcinfo``. Returns each page's record offset."""
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=gzip)
    if warcinfo:
        writer.write_record(writer.create_warcinfo_record("test.warc", {"software": "tests"}))
    offsets = []
    for page in pages:
        offsets.append(buf.tell())
        payload = page.raw if page.raw is not None else page.text.encode("utf-8")
        if page.html:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                       protocol="HTTP/1.1")
            record = writer.create_warc_record(page.uri, "response", payload=io.BytesIO(payload),
                                               http_headers=headers)
        else:
            record = writer.create_warc_record(page.uri, "conversion", payload=io.BytesIO(payload),
                                               warc_content_type="text/plain")
        writer.write_record(record)
    path.write_bytes(buf.getvalue())
    return offsets


@dataclass
class Servers:
    """The loopback file and CDX servers: ``files`` (name -> bytes served under /data/NAME),
    ``captures`` (CDX rows: dicts with url, filename, offset, length ...), ``requests`` (path
    and Range header of each file request), ``chunk`` bytes written per ``chunk_delay``
    seconds (a slow server), ``base`` (http://127.0.0.1:PORT)."""

    files: dict = field(default_factory=dict)
    captures: list = field(default_factory=list)
    requests: list = field(default_factory=list)
    cdx_queries: list = field(default_factory=list)
    chunk: int = 1 << 20
    chunk_delay: float = 0.0
    base: str = ""

    def url(self, name: str) -> str:
        return f"{self.base}/data/{name}"


def serve(servers: Servers) -> ThreadingHTTPServer:
    """Start the loopback server of ``servers`` in a thread (sets ``servers.base``); the
    caller shuts it down."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            parts = urlsplit(self.path)
            if parts.path.endswith("-index"):  # a crawl's CDX index
                return self._cdx(parse_qs(parts.query))
            name = parts.path.removeprefix("/data/")
            servers.requests.append((parts.path, self.headers.get("Range", "")))
            if name not in servers.files:
                return self._answer(404, b"missing")
            data = servers.files[name]
            wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            if not wanted:
                return self._answer(200, data)
            start = int(wanted.group(1))
            end = min(int(wanted.group(2)) + 1 if wanted.group(2) else len(data), len(data))
            if start >= len(data):
                return self._answer(416, b"", {"Content-Range": f"bytes */{len(data)}"})
            self._answer(206, data[start:end],
                         {"Content-Range": f"bytes {start}-{end - 1}/{len(data)}"})

        def _cdx(self, query):
            servers.cdx_queries.append(query)
            pattern, kind = query["url"][0], query.get("matchType", ["exact"])[0]
            rows = [c for c in servers.captures
                    if (kind == "domain" and urlsplit(c["url"]).hostname.endswith(pattern))
                    or (kind == "prefix" and c["url"].startswith(pattern))]
            if not rows:
                return self._answer(404, b"No Captures found")
            body = "".join(json.dumps(r) + "\n" for r in rows).encode()
            self._answer(200, body, {"Content-Type": "text/x-ndjson"})

        def _answer(self, status, body, headers=None):
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(0, len(body), servers.chunk):
                try:
                    self.wfile.write(body[i:i + servers.chunk])
                    self.wfile.flush()
                except OSError:
                    return
                if servers.chunk_delay:
                    time.sleep(servers.chunk_delay)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    servers.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    serve_in_thread(httpd)
    return httpd
