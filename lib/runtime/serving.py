"""An HTTP server (``socketserver``) served from a daemon thread of this process: the demo
authorities and the tests' loopback servers."""

from __future__ import annotations

import threading
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
