"""The bundle verifier against forgeries and bombs, as an examiner would try them: a real WACZ
(warcio, Webrecorder's wacz indexer) timestamped by the session's demo TSA, then altered copies.
Each forgery must give FAIL naming the file, or UNVERIFIED; never VALID. Bombs are refused with
the Python heap staying far under 100 MB (tracemalloc: the web process verifies uploads with
this same function)."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import io
import json
import tracemalloc
import zipfile

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from lib.evidence.bundle import DATAPACKAGE, DATAPACKAGE_DIGEST, build_wacz
from lib.evidence.signing import load_or_create_identity
from lib.evidence.timestamp import (
    TimestampVerificationError,
    TsaConfig,
    request_timestamp,
    verify_timestamp,
)
from lib.evidence.verify import (
    FAIL,
    UNVERIFIED,
    VALID,
    TimestampUntrusted,
    verify_bundle,
)
from lib.evidence.wacz_signing import check_signed_data, sign_hash
from tests.bundles import entries, evidence_files, forged, with_datapackage, zeros_entry, zipped

TEXT = "话说天下大势，分久必合，合久必分。".encode() * 40
HEAP_LIMIT = 100 * 2**20


def _warc(body: bytes = b"<html><body>" + TEXT + b"</body></html>") -> bytes:
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version="WARC/1.1")
    writer.write_record(writer.create_warc_record(
        "http://pirate.example/1.html", "response", payload=io.BytesIO(body), length=len(body),
        http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                      protocol="HTTP/1.1"),
        warc_headers_dict={"WARC-Date": "2026-11-28T00:00:00Z"}))
    return out.getvalue()


def _bundle(stamp=None, title="证据") -> bytes:
    warc = _warc()
    return build_wacz(warc, evidence_files(warc, {"evidence/text.txt": TEXT}), main_url="http://pirate.example/1.html",
                      captured_at=dt.datetime(2026, 11, 28, tzinfo=dt.UTC), title=title,
                      description="test", software="tests", stamp=stamp).data


def _check(root: bytes | None):
    """A check_timestamp as crawler.evidence.trust makes it, over ``root`` (None: no root)."""
    def check(fields: dict, datapackage: bytes) -> str:
        response = base64.b64decode(fields["timestamp"]["tsr"])
        try:
            verified = verify_timestamp(response, hashlib.sha256(datapackage).digest(),
                                        [root] if root else [])
        except TimestampVerificationError as exc:
            if exc.check == "certificate":
                raise TimestampUntrusted(exc.detail) from exc
            raise ValueError(str(exc)) from exc
        return f"stamped by {verified.tsa_name}"
    return check


def _stamp(url: str):
    def stamp(datapackage: bytes) -> dict:
        token = request_timestamp(hashlib.sha256(datapackage).digest(), TsaConfig(urls=(url,)))
        return {"timestamp": {"tsr": base64.b64encode(token.response).decode(), "tsa": url,
                              "time": token.gen_time.strftime("%Y-%m-%dT%H:%M:%SZ")}}
    return stamp


@pytest.fixture(scope="module")
def stamped(demo_tsa) -> bytes:
    """A genuine bundle, timestamped by the demo TSA."""
    return _bundle(_stamp(demo_tsa.url))


def test_a_genuine_stamped_bundle_is_valid_only_with_the_tsa_root(stamped, demo_root):
    assert verify_bundle(io.BytesIO(stamped), _check(demo_root)).status == VALID
    untrusted = verify_bundle(io.BytesIO(stamped), _check(None))
    assert untrusted.status == UNVERIFIED and untrusted.unverified_code == "untrusted"
    assert verify_bundle(io.BytesIO(stamped), None).status == UNVERIFIED


def test_digests_without_a_timestamp_are_never_valid(stamped, demo_root):
    rehashed = forged(stamped, {"evidence/text.txt": "伪造的文本".encode() * 50})
    verdict = verify_bundle(io.BytesIO(rehashed), _check(demo_root))
    assert verdict.status == UNVERIFIED and verdict.unverified_code == "no_timestamp"
    assert verdict.failure is None and not verdict.ok


def test_a_rehashed_bundle_with_the_old_token_fails_on_the_timestamp(stamped, demo_root):
    forgery = forged(stamped, {"evidence/text.txt": "伪造的文本".encode() * 50}, timestamp_from=stamped)
    verdict = verify_bundle(io.BytesIO(forgery), _check(demo_root))
    assert verdict.status == FAIL and verdict.failure.path == DATAPACKAGE_DIGEST
    assert verdict.failure.code == "timestamp"


def test_a_token_swapped_in_from_another_bundle_fails(stamped, demo_tsa, demo_root):
    other = _bundle(_stamp(demo_tsa.url), title="另一份证据")
    files = dict((i.filename, b) for i, b in entries(stamped))
    digest = json.loads(files[DATAPACKAGE_DIGEST])
    digest["timestamp"] = json.loads(dict((i.filename, b) for i, b in entries(other))
                                     [DATAPACKAGE_DIGEST])["timestamp"]
    files[DATAPACKAGE_DIGEST] = json.dumps(digest).encode()
    verdict = verify_bundle(io.BytesIO(zipped(list(files.items()))), _check(demo_root))
    assert verdict.status == FAIL and verdict.failure.path == DATAPACKAGE_DIGEST


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_forged_entry_written_before_the_real_one_fails_naming_it(stamped, demo_root):
    forged = zipfile.ZipInfo("evidence/text.txt")
    verdict = verify_bundle(io.BytesIO(zipped([(forged, "伪造".encode()), *entries(stamped)])),
                            _check(demo_root))
    assert verdict.status == FAIL and verdict.failure.path == "evidence/text.txt"
    assert verdict.failure.code == "duplicate_entry" and verdict.failure.refused


@pytest.mark.parametrize("name", ["../../x", "/etc/evil", "evidence\\..\\x", "archive/../../x"])
def test_names_leading_out_of_the_bundle_fail(name):
    verdict = verify_bundle(io.BytesIO(zipped([(name, b"x")])), None)
    assert verdict.status == FAIL and verdict.failure.path == name
    assert verdict.failure.code == "unsafe_name"


def test_a_bundle_without_the_evidence_layout_fails(stamped):
    no_warc = zipped([(DATAPACKAGE, b'{"resources": []}'),
                      (DATAPACKAGE_DIGEST, json.dumps({"hash": "sha256:" + hashlib.sha256(
                        b'{"resources": []}').hexdigest()}).encode())])
    verdict = verify_bundle(io.BytesIO(no_warc), None)
    assert verdict.status == FAIL and verdict.failure.code == "no_warc"
    files = [(i, b) for i, b in entries(stamped) if i.filename != "evidence/metadata.json"]
    package = json.loads(dict((i.filename, b) for i, b in files)[DATAPACKAGE])
    package["resources"] = [r for r in package["resources"] if r["path"] != "evidence/metadata.json"]
    verdict = verify_bundle(io.BytesIO(with_datapackage(files, json.dumps(package).encode())), None)
    assert verdict.status == FAIL and verdict.failure.path == "evidence/metadata.json"


@pytest.mark.parametrize("resources", ['"abc"', '["abc"]', '[{"path": 3}]'])
def test_malformed_datapackage_resources_fail_without_a_crash(stamped, resources):
    body = f'{{"resources": {resources}}}'.encode()
    verdict = verify_bundle(io.BytesIO(with_datapackage(entries(stamped), body)), None)
    assert verdict.status == FAIL and verdict.failure.path == DATAPACKAGE
    assert verdict.failure.code == "bad_resources" and verdict.failure.refused


def test_a_file_listed_twice_fails(stamped):
    package = json.loads(dict((i.filename, b) for i, b in entries(stamped))[DATAPACKAGE])
    package["resources"].append(package["resources"][-1])
    body = json.dumps(package).encode()
    verdict = verify_bundle(io.BytesIO(with_datapackage(entries(stamped), body)), None)
    assert verdict.status == FAIL and verdict.failure.code == "listed_twice"


def _within_heap(call):
    tracemalloc.start()
    try:
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < HEAP_LIMIT, f"verification peaked at {peak / 2**20:.0f} MB of heap"
    return result


def test_a_zip_bomb_datapackage_is_refused_within_the_heap_limit(stamped):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, body in entries(stamped):
            if info.filename != DATAPACKAGE:
                zf.writestr(info, body)
        zeros_entry(zf, DATAPACKAGE, 300 * 2**20)
    assert len(out.getvalue()) < 2 * 2**20  # a small upload
    verdict = _within_heap(lambda: verify_bundle(io.BytesIO(out.getvalue()), None))
    assert verdict.status == FAIL and verdict.failure.code == "archive_bomb"
    assert verdict.failure.path == DATAPACKAGE


def test_a_gzip_warc_record_bomb_is_refused_within_the_heap_limit(stamped):
    bomb = io.BytesIO()
    with gzip.GzipFile(fileobj=bomb, mode="wb") as member:
        member.write(b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 268435456\r\n\r\n")
        chunk = bytes(2**20)
        for _ in range(256):
            member.write(chunk)
    warc = dict((i.filename, b) for i, b in entries(stamped))["archive/data.warc.gz"]
    forgery = forged(stamped, {"archive/data.warc.gz": warc + bomb.getvalue()})
    verdict = _within_heap(lambda: verify_bundle(io.BytesIO(forgery), None))
    assert verdict.status == FAIL and verdict.failure.path == "archive/data.warc.gz"
    assert verdict.failure.code == "archive_bomb"


def test_a_changed_file_still_fails_naming_it(stamped, demo_root):
    files = [(i, b.replace("天下".encode(), "天上".encode()) if i.filename == "evidence/text.txt" else b)
             for i, b in entries(stamped)]
    verdict = verify_bundle(io.BytesIO(zipped(files)), _check(demo_root))
    assert verdict.status == FAIL and verdict.failure.path == "evidence/text.txt"


@pytest.fixture(scope="module")
def identity(tmp_path_factory):
    """The platform's signing identity, made as on first use (ECDSA P-256, self-signed)."""
    return load_or_create_identity(tmp_path_factory.mktemp("signing"))


