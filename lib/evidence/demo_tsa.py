"""A demo RFC 3161 time-stamping authority on loopback, for the demo and the tests.

Not accredited and not for evidence: its root certificate is made on the spot, so its tokens
prove only that the flow works. On first start it writes into its folder a demo root CA and a
TSA certificate signed by it (extended key usage timeStamping, critical; RFC 3161 2.3), both
named "DEMO ... not accredited" with the Chinese label in the subject, then answers
``POST application/timestamp-query`` with ``application/timestamp-reply`` made by
``openssl ts -reply`` (OpenSSL's TSA, the reference implementation third parties verify with);
a query it cannot read gets a rejection (PKIStatus rejection, badDataFormat).

Run: ``python -m lib.evidence.demo_tsa --folder DIR --port N`` (port 0 picks a free
port); it prints its URL and the root certificate to trust.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from lib.evidence.keyfiles import write_private_file
from lib.evidence.timestamp import QUERY_TYPE, REPLY_TYPE
from lib.runtime.serving import QuietHandler, serve_in_thread

LABEL = "DEMO Time-Stamping Authority — not accredited / 演示时间戳机构（非认证）"
# X.520 bounds a common name to 64 characters and the library counts UTF-8 bytes: the English
# label is the common name, the Chinese one the organization.
TSA_NAME = ("DEMO Time-Stamping Authority — not accredited", "演示时间戳机构（非认证）")
CA_NAME = ("DEMO root CA — not accredited", "演示根证书机构（非认证）")
# 2.999 is the OID arc reserved for examples (ITU-T X.660): no real policy is claimed.
DEMO_POLICY_OID = "2.999.3161.1"
CERT_VALIDITY = dt.timedelta(days=3650)
MAX_QUERY_BYTES = 64 * 1024  # a SHA-512 query is about 100 bytes
OPENSSL_TIMEOUT_SECONDS = 30.0


class DemoTsaError(Exception):
    """The demo TSA cannot start (no openssl, unusable folder)."""


class DemoPki(NamedTuple):
    """Files of a demo TSA's folder (PEM): the root to trust, the TSA's certificate and key,
    and the ``openssl ts`` configuration."""

    ca_cert: Path
    tsa_cert: Path
    tsa_key: Path
    config: Path


class DemoTsa(NamedTuple):
    """A running demo TSA: ``url`` to POST queries to, ``ca_cert_path`` the root certificate
    (PEM) its tokens chain to, ``stop()`` shuts it down."""

    url: str
    ca_cert_path: Path
    stop: Callable[[], None]


def ensure_demo_pki(folder: Path) -> DemoPki:
    """The demo root CA, TSA certificate and key and openssl configuration in ``folder``,
    made on first call (keys mode 0600, ECDSA P-256), kept afterwards. Returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pki = DemoPki(folder / "demo-tsa-root-ca.pem", folder / "demo-tsa-cert.pem",
                  folder / "demo-tsa-key.pem", folder / "demo-tsa-openssl.cnf")
    if not (pki.ca_cert.exists() and pki.tsa_cert.exists() and pki.tsa_key.exists()):
        _make_certificates(pki)
    if not pki.config.exists():
        serial = folder / "demo-tsa-serial"
        serial.write_text("01\n", encoding="ascii")
        pki.config.write_text(_OPENSSL_CONFIG.format(
            serial=serial, cert=pki.tsa_cert, key=pki.tsa_key, policy=DEMO_POLICY_OID),
            encoding="utf-8")
    return pki


