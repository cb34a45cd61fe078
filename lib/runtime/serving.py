"""An HTTP server (``socketserver``) served from a daemon thread of this process: the demo
authorities and the tests' loopback servers; ``QuietHandler``, a request handler that logs
nothing and answers with one call."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from socketserver import BaseServer

#: How often the serving thread looks for ``server.shutdown()`` (seconds): the longest a
#: shutdown waits (socketserver's own default is 0.5 s).
STOP_POLL_SECONDS = 0.05


def serve_in_thread(server: BaseServer, name: str | None = None) -> threading.Thread:
    """Start ``server.serve_forever`` in a daemon thread called ``name``, which looks for a
    shutdown every STOP_POLL_SECONDS. Returns the thread, started; ``server.shutdown()``
    ends it."""
    thread = threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,),
                              name=name, daemon=True)
    thread.start()
    return thread


class QuietHandler(BaseHTTPRequestHandler):
    """An HTTP/1.1 request handler that logs nothing (loopback servers of the demo, the tests
    and the benchmarks); ``reply(status, content_type, body)`` sends a whole answer."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status: int, content_type: str, body: bytes) -> None:
        """Send ``status`` with ``body`` (bytes) as ``content_type``, its length declared."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
