"""The capture environment, as web-evidence practice records it beside a capture (可信时间戳 web
capture, notarial 取证): which machine captured, what the DNS answered for the page's host,
which browser rendered it, and how far the machine's clock was from a reference NTP server.

The clock is checked with ntplib (SNTP, RFC 4330) against the configured server; no server,
or one that does not answer in time, is recorded as "not checked" with the reason.
"""

from __future__ import annotations

import socket
import subprocess
from functools import cache
from urllib.parse import urlsplit

import ntplib


def capture_environment(url: str, *, chromium_path: str, ntp_server: str,
                        ntp_timeout_seconds: float) -> dict:
    """The environment of a capture of ``url`` now: ``host`` (this machine's name),
    ``host_addresses`` (its addresses, from its name), ``dns`` ({"host", "answers": the
    addresses the resolver gives for the page's host now, or "error"}), ``browser`` (the
    Chromium at ``chromium_path``'s version line, '' when absent) and ``clock`` (see
    ``clock_check``). Never raises: what cannot be read is recorded as such."""
    host = urlsplit(url).hostname or ""
    return {"host": socket.gethostname(), "host_addresses": _addresses(socket.gethostname()),
            "dns": _dns(host), "browser": browser_version(chromium_path),
            "clock": clock_check(ntp_server, ntp_timeout_seconds)}


def clock_check(server: str, timeout_seconds: float) -> dict:
    """This machine's clock against ``server`` ("host" or "host:port", '' for none):
    {"status": "checked", "ntp_server", "offset_seconds" (server minus this clock, float),
    "stratum"} or {"status": "not checked", "ntp_server", "reason"}."""
    if not server:
        return {"status": "not checked", "ntp_server": "", "reason": "no NTP server configured"}
    host, _, port = server.rpartition(":") if server.count(":") == 1 else (server, "", "ntp")
    try:
        answer = ntplib.NTPClient().request(host, version=3, port=port or "ntp",
                                            timeout=timeout_seconds)
    except (ntplib.NTPException, OSError, ValueError) as exc:
        return {"status": "not checked", "ntp_server": server, "reason": f"{type(exc).__name__}: {exc}"}
    return {"status": "checked", "ntp_server": server, "offset_seconds": round(answer.offset, 6),
            "stratum": answer.stratum}


@cache
def browser_version(chromium_path: str) -> str:
    """``chromium --version`` ('' when it cannot be run); read once per process."""
    try:
        done = subprocess.run([chromium_path, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def _resolve(host: str) -> list[str]:
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, None)})


def _addresses(host: str) -> list[str]:
    try:
        return _resolve(host)
    except (socket.gaierror, UnicodeError):
        return []


def _dns(host: str) -> dict:
    try:
        return {"host": host, "answers": _resolve(host)}
    except (socket.gaierror, UnicodeError) as exc:
        return {"host": host, "error": str(exc)}