def _name(common_name: str, organization: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _make_certificates(pki: DemoPki) -> None:
    now = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)  # tolerate a clock a little behind
    ca_key, tsa_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(
        ec.SECP256R1())
    ca_name = _name(*CA_NAME)
    no_usage = dict.fromkeys(("content_commitment", "key_encipherment", "data_encipherment",
                              "key_agreement", "encipher_only", "decipher_only"), False)
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(now + CERT_VALIDITY)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, key_cert_sign=True,
                                       crl_sign=True, **no_usage), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                         critical=False)
          .sign(ca_key, hashes.SHA256()))
    tsa = (x509.CertificateBuilder().subject_name(_name(*TSA_NAME)).issuer_name(ca_name)
           .public_key(tsa_key.public_key()).serial_number(x509.random_serial_number())
           .not_valid_before(now).not_valid_after(now + CERT_VALIDITY)
           .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
           .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False,
                                        crl_sign=False, **no_usage), critical=True)
           .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]),
                          critical=True)
           .add_extension(x509.SubjectKeyIdentifier.from_public_key(tsa_key.public_key()),
                          critical=False)
           .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
               ca_key.public_key()), critical=False)
           .sign(ca_key, hashes.SHA256()))
    write_private_file(pki.tsa_key, tsa_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    pki.tsa_cert.write_bytes(tsa.public_bytes(serialization.Encoding.PEM))
    pki.ca_cert.write_bytes(ca.public_bytes(serialization.Encoding.PEM))


# openssl ts configuration (man ts, "CONFIGURATION FILE OPTIONS"): SHA-256 signature, ESSCertIDv2
# (SHA-256) of the signing certificate, the TSA's name in the token, one-second accuracy.
_OPENSSL_CONFIG = """\
[ tsa ]
default_tsa = demo_tsa

[ demo_tsa ]
serial = {serial}
crypto_device = builtin
signer_cert = {cert}
signer_key = {key}
signer_digest = sha256
default_policy = {policy}
other_policies = {policy}
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


def _handler(pki: DemoPki, openssl: str) -> type[QuietHandler]:
    lock = threading.Lock()  # openssl ts -reply reads and rewrites the serial file

    class Handler(QuietHandler):
        server_version = "DEMO-TSA-not-accredited"
        # a refused query's body is not read: the connection closes after each answer
        protocol_version = "HTTP/1.0"

        def do_POST(self):  # noqa: N802 (http.server's naming)
            if self.headers.get("Content-Type", "").split(";")[0].strip() != QUERY_TYPE:
                return self.reply(415, "text/plain; charset=utf-8",
                                  f"send {QUERY_TYPE}\n".encode())
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_QUERY_BYTES:
                return self.reply(413, "text/plain; charset=utf-8", b"bad query length\n")
            reply = self._stamp(self.rfile.read(length))
            if reply is None:  # a query openssl cannot read gets a rejection, not this
                return self.reply(500, "text/plain; charset=utf-8", b"openssl ts failed\n")
            self.reply(200, REPLY_TYPE, reply)

        def do_GET(self):  # noqa: N802
            self.reply(200, "text/plain; charset=utf-8",
                       f"{LABEL}\nRFC 3161: POST {QUERY_TYPE}\n".encode())

        def _stamp(self, query: bytes) -> bytes | None:
            with tempfile.TemporaryDirectory() as scratch, lock:
                query_path, reply_path = Path(scratch) / "q.tsq", Path(scratch) / "r.tsr"
                query_path.write_bytes(query)
                done = subprocess.run(
                    [openssl, "ts", "-reply", "-config", str(pki.config), "-queryfile",
                     str(query_path), "-chain", str(pki.ca_cert), "-out", str(reply_path)],
                    capture_output=True, timeout=OPENSSL_TIMEOUT_SECONDS, check=False)
                return reply_path.read_bytes() if done.returncode == 0 else None

    return Handler


def make_server(folder: Path, port: int = 0, host: str = "127.0.0.1") -> _TsaServer:
    """A demo TSA HTTP server bound to ``host``:``port`` (0: a free port) over the PKI of
    ``folder`` (made on first use), not yet serving. Raises DemoTsaError without openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise DemoTsaError("the demo TSA needs the openssl command (apt-get install openssl)")
    pki = ensure_demo_pki(Path(folder))
    server = _TsaServer((host, port), _handler(pki, openssl))
    server.daemon_threads = True
    server.pki = pki
    return server


class _TsaServer(ThreadingHTTPServer):
    """The demo TSA's HTTP server, which keeps the PKI it signs with (``pki``)."""

    pki: DemoPki


def start_demo_tsa(folder: Path, port: int = 0, host: str = "127.0.0.1") -> DemoTsa:
    """Start a demo TSA in a daemon thread of this process (see ``make_server``). Returns
    DemoTsa(url, ca_cert_path, stop); call ``stop()`` to shut it down and free the port."""
    server = make_server(folder, port, host)
    thread = serve_in_thread(server, "demo-tsa")

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join()

    return DemoTsa(_url(server), server.pki.ca_cert, stop)


def _url(server: ThreadingHTTPServer) -> str:
    host, port = server.socket.getsockname()[:2]
    return f"http://{host}:{port}/"


def main(argv: list[str] | None = None) -> None:
    """Serve the demo TSA until interrupted (``python -m lib.evidence.demo_tsa --help``)."""
    parser = argparse.ArgumentParser(description=f"{LABEL}: an RFC 3161 TSA for demos and tests")
    parser.add_argument("--folder", type=Path, required=True,
                        help="where its root CA, certificate and key are kept (made if absent)")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    args = parser.parse_args(argv)
    server = make_server(args.folder, args.port, args.host)
    print(f"{LABEL}\nurl: {_url(server)}\ntrusted root certificate: {server.pki.ca_cert}",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
