"""A web search service on loopback that answers in SearXNG's JSON format (Django-free): the
search engine of `make run`'s demo (``crawler.demo_search``) and of the simulated web of the tests
and benchmarks (``bench.simweb``), so that search discovery runs against a real HTTP server.

``SearchService(pages)`` indexes pages given as (url, title, text) in an in-memory SQLite FTS5
table with the ``trigram`` tokenizer: a quoted phrase matches where its characters appear in
that order, as a search engine's exact-phrase search does. ``serve`` answers
``GET /search?q=...&format=json`` with ``{"query", "results": [{"url", "title", "content",
"engine"}]}``, best ``bm25`` first, at most ``RESULTS``; any other path or format is a 404.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from lib.runtime.serving import QuietHandler, serve_in_thread

RESULTS = 10  # results per query, as a first page of results
SNIPPET_TOKENS = 16  # the snippet's length, in FTS5 tokens (trigrams)


class SearchService:
    """The search service over ``pages`` ((url, title, text) tuples of str).

    ``search(query)``: the results of a query; ``serve(port, host)`` answers it over HTTP
    (returns the service's root URL, for ``TRACKER_SEARCH_PROVIDERS=searxng=<url>``);
    ``stop()`` ends serving; ``queries``: queries answered so far (int). Thread-safe.
    """

    def __init__(self, pages: Iterable[tuple[str, str, str]]):
        self.queries = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE VIRTUAL TABLE pages USING fts5(url UNINDEXED, title, body, "
                         "tokenize='trigram')")
        self._db.executemany("INSERT INTO pages VALUES (?, ?, ?)", pages)
        self._db.commit()

    def search(self, query: str) -> list[dict]:
        """The results of ``query`` (str: an exact phrase in double quotes, or words taken as
        one phrase) as SearXNG's result dicts (url, title, content, engine), best first; []
        for a phrase under three characters (the trigram index needs three)."""
        phrase = query.strip().strip('"')
        if len(phrase) < 3:
            return []
        with self._lock:
            self.queries += 1
            rows = self._db.execute(
                "SELECT url, title, snippet(pages, 2, '', '', '…', ?) FROM pages "
                "WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
                (SNIPPET_TOKENS, '"' + phrase.replace('"', '""') + '"', RESULTS)).fetchall()
        return [{"url": u, "title": t, "content": c, "engine": "fts5"} for u, t, c in rows]

    def serve(self, port: int = 0, host: str = "127.0.0.1") -> str:
        """Answer on ``host``:``port`` (0: a free port) from a daemon thread. Returns the root
        URL (``http://host:port``). Raises OSError when the port is taken."""
        server = ThreadingHTTPServer((host, port), _handler(self))
        server.daemon_threads = True
        serve_in_thread(server, "search-service")
        self._server = server
        return f"http://{host}:{server.server_address[1]}"

    def stop(self) -> None:
        """Stop answering and close the socket (nothing when not serving)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _handler(service: SearchService):
    class Handler(QuietHandler):
        def do_GET(self):
            parts = urlsplit(self.path)
            args = parse_qs(parts.query)
            if parts.path != "/search" or args.get("format") != ["json"]:
                return self.reply(404, "text/plain", b"not found")
            query = args.get("q", [""])[0]
            body = json.dumps({"query": query, "results": service.search(query)},
                              ensure_ascii=False)
            return self.reply(200, "application/json", body.encode())

    return Handler
