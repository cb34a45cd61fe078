"""Verification of a WACZ evidence bundle, by anyone, from the file alone.

Three verdicts: ``VALID`` (every check holds and the RFC 3161 timestamp over datapackage.json
chains to a trusted root), ``UNVERIFIED`` (every digest holds, but there is no timestamp, or
one that chains to no trusted root: digests that only refer to each other prove nothing) and
``FAIL`` (the first check that failed, naming the file). Checks, in order: the ZIP can be read
and names each entry once, with a safe relative name (no ``/`` at the start, no ``..``, no
``\\``); its entries' declared sizes and compression ratios are within the limits (archive
bombs; the same guard as uploaded works, ``lib.text.archives.check_sizes``);
``datapackage.json`` matches the SHA-256 of ``datapackage-digest.json`` and lists every entry
once, each with its size and SHA-256; the evidence layout is there (a WARC under ``archive/``,
``evidence/metadata.json`` and every file it names, with its SHA-256); the WARC records' block
and payload digests hold (warcio), after the gzip members were inflated once under the same
limits; then the timestamp, by the caller's ``check_timestamp``. Entries are read in chunks:
memory stays bounded whatever the bundle.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from lib.evidence.bundle import DATAPACKAGE, DATAPACKAGE_DIGEST
from lib.text.archives import check_sizes
from lib.text.config import DEFAULT, TextConfig
from lib.text.errors import TextError

METADATA = "evidence/metadata.json"
VALID, UNVERIFIED, FAIL = "VALID", "UNVERIFIED", "FAIL"
CHUNK_BYTES = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
# what reading an entry raises for a damaged one: a CRC error, a cut stream, a broken deflate
_READ_ERRORS = (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error)


class TimestampUntrusted(Exception):
    """Raised by a ``check_timestamp`` for a token that holds for this datapackage.json but
    chains to no trusted root (or none was given): the verdict is UNVERIFIED, with the
    exception's text as the reason."""


# check_signature(signedData of datapackage-digest.json, its "hash") -> a line saying who signed;
# raises ValueError (lib.evidence.wacz_signing.SignatureInvalid) when it does not hold.
SignatureCheck = Callable[[dict, str], str]

# check_timestamp(digest fields of datapackage-digest.json, datapackage.json bytes) -> a line
# describing the verified timestamp; raises TimestampUntrusted (UNVERIFIED) or ValueError
# (FAIL: the token is malformed, altered or for another datapackage.json).
TimestampCheck = Callable[[dict, bytes], str]


@dataclass(frozen=True)
class VerifyLimits:
    """What a verification reads at most: ``archive`` (a lib.text TextConfig: its
    ``archive_max_entries``, ``archive_max_bytes`` (all entries, inflated, bytes),
    ``archive_max_ratio`` and ``archive_ratio_min_bytes`` apply to the ZIP's entries and to
    the WARC's gzip members together) and ``json_max_bytes`` (the largest JSON file parsed,
    bytes)."""

    archive: TextConfig = DEFAULT
    json_max_bytes: int = 16 * 2**20