def _signed(identity, tsa_url: str, title: str = "证据") -> bytes:
    stamp = _stamp(tsa_url)
    return _bundle(lambda data: {**stamp(data), "signedData": sign_hash(
        "sha256:" + hashlib.sha256(data).hexdigest(), identity, "tests", TsaConfig(urls=(tsa_url,)))},
        title=title)


def _signature(identity, root):
    def check(signed: dict, digest_hash: str) -> str:
        found = check_signed_data(signed, digest_hash, [identity.cert_path.read_bytes()], [root])
        return f"signed by {found.signer}, trusted={found.trusted}, time={found.time}"
    return check


def test_the_operators_signature_is_checked_and_named(identity, demo_tsa, demo_root):
    data = _signed(identity, demo_tsa.url)
    verdict = verify_bundle(io.BytesIO(data), _check(demo_root),
                            check_signature=_signature(identity, demo_root))
    assert verdict.status == VALID
    [line] = [c for c in verdict.checked if "signed by" in c]
    assert "Copyright Tracker evidence reports" in line and "trusted=True" in line
    assert "time=None" not in line  # the signature is time-stamped too


def test_a_signature_swapped_in_from_another_bundle_or_altered_fails(identity, demo_tsa, demo_root):
    data, other = _signed(identity, demo_tsa.url), _signed(identity, demo_tsa.url, title="另一份")
    files = dict((i.filename, b) for i, b in entries(data))
    digest = json.loads(files[DATAPACKAGE_DIGEST])
    for forged_signed in (json.loads(dict((i.filename, b) for i, b in entries(other))
                                     [DATAPACKAGE_DIGEST])["signedData"],
                          {**digest["signedData"], "signature": base64.b64encode(b"0" * 70).decode()}):
        files[DATAPACKAGE_DIGEST] = json.dumps({**digest, "signedData": forged_signed}).encode()
        verdict = verify_bundle(io.BytesIO(zipped(list(files.items()))), _check(demo_root),
                                check_signature=_signature(identity, demo_root))
        assert verdict.status == FAIL and verdict.failure.code == "signature"
        assert verdict.failure.path == DATAPACKAGE_DIGEST
