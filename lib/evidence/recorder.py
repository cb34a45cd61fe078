"""The recording proxy of one witnessed capture, seen from the capturing process: starts
``lib.evidence.recording_proxy`` (warcprox under the SSRF guard and a byte budget) in
a process of its own, hands its address to the browser, and on ``finish`` stops it and returns
the WARC it wrote and the cuts it made.

One proxy per capture: its WARC holds that visit only, and a proxy that dies takes no other
capture with it. The proxy runs with the recorder's own interpreter (``python``: a virtual
environment with warcprox, made by ``make install``), with this repository on its path for
the SSRF guard.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

_ROOT = Path(__file__).resolve().parents[2]  # the repository: lib.crawl.ssrf for the proxy
_STOP_SECONDS = 15.0  # for the proxy to write its last records and close its WARC


class RecorderFailed(Exception):
    """The recording proxy did not start, or died before the capture ended; ``str`` says why."""


@dataclass
class Recording:
    """What the proxy recorded: ``warc`` (bytes, gzip WARC records: every request and response
    of the visit) and ``cuts`` ([{"url", "reason"}] requests truncated or not fetched at the
    capture's byte limit) and ``tls_errors`` ([{"host", "error"}] invalid certificates accepted)."""

    warc: bytes
    cuts: list[dict] = field(default_factory=list)
    tls_errors: list[dict] = field(default_factory=list)


class Recorder:
    """A recording proxy for one capture; use as a context manager (the process is always
    stopped and its folder removed on exit).

    Takes ``python`` (the recorder's interpreter), ``ca_file`` (warcprox's CA, PEM, made on the
    first start and kept), ``allow`` (the crawler's ``allow_addresses``), ``max_bytes`` (body
    bytes recorded per capture), ``ca_bundle`` (extra roots for the sites, '' for none),
    ``start_seconds`` (time allowed to start) and ``accept_invalid_hosts`` (hosts whose invalid
    TLS certificate is accepted, the error recorded: a target site's setting). ``__enter__`` raises RecorderFailed when the
    proxy does not report its port in time.
    """

    def __init__(self, python: str, ca_file: str, allow: tuple[str, ...], max_bytes: int,
                 ca_bundle: str = "", start_seconds: float = 20.0,
                 accept_invalid_hosts: tuple[str, ...] = ()):
        # absolute: the proxy runs in its own folder
        self.python, self.ca_file = str(Path(python).absolute()), str(Path(ca_file).absolute())
        self.allow = allow
        self.max_bytes, self.ca_bundle, self.start_seconds = max_bytes, ca_bundle, start_seconds
        self.accept_invalid_hosts = accept_invalid_hosts
        self.folder: Path | None = None
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def proxy_url(self) -> str:
        """The proxy's address for the browser: "http://127.0.0.1:PORT"."""
        return f"http://127.0.0.1:{self.port}"

    def ca_spki(self) -> str:
        """The base64 SHA-256 of the public key of warcprox's CA, which also signs (and is the
        key of) every certificate it makes for a site: what Chromium's
        ``--ignore-certificate-errors-spki-list`` takes to trust this proxy alone."""
        cert = x509.load_pem_x509_certificate(Path(self.ca_file).read_bytes())
        spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                              serialization.PublicFormat.SubjectPublicKeyInfo)
        return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")

    def __enter__(self) -> Recorder:
        if not Path(self.python).exists():
            raise RecorderFailed(f"no recording proxy: {self.python} does not exist "
                                 "(make install makes it)")
        Path(self.ca_file).parent.mkdir(parents=True, exist_ok=True)
        folder = self.folder = Path(tempfile.mkdtemp(prefix="recording-"))
        env = {**os.environ, "PYTHONPATH": str(_ROOT)}
        with (folder / "proxy.log").open("wb") as log:  # a file: a full pipe would stall it
            process = self.process = subprocess.Popen(
                [self.python, "-m", "lib.evidence.recording_proxy",
                 "--dir", str(folder), "--ca-file", self.ca_file, "--allow", ",".join(self.allow),
                 "--max-bytes", str(self.max_bytes), "--ca-bundle", self.ca_bundle,
                 *(f"--accept-invalid-host={host}" for host in self.accept_invalid_hosts)],
                stdout=subprocess.PIPE, stderr=log, env=env, cwd=str(self.folder))
        deadline = time.monotonic() + self.start_seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.2)
            if ready and process.stdout is not None:
                line = process.stdout.readline().decode("ascii", "replace").split()
                if line[:1] == ["port"]:
                    self.port = int(line[1])
                    return self
            if process.poll() is not None:
                break
        how = (f"did not start within {self.start_seconds:g} s" if self.alive()
               else f"exited before it started{self._exit_reason()}")
        self.__exit__(None, None, None)
        raise RecorderFailed(f"the recording proxy {how}")

    def alive(self) -> bool:
        """Whether the proxy process still runs."""
        return self.process is not None and self.process.poll() is None

    def finish(self) -> Recording:
        """Stop the proxy (it writes its last records) and return its Recording (an empty
        ``warc`` when nothing was fetched). Raises RecorderFailed when it had died before."""
        process, folder = self.process, self.folder
        if process is None or folder is None or process.poll() is not None:
            raise RecorderFailed(f"the recording proxy died during the capture{self._exit_reason()}")
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(_STOP_SECONDS)
        except subprocess.TimeoutExpired as exc:
            raise RecorderFailed(f"the recording proxy did not stop within {_STOP_SECONDS:g} s") from exc
        files = sorted(folder.glob("*.warc.gz"))  # none when nothing was fetched
        return Recording(b"".join(f.read_bytes() for f in files), _notes(folder / "cuts.jsonl"),
                         _notes(folder / "tls_errors.jsonl"))
    def _exit_reason(self) -> str:
        if self.process is None or self.folder is None or self.process.poll() is None:
            return ""
        code = self.process.returncode
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        log = self.folder / "proxy.log"
        tail = [line for line in (log.read_text("utf-8", "replace") if log.exists() else "")
                .splitlines() if line.strip() and "Warning" not in line]
        return f" ({how}{': ' + tail[-1][:200] if tail else ''})"

    def __exit__(self, *exc_info) -> None:
        process = self.process
        if process is not None:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _notes(path: Path) -> list[dict]:
    """The JSON Lines the proxy wrote to ``path`` (one dict a line); [] without the file."""
    return ([json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
            if path.exists() else [])