class BundleFailure(Exception):
    """One check failed: ``path`` (the file inside the bundle, or the bundle's own name),
    ``code`` (a stable name of the check, for wording in a reader's language), ``reason``
    (English, with the details) and ``refused`` (True when the bundle was refused as
    malformed or unsafe before its digests could be compared)."""

    def __init__(self, path: str, code: str, reason: str, refused: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path, self.code, self.reason, self.refused = path, code, reason, refused


@dataclass
class Verdict:
    """The result of ``verify_bundle``: ``status`` (VALID, UNVERIFIED or FAIL); ``failure``
    (the BundleFailure of a FAIL, else None); ``unverified`` (why an UNVERIFIED bundle is not
    VALID, English; '' otherwise); ``unverified_code`` ("no_timestamp" or "untrusted");
    ``checked`` (what held, one line each); ``timestamp`` (the verified timestamp's line)."""

    status: str = FAIL
    failure: BundleFailure | None = None
    unverified: str = ""
    unverified_code: str = ""
    checked: list[str] = field(default_factory=list)
    timestamp: str = ""

    @property
    def ok(self) -> bool:
        """True for a VALID bundle only."""
        return self.status == VALID


def verify_bundle(source: str | Path | IO[bytes], check_timestamp: TimestampCheck | None = None,
                  name: str = "", limits: VerifyLimits = VerifyLimits(),
                  check_signature: SignatureCheck | None = None) -> Verdict:
    """Verify the WACZ at ``source`` (a path, or a seekable binary file); ``name`` names it in
    the verdict (default: the path's file name). ``check_timestamp`` None: a timestamp cannot
    be checked, so the best verdict is UNVERIFIED. ``check_signature``: checks the operator's
    ``signedData`` when the bundle carries one (a signature that does not hold is a FAIL; who
    signed goes into ``checked``; the verdict rests on the timestamp). Returns a Verdict;
    never raises for a bad bundle (an unreadable path is a FAIL too)."""
    name = name or (Path(source).name if isinstance(source, str | Path) else "bundle")
    verdict = Verdict()
    try:
        _verify(source, name, (check_timestamp, check_signature), limits, verdict)
    except BundleFailure as failure:
        verdict.status, verdict.failure = FAIL, failure
    return verdict


def _verify(source, name: str, checks, limits: VerifyLimits, verdict: Verdict) -> None:
    try:
        wacz = zipfile.ZipFile(source)
        infos = wacz.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise BundleFailure(name, "not_zip", f"not a readable ZIP file (truncated or not a "
                                             f"WACZ): {exc}", refused=True) from exc
    with wacz:
        entries = _entries(infos, name, limits.archive)
        verdict.checked.append(f"{len(entries)} ZIP entries, each named once, none outside "
                               "the bundle, within the size limits")
        datapackage = _read(wacz, entries, DATAPACKAGE, limits)
        digest = _json(wacz, entries, DATAPACKAGE_DIGEST, limits)
        if digest.get("hash") != "sha256:" + hashlib.sha256(datapackage).hexdigest():
            raise BundleFailure(DATAPACKAGE, "datapackage_digest",
                                f"its SHA-256 is not the one {DATAPACKAGE_DIGEST} records")
        verdict.checked.append(f"{DATAPACKAGE}: SHA-256 as recorded in {DATAPACKAGE_DIGEST}")
        listed = _resources(_json(wacz, entries, DATAPACKAGE, limits, datapackage))
        hashes = {path: _check_file(wacz, entries, path, size, sha) for path, size, sha in listed}
        verdict.checked.append(f"{len(listed)} files: size and SHA-256 as listed in {DATAPACKAGE}")
        known = set(hashes) | {DATAPACKAGE, DATAPACKAGE_DIGEST}
        for path in entries:
            if path not in known:
                raise BundleFailure(path, "not_listed", f"not listed in {DATAPACKAGE}")
        _check_layout(wacz, entries, hashes, known, limits, verdict)
        _check_signature(digest, checks[1], verdict)
        _check_timestamp(digest, datapackage, checks[0], verdict)


def _entries(infos: list[zipfile.ZipInfo], name: str, archive: TextConfig) -> dict:
    """{entry name: ZipInfo}; raises BundleFailure for a name twice, an unsafe name or sizes
    over the limits."""
    entries: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        path = info.filename
        if path in entries:
            raise BundleFailure(path, "duplicate_entry", "the ZIP holds two entries of this "
                                "name (an unzip tool may extract either)", refused=True)
        parts = PurePosixPath(path).parts
        if not path or path.startswith("/") or "\\" in path or ".." in parts or \
                (parts and parts[0].endswith(":")):
            raise BundleFailure(path, "unsafe_name", "an absolute name or one leading out of "
                                "the bundle (/, .., \\)", refused=True)
        entries[path] = info
    try:
        check_sizes(infos, "WACZ", archive)
    except TextError as exc:
        entry = str(exc.params.get("entry", name))
        raise BundleFailure(entry, "archive_bomb", f"refused as an archive bomb: {exc.reason} "
                            f"{exc.params}", refused=True) from exc
    return entries


def _open(wacz: zipfile.ZipFile, entries: dict, path: str) -> IO[bytes]:
    if path not in entries:
        raise BundleFailure(path, "missing", "missing from the bundle")
    return wacz.open(entries[path])


def _read(wacz: zipfile.ZipFile, entries: dict, path: str, limits: VerifyLimits) -> bytes:
    if path in entries and entries[path].file_size > limits.json_max_bytes:
        raise BundleFailure(path, "too_large", f"{entries[path].file_size} bytes, more than the "
                            f"{limits.json_max_bytes} a JSON file may have", refused=True)
    try:
        with _open(wacz, entries, path) as stream:
            return stream.read(limits.json_max_bytes + 1)
    except _READ_ERRORS as exc:
        raise BundleFailure(path, "unreadable", f"cannot be read: {exc}") from exc


def _json(wacz, entries, path: str, limits: VerifyLimits, data: bytes | None = None) -> dict:
    try:
        value = json.loads(_read(wacz, entries, path, limits) if data is None else data)
    except ValueError as exc:
        raise BundleFailure(path, "not_json", f"not valid JSON: {exc}", refused=True) from exc
    if not isinstance(value, dict):
        raise BundleFailure(path, "not_json", "not a JSON object", refused=True)
    return value


def _resources(datapackage: dict) -> list[tuple[str, int | None, str]]:
    """(path, bytes or None, hash) of each resource datapackage.json lists; raises BundleFailure
    for a list that is malformed or names a file twice."""
    resources = datapackage.get("resources")
    if not isinstance(resources, list):
        raise BundleFailure(DATAPACKAGE, "bad_resources", '"resources" is not a list',
                            refused=True)
    listed, seen = [], set()
    for resource in resources:
        if not (isinstance(resource, dict) and isinstance(resource.get("path"), str)
                and isinstance(resource.get("hash"), str)
                and isinstance(resource.get("bytes", 0), int)):
            raise BundleFailure(DATAPACKAGE, "bad_resources", "a resource without a path and "
                                f"a hash: {str(resource)[:80]}", refused=True)
        if resource["path"] in seen:
            raise BundleFailure(resource["path"], "listed_twice", f"listed twice in {DATAPACKAGE}",
                                refused=True)
        seen.add(resource["path"])
        listed.append((resource["path"], resource.get("bytes"), resource["hash"]))
    return listed


def _sha256(wacz: zipfile.ZipFile, entries: dict, path: str) -> tuple[str, int]:
    """The SHA-256 (hex) and size (bytes) of an entry, read in chunks."""
    sha, size = hashlib.sha256(), 0
    try:
        with _open(wacz, entries, path) as stream:
            while chunk := stream.read(CHUNK_BYTES):
                sha.update(chunk)
                size += len(chunk)
    except _READ_ERRORS as exc:  # CRC, cut
        raise BundleFailure(path, "unreadable", f"cannot be read: {exc}") from exc
    return sha.hexdigest(), size


def _check_file(wacz, entries: dict, path: str, size: int | None, listed_hash: str) -> str:
    """The entry's SHA-256 (hex) once its size and hash are those listed; raises BundleFailure."""
    sha, actual = _sha256(wacz, entries, path)
    if size is not None and actual != size:
        raise BundleFailure(path, "size_mismatch", f"{actual} bytes, {DATAPACKAGE} lists {size}")
    if listed_hash != "sha256:" + sha:
        raise BundleFailure(path, "hash_mismatch", f"SHA-256 differs from {DATAPACKAGE}")
    return sha


def _check_layout(wacz, entries: dict, hashes: dict, known: set, limits: VerifyLimits,
                  verdict: Verdict) -> None:
    """The evidence layout: WARCs under archive/ (their records' digests), metadata.json and
    the SHA-256 of every file it names (``hashes``: those already computed, by path)."""
    warcs = sorted(p for p in known if p.startswith("archive/") and p.endswith((".warc", ".warc.gz")))
    if not warcs:
        raise BundleFailure("archive/", "no_warc", "no WARC file: not an evidence bundle",
                            refused=True)
    for path in warcs:
        records = _check_warc(wacz, entries, path, limits.archive)
        verdict.checked.append(f"{path}: {records} WARC records, block and payload digests")
    if METADATA not in known:
        raise BundleFailure(METADATA, "missing", "missing from the bundle: not an evidence bundle",
                            refused=True)
    named = _json(wacz, entries, METADATA, limits).get("sha256")
    if not isinstance(named, dict) or not named:
        raise BundleFailure(METADATA, "bad_metadata", 'no "sha256" list of the files it names',
                            refused=True)
    for path, sha in named.items():
        if path not in known:
            raise BundleFailure(path, "missing", f"named in {METADATA} but missing from the bundle")
        if (hashes.get(path) or _sha256(wacz, entries, path)[0]) != sha:
            raise BundleFailure(path, "metadata_mismatch", f"SHA-256 differs from {METADATA}")
    verdict.checked.append(f"{METADATA}: SHA-256 of the {len(named)} files it names")


def _check_warc(wacz, entries: dict, path: str, archive: TextConfig) -> int:
    _inflate_within_limits(wacz, entries, path, archive)
    records = 0
    try:
        with _open(wacz, entries, path) as stream:
            for record in ArchiveIterator(stream, check_digests="raise"):
                content = record.content_stream()
                while content.read(CHUNK_BYTES):
                    pass
                records += 1
    except (ArchiveLoadFailed, OSError, ValueError, EOFError, zlib.error) as exc:
        raise BundleFailure(path, "warc_record", f"WARC record {records + 1}: {exc}") from exc
    return records


def _inflate_within_limits(wacz, entries: dict, path: str, archive: TextConfig) -> None:
    """Inflate the WARC's gzip members once, discarding the bytes, and refuse it as soon as
    they exceed ``archive_max_bytes`` or ``archive_max_ratio`` times the entry's size (from
    ``archive_ratio_min_bytes`` on): warcio inflates a whole member to skip it."""
    size = entries[path].file_size
    cap = min(archive.archive_max_bytes, max(archive.archive_ratio_min_bytes,
                                             archive.archive_max_ratio * max(size, 1)))
    inflated = 0
    try:
        with _open(wacz, entries, path) as stream:
            head = stream.read(CHUNK_BYTES)
            if not head.startswith(_GZIP_MAGIC):
                return  # a plain WARC: its inflated size is its size, checked with the ZIP's
            pending, member = head, zlib.decompressobj(zlib.MAX_WBITS | 16)
            while pending:
                inflated += len(member.decompress(pending, CHUNK_BYTES))
                pending = member.unconsumed_tail
                if member.eof:  # next member
                    pending, member = member.unused_data + pending, zlib.decompressobj(
                        zlib.MAX_WBITS | 16)
                if inflated > cap:
                    raise BundleFailure(path, "archive_bomb", f"its gzip records inflate to more "
                                        f"than {cap} bytes: refused as an archive bomb",
                                        refused=True)
                if not pending:
                    pending = stream.read(CHUNK_BYTES)
    except _READ_ERRORS as exc:
        raise BundleFailure(path, "warc_record", f"not a readable gzip WARC: {exc}") from exc


def _check_signature(digest: dict, check_signature, verdict: Verdict) -> None:
    if "signedData" not in digest:
        return
    if check_signature is None:
        verdict.checked.append(f"{DATAPACKAGE_DIGEST}: signedData present, not checked here")
        return
    signed = digest["signedData"]
    try:
        if not isinstance(signed, dict):
            raise ValueError("signedData is not a JSON object")
        verdict.checked.append(f"{DATAPACKAGE_DIGEST}: {check_signature(signed, digest['hash'])}")
    except ValueError as exc:
        raise BundleFailure(DATAPACKAGE_DIGEST, "signature", f"the signature does not hold: {exc}") from exc


def _check_timestamp(digest: dict, datapackage: bytes, check_timestamp, verdict: Verdict) -> None:
    if "timestamp" not in digest:
        verdict.status, verdict.unverified_code = UNVERIFIED, "no_timestamp"
        verdict.unverified = "the bundle carries no trusted timestamp: its digests prove nothing"
        return
    if check_timestamp is None:
        verdict.status, verdict.unverified_code = UNVERIFIED, "untrusted"
        verdict.unverified = "no trusted root was given to check the timestamp against"
        return
    try:
        verdict.timestamp = check_timestamp(digest, datapackage)
    except TimestampUntrusted as exc:
        verdict.status, verdict.unverified_code, verdict.unverified = UNVERIFIED, "untrusted", str(exc)
        return
    except ValueError as exc:
        raise BundleFailure(DATAPACKAGE_DIGEST, "timestamp", f"timestamp does not hold: {exc}") from exc
    verdict.checked.append(f"{DATAPACKAGE_DIGEST}: {verdict.timestamp}")
    verdict.status = VALID
