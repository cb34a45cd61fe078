"""The demo time-stamping authority (lib.evidence.demo_tsa): labelled as a demo, a
proper TSA certificate, keys kept private, and its command line."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import requests
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from lib.evidence.demo_tsa import ensure_demo_pki, start_demo_tsa
from lib.evidence.timestamp import (
    REPLY_TYPE,
    TsaConfig,
    request_timestamp,
    verify_timestamp,
)


def test_its_certificate_is_a_labelled_tsa_certificate_under_its_root(tmp_path):
    pki = ensure_demo_pki(tmp_path)
    tsa = x509.load_pem_x509_certificate(pki.tsa_cert.read_bytes())
    root = x509.load_pem_x509_certificate(pki.ca_cert.read_bytes())

    usage = tsa.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    assert usage.critical and list(usage.value) == [ExtendedKeyUsageOID.TIME_STAMPING]
    subject = tsa.subject.rfc4514_string()
    assert "DEMO Time-Stamping Authority — not accredited" in subject
    assert "演示时间戳机构（非认证）" in subject
    assert "not accredited" in root.subject.rfc4514_string()
    tsa.verify_directly_issued_by(root)
    assert pki.tsa_key.stat().st_mode & 0o777 == 0o600


def test_a_restart_keeps_its_root_so_old_tokens_still_verify(tmp_path):
    digest = hashlib.sha256(b"evidence").digest()
    first = start_demo_tsa(tmp_path)
    try:
        token = request_timestamp(digest, TsaConfig(urls=(first.url,)))
    finally:
        first.stop()
    root = first.ca_cert_path.read_bytes()

    again = start_demo_tsa(tmp_path)
    try:
        later = request_timestamp(digest, TsaConfig(urls=(again.url,)))
    finally:
        again.stop()

    assert again.ca_cert_path.read_bytes() == root
    assert verify_timestamp(token.response, digest, [root]).serial_number != \
        verify_timestamp(later.response, digest, [root]).serial_number


def test_it_refuses_what_is_not_a_timestamp_query(demo_tsa, tmp_path):
    wrong_type = requests.post(demo_tsa.url, data=b"x", headers={"Content-Type": "text/plain"},
                               timeout=5)
    garbage = requests.post(demo_tsa.url, data=b"not DER at all",
                            headers={"Content-Type": "application/timestamp-query"}, timeout=5)
    page = requests.get(demo_tsa.url, timeout=5)

    assert wrong_type.status_code == 415
    assert garbage.status_code == 200 and garbage.headers["Content-Type"] == REPLY_TYPE
    (tmp_path / "answer.tsr").write_bytes(garbage.content)
    shown = subprocess.run(["openssl", "ts", "-reply", "-in", "answer.tsr", "-text"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "Status: Rejected." in shown and "the data submitted has the wrong format" in shown
    assert "not accredited" in page.text and "非认证" in page.text


def test_the_command_line_serves_on_a_free_port_and_prints_its_url(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "lib.evidence.demo_tsa", "--folder", str(tmp_path),
         "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        url = lines[1].removeprefix("url: ").strip()
        root = lines[2].removeprefix("trusted root certificate: ").strip()
        digest = hashlib.sha256(b"evidence").digest()
        token = request_timestamp(digest, TsaConfig(urls=(url,)))
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert "DEMO Time-Stamping Authority" in lines[0] and url.startswith("http://127.0.0.1:")
    with open(root, "rb") as file:
        assert verify_timestamp(token.response, digest, [file.read()]).gen_time == token.gen_time
