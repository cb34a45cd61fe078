"""The capture environment: a real NTP exchange with an SNTP server on loopback whose clock runs
five seconds ahead, one that never answers, none configured; the DNS answers and the browser."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import ntplib
import pytest

from lib.evidence.environment import capture_environment, clock_check

AHEAD_SECONDS = 5.0


@pytest.fixture
def ntp_server():
    """'127.0.0.1:PORT' of an SNTP server (RFC 4330 answers built with ntplib's packet) whose
    clock is AHEAD_SECONDS ahead of this machine's."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                data, peer = sock.recvfrom(1024)
            except TimeoutError:
                continue
            asked = ntplib.NTPPacket()
            asked.from_data(data)
            now = ntplib.system_to_ntp_time(time.time() + AHEAD_SECONDS)
            answer = ntplib.NTPPacket(version=3, mode=4, tx_timestamp=now)
            answer.stratum, answer.orig_timestamp, answer.recv_timestamp = 2, asked.tx_timestamp, now
            sock.sendto(answer.to_data(), peer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{sock.getsockname()[1]}"
    stop.set()
    thread.join()
    sock.close()


def test_the_clock_offset_from_the_ntp_server_is_recorded(ntp_server):
    checked = clock_check(ntp_server, 2.0)
    assert checked["status"] == "checked" and checked["stratum"] == 2
    assert abs(checked["offset_seconds"] - AHEAD_SECONDS) < 1.0


def test_an_ntp_server_that_does_not_answer_leaves_the_clock_not_checked():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))  # bound, never answers
        checked = clock_check(f"127.0.0.1:{silent.getsockname()[1]}", 0.5)
    assert checked["status"] == "not checked" and "NTPException" in checked["reason"]
    assert clock_check("", 0.5) == {"status": "not checked", "ntp_server": "",
                                    "reason": "no NTP server configured"}


def test_the_environment_names_the_machine_the_dns_answers_and_the_browser(ntp_server):
    chromium = "/usr/bin/chromium"
    found = capture_environment("http://localhost:8931/book/1.html", chromium_path=chromium,
                                ntp_server=ntp_server, ntp_timeout_seconds=2.0)
    assert found["host"] == socket.gethostname()
    assert "127.0.0.1" in found["dns"]["answers"] and found["dns"]["host"] == "localhost"
    assert found["clock"]["status"] == "checked"
    assert ("Chromium" in found["browser"]) == Path(chromium).exists()
    nowhere = capture_environment("http://no-such-host.invalid/", chromium_path="/nonexistent",
                                  ntp_server="", ntp_timeout_seconds=0.5)
    assert "error" in nowhere["dns"] and nowhere["browser"] == ""
