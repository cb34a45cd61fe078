"""Verification of a WACZ evidence bundle, by anyone, from the file alone.

Checks, in order, each naming the file that fails: the ZIP can be read (a truncated file
cannot); ``datapackage.json`` is there and matches the SHA-256 that
``datapackage-digest.json`` records; every file it lists is there with its size and SHA-256;
no file is there that it does not list; the WARC records' block and payload digests (warcio);
the SHA-256 of each file that ``evidence/metadata.json`` names; and, when the bundle carries
one, the RFC 3161 timestamp token over datapackage.json (``check_timestamp``, given by the
caller: the trust library's verification against the TSA's certificate).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from crawler.lib.evidence.bundle import DATAPACKAGE, DATAPACKAGE_DIGEST

METADATA = "evidence/metadata.json"

# check_timestamp(digest fields of datapackage-digest.json, datapackage.json bytes) -> a line
# describing the verified timestamp; raises ValueError saying why it does not hold.
TimestampCheck = Callable[[dict, bytes], str]


class BundleFailure(Exception):
    """One check failed: ``path`` (the file inside the bundle, or the bundle's own name) and
    ``reason`` (str)."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


@dataclass
class Verdict:
    """The result of ``verify_bundle``: ``ok``; ``failure`` (the first BundleFailure, or None);
    ``checked`` (what held, one line each); ``timestamp`` (the timestamp's line, or '' when
    the bundle carries none)."""

    ok: bool
    failure: BundleFailure | None = None
    checked: list[str] = field(default_factory=list)
    timestamp: str = ""


def verify_bundle(source: str | Path | bytes, check_timestamp: TimestampCheck | None = None,
                  name: str = "") -> Verdict:
    """Verify the WACZ at ``source`` (a path, or the bytes of one); ``name`` names it in the
    verdict (default: the path's file name). Returns a Verdict; never raises for a bad bundle.
    A bundle that carries a timestamp fails when ``check_timestamp`` is None."""
    name = name or (Path(source).name if not isinstance(source, bytes) else "bundle")
    verdict = Verdict(ok=False)
    try:
        _verify(io.BytesIO(source) if isinstance(source, bytes) else source, name,
                check_timestamp, verdict)
    except BundleFailure as failure:
        verdict.failure = failure
        return verdict
    verdict.ok = True
    return verdict


def _verify(source, name: str, check_timestamp, verdict: Verdict) -> None:
    try:
        wacz = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleFailure(name, f"not a readable ZIP file (truncated or not a WACZ): {exc}") from exc
    with wacz:
        datapackage = _read(wacz, DATAPACKAGE)
        digest = _json(wacz, DATAPACKAGE_DIGEST)
        if digest.get("hash") != "sha256:" + hashlib.sha256(datapackage).hexdigest():
            raise BundleFailure(DATAPACKAGE, f"its SHA-256 is not the one {DATAPACKAGE_DIGEST} records")
        verdict.checked.append(f"{DATAPACKAGE}: SHA-256 as recorded in {DATAPACKAGE_DIGEST}")
        listed = _json(wacz, DATAPACKAGE, datapackage).get("resources") or []
        for resource in listed:
            _check_resource(wacz, resource)
        verdict.checked.append(f"{len(listed)} files: size and SHA-256 as listed in {DATAPACKAGE}")
        known = {r.get("path") for r in listed} | {DATAPACKAGE, DATAPACKAGE_DIGEST}
        for info in wacz.infolist():
            if info.filename not in known:
                raise BundleFailure(info.filename, f"not listed in {DATAPACKAGE}")
        for path in (r["path"] for r in listed if r["path"].startswith("archive/")):
            records = _check_warc(path, _read(wacz, path))
            verdict.checked.append(f"{path}: {records} WARC records, block and payload digests")
        if METADATA in wacz.namelist():
            for path, sha in (_json(wacz, METADATA).get("sha256") or {}).items():
                if path not in wacz.namelist() or hashlib.sha256(_read(wacz, path)).hexdigest() != sha:
                    raise BundleFailure(path, f"SHA-256 differs from {METADATA}")
            verdict.checked.append(f"{METADATA}: SHA-256 of the files it names")
        if "timestamp" in digest:
            if check_timestamp is None:
                raise BundleFailure(DATAPACKAGE_DIGEST, "carries a timestamp but no verifier is here")
            try:
                verdict.timestamp = check_timestamp(digest, datapackage)
            except ValueError as exc:
                raise BundleFailure(DATAPACKAGE_DIGEST, f"timestamp does not hold: {exc}") from exc
            verdict.checked.append(f"{DATAPACKAGE_DIGEST}: {verdict.timestamp}")


def _read(wacz: zipfile.ZipFile, path: str) -> bytes:
    try:
        return wacz.read(path)
    except KeyError as exc:
        raise BundleFailure(path, "missing from the bundle") from exc
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:  # CRC, truncated entry
        raise BundleFailure(path, f"cannot be read: {exc}") from exc


def _json(wacz: zipfile.ZipFile, path: str, data: bytes | None = None) -> dict:
    try:
        value = json.loads(_read(wacz, path) if data is None else data)
    except ValueError as exc:
        raise BundleFailure(path, f"not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise BundleFailure(path, "not a JSON object")
    return value


def _check_resource(wacz: zipfile.ZipFile, resource: dict) -> None:
    path = str(resource.get("path", ""))
    data = _read(wacz, path)
    if resource.get("bytes") is not None and len(data) != resource["bytes"]:
        raise BundleFailure(path, f"{len(data)} bytes, {DATAPACKAGE} lists {resource['bytes']}")
    if resource.get("hash") != "sha256:" + hashlib.sha256(data).hexdigest():
        raise BundleFailure(path, f"SHA-256 differs from {DATAPACKAGE}")


def _check_warc(path: str, data: bytes) -> int:
    records = 0
    try:
        for record in ArchiveIterator(io.BytesIO(data), check_digests="raise"):
            record.content_stream().read()
            records += 1
    except (ArchiveLoadFailed, OSError, ValueError, EOFError) as exc:
        raise BundleFailure(path, f"WARC record {records + 1}: {exc}") from exc
    return records
