"""TLS evidence: a loopback HTTPS site whose certificates the test makes (a root, an
intermediate and a leaf for ``localhost``), another with an expired leaf. The crawler trusts the
test's root through ``ca_bundle`` (CRAWLER_CA_BUNDLE) besides certifi's; the exchange keeps the
whole chain the server sent, the TLS version, cipher, SNI and validation, and the WARC carries
them in a metadata record."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from warcio.archiveiterator import ArchiveIterator

from lib.crawl.fetch import Fetcher, trust_store
from lib.crawl.outcomes import Outcome
from lib.evidence.warc import exchange_warc
from lib.runtime.serving import serve_in_thread

NOW = dt.datetime.now(dt.UTC)


def _cert(name: str, key, issuer_name: str, issuer_key, *, ca: bool, days=(-1, 30), san=False):
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(NOW + dt.timedelta(days=days[0]))
               .not_valid_after(NOW + dt.timedelta(days=days[1]))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if san:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]),
                                        critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(*certs) -> bytes:
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """The test's root (PEM path) and two servers' key+chain files: ``good`` (leaf and
    intermediate under the root), ``expired`` (a leaf under the root that expired yesterday)."""
    folder = tmp_path_factory.mktemp("pki")
    root_key, mid_key, leaf_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    root = _cert("Test Root", root_key, "Test Root", root_key, ca=True)
    mid = _cert("Test Intermediate", mid_key, "Test Root", root_key, ca=True)
    leaf = _cert("localhost", leaf_key, "Test Intermediate", mid_key, ca=False, san=True)
    old = _cert("localhost", leaf_key, "Test Root", root_key, ca=False, days=(-30, -1), san=True)
    (folder / "root.pem").write_bytes(_pem(root))
    key = leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    for name, chain in (("good", _pem(leaf, mid)), ("expired", _pem(old))):
        (folder / f"{name}.pem").write_bytes(chain + key)
    return {"root": str(folder / "root.pem"), "good": folder / "good.pem",
            "expired": folder / "expired.pem", "chain": [leaf, mid]}


def serve_https(chain_file, pages: dict[str, bytes]):
    """A loopback HTTPS server for ``localhost`` with ``chain_file``'s certificate, serving
    ``pages`` ({path: HTML bytes}; 404 otherwise). Returns (base URL, stop)."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    serve_in_thread(server)
    return f"https://localhost:{server.server_address[1]}", server.shutdown


def _serve(chain_file) -> tuple[str, callable]:
    base, stop = serve_https(chain_file, {"/book/1.html": "<p>盗版正文</p>".encode()})
    return base + "/book/1.html", stop


def test_the_whole_chain_and_the_tls_session_are_kept_and_archived(config, pki):
    url, stop = _serve(pki["good"])
    try:
        result = Fetcher(dataclasses.replace(config, ca_bundle=pki["root"])).fetch(url)
    finally:
        stop()
    assert result.outcome is Outcome.OK, result.reason
    [hop] = result.exchange.hops
    sent = [x509.load_pem_x509_certificate(pem.encode()) for pem in hop.certificates]
    assert sent == pki["chain"]  # leaf and intermediate, as the server sent them
    assert hop.tls["version"].startswith("TLSv1.") and hop.tls["cipher"]
    assert hop.tls["sni"] == "localhost" and hop.tls["validation"] == "verified"
    warc = io.BytesIO(exchange_warc(result.exchange, software="t"))
    records = [(r, r.content_stream().read()) for r in ArchiveIterator(warc)]
    [(meta, body)] = [(r, b) for r, b in records if r.rec_type == "metadata"]
    archived = json.loads(body)
    assert archived["tls"] == hop.tls and archived["certificates_pem"] == hop.certificates
    response = next(r for r, _body in records if r.rec_type == "response")
    assert meta.rec_headers.get_header("WARC-Concurrent-To") == \
        response.rec_headers.get_header("WARC-Record-ID")


def test_a_root_not_in_the_trust_store_and_an_expired_certificate_are_refused_with_why(config, pki):
    url, stop = _serve(pki["good"])
    try:
        unknown = Fetcher(config).fetch(url)  # certifi alone: the test's root is unknown
    finally:
        stop()
    assert unknown.outcome is Outcome.CONNECTION_ERROR and "certificate verify failed" in unknown.reason
    url, stop = _serve(pki["expired"])
    try:
        expired = Fetcher(dataclasses.replace(config, ca_bundle=pki["root"])).fetch(url)
    finally:
        stop()
    assert expired.outcome is Outcome.CONNECTION_ERROR and "expired" in expired.reason


def test_a_ca_bundle_that_is_no_certificate_is_a_clear_error(tmp_path):
    (tmp_path / "roots.pem").write_text("not a certificate")
    with pytest.raises(ValueError, match="CRAWLER_CA_BUNDLE .*roots.pem: no PEM certificate"):
        trust_store(str(tmp_path / "roots.pem"))
    with pytest.raises(ValueError, match="cannot be read"):
        trust_store(str(tmp_path / "missing.pem"))
