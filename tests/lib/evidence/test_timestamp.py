"""RFC 3161 timestamps from a list of TSAs, and their verification (lib.evidence.timestamp),
against the demo TSA and faulty TSAs on loopback; third-party checks with `openssl ts -verify`."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import subprocess

import pytest

from lib.evidence.demo_tsa import start_demo_tsa
from lib.evidence.timestamp import (
    TimestampVerificationError,
    TsaConfig,
    TsaNotConfiguredError,
    TsaUnavailableError,
    request_timestamp,
    verify_timestamp,
)

DATAPACKAGE = json.dumps({"profile": "data-package", "resources": [
    {"name": "page.warc.gz", "path": "archive/page.warc.gz", "hash": "sha256:" + "ab" * 32,
     "bytes": 18233}]}, indent=2).encode()


def _digest(data: bytes = DATAPACKAGE) -> bytes:
    return hashlib.sha256(data).digest()


def test_token_is_granted_and_verifies_with_the_time_and_name_of_the_tsa(demo_tsa, demo_root,
                                                                         quick_config):
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    token = request_timestamp(_digest(), quick_config(demo_tsa.url))
    after = dt.datetime.now(dt.UTC)

    checked = verify_timestamp(token.response, _digest(), [demo_root])

    assert token.tsa_url == demo_tsa.url
    assert before <= checked.gen_time == token.gen_time <= after
    assert "DEMO Time-Stamping Authority — not accredited" in checked.tsa_name
    assert "演示时间戳机构（非认证）" in checked.tsa_name
    assert checked.chain[0] == checked.tsa_name and "DEMO root CA" in checked.chain[-1]
    assert checked.policy == "2.999.3161.1"


def test_openssl_verifies_the_token_as_a_third_party_would(demo_tsa, quick_config, tmp_path):
    (tmp_path / "datapackage.json").write_bytes(DATAPACKAGE)
    token = request_timestamp(_digest(), quick_config(demo_tsa.url))
    (tmp_path / "datapackage.tsr").write_bytes(token.response)
    # the digest a third party computes with sha256sum, then checks against the token
    hex_digest = subprocess.run(["sha256sum", "datapackage.json"], cwd=tmp_path, check=True,
                                capture_output=True, text=True).stdout.split()[0]
    assert hex_digest == _digest().hex()

    def openssl_verify(*source: str) -> subprocess.CompletedProcess:
        return subprocess.run(["openssl", "ts", "-verify", *source, "-in", "datapackage.tsr",
                               "-CAfile", str(demo_tsa.ca_cert_path)],
                              cwd=tmp_path, capture_output=True, text=True)

    by_digest, by_file = openssl_verify("-digest", hex_digest), openssl_verify(
        "-data", "datapackage.json")
    assert by_digest.returncode == 0 and "Verification: OK" in by_digest.stdout
    assert by_file.returncode == 0 and "Verification: OK" in by_file.stdout
    (tmp_path / "datapackage.json").write_bytes(DATAPACKAGE.replace(b"18233", b"18234"))
    altered = openssl_verify("-data", "datapackage.json")
    assert altered.returncode != 0 and "Verification: FAILED" in altered.stdout


def test_a_tsa_that_is_down_is_retried_then_the_next_one_answers(demo_tsa, down_tsa_url,
                                                                 demo_root, quick_config):
    token = request_timestamp(_digest(), quick_config(down_tsa_url, demo_tsa.url))

    assert token.tsa_url == demo_tsa.url
    assert verify_timestamp(token.response, _digest(), [demo_root]).gen_time == token.gen_time


def test_every_tsa_failing_says_which_failed_and_why(down_tsa_url, garbage_tsa_url,
                                                     slow_tsa_url, quick_config):
    config = quick_config(down_tsa_url, garbage_tsa_url, slow_tsa_url, timeout=0.5, retries=1)

    with pytest.raises(TsaUnavailableError) as raised:
        request_timestamp(_digest(), config)

    seen = [(failure.url, failure.attempt, failure.reason) for failure in raised.value.failures]
    assert seen == [(down_tsa_url, 1, "connection_error"), (down_tsa_url, 2, "connection_error"),
                    (garbage_tsa_url, 1, "garbage"), (garbage_tsa_url, 2, "garbage"),
                    (slow_tsa_url, 1, "timeout"), (slow_tsa_url, 2, "timeout")]
    message = str(raised.value)
    assert "Connection refused" in message and "not an RFC 3161 answer" in message
    assert "Read timed out. (read timeout=0.5)" in message


def test_a_tsa_answering_garbage_is_passed_over(garbage_tsa_url, demo_tsa, quick_config):
    token = request_timestamp(_digest(), quick_config(garbage_tsa_url, demo_tsa.url))

    assert token.tsa_url == demo_tsa.url


def test_a_slow_tsa_times_out_and_the_next_one_answers(slow_tsa_url, demo_tsa, quick_config):
    token = request_timestamp(_digest(), quick_config(slow_tsa_url, demo_tsa.url, timeout=0.5,
                                                      retries=0))

    assert token.tsa_url == demo_tsa.url


def test_a_tsa_rejecting_the_request_is_not_retried_and_its_reason_is_kept(rejecting_tsa_url,
                                                                           quick_config):
    with pytest.raises(TsaUnavailableError) as raised:
        request_timestamp(_digest(), quick_config(rejecting_tsa_url, retries=2))

    [failure] = raised.value.failures
    assert (failure.url, failure.reason) == (rejecting_tsa_url, "rejected")
    assert "rejection" in failure.detail and "bad_data_format" in failure.detail


def test_a_token_for_another_digest_is_refused_and_the_next_tsa_answers(replaying_tsa_url,
                                                                        demo_tsa, quick_config):
    token = request_timestamp(_digest(), quick_config(replaying_tsa_url, demo_tsa.url))
    with pytest.raises(TsaUnavailableError) as raised:
        request_timestamp(_digest(), quick_config(replaying_tsa_url, retries=2))

    assert token.tsa_url == demo_tsa.url
    [failure] = raised.value.failures
    assert (failure.reason, failure.detail) == ("mismatch", "the token is for another digest")


def test_no_tsa_configured_is_its_own_error():
    with pytest.raises(TsaNotConfiguredError, match="no time-stamping authority is configured"):
        request_timestamp(_digest(), TsaConfig(urls=()))


def test_a_tampered_digest_fails_verification(demo_tsa, demo_root, quick_config):
    token = request_timestamp(_digest(), quick_config(demo_tsa.url))
    tampered = _digest(DATAPACKAGE.replace(b"18233", b"18234"))

    with pytest.raises(TimestampVerificationError) as raised:
        verify_timestamp(token.response, tampered, [demo_root])

    assert raised.value.check == "digest"
    assert _digest().hex() in str(raised.value) and tampered.hex() in str(raised.value)


def test_a_tampered_token_fails_verification(demo_tsa, demo_root, quick_config):
    token = request_timestamp(_digest(), quick_config(demo_tsa.url))
    # the genTime's seconds digit inside the signed TSTInfo: the TSA's signature breaks
    position = token.response.index(token.gen_time.strftime("%Y%m%d%H%M%S").encode()) + 13
    tampered = bytearray(token.response)
    tampered[position] = ord("0") + (tampered[position] - ord("0") + 1) % 10

    with pytest.raises(TimestampVerificationError) as raised:
        verify_timestamp(bytes(tampered), _digest(), [demo_root])

    assert raised.value.check == "signature"
    with pytest.raises(TimestampVerificationError) as truncated:
        verify_timestamp(token.response[:-40], _digest(), [demo_root])
    assert truncated.value.check == "format"


def test_a_token_from_an_authority_not_trusted_fails_verification(demo_tsa, quick_config,
                                                                  tmp_path):
    other = start_demo_tsa(tmp_path / "other-tsa")  # same names, another root key
    try:
        token = request_timestamp(_digest(), quick_config(other.url))
    finally:
        other.stop()

    with pytest.raises(TimestampVerificationError) as raised:
        verify_timestamp(token.response, _digest(), [demo_tsa.ca_cert_path.read_bytes()])

    assert raised.value.check == "certificate"
    assert "does not chain to a trusted certificate" in str(raised.value)
