"""Hand-made bundles for the tests: the evidence files a capture writes beside the WARC, and the
ZIP surgery of forgers and bombs."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

from lib.evidence.bundle import DATAPACKAGE, DATAPACKAGE_DIGEST


def evidence_files(warc: bytes, files: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """``files`` ({path: bytes}) plus the ``evidence/metadata.json`` naming the SHA-256 of
    them and of the WARC (``archive/data.warc.gz``), the layout the verifier requires."""
    files = dict(files or {})
    sha256 = {"archive/data.warc.gz": hashlib.sha256(warc).hexdigest(),
              **{path: hashlib.sha256(data).hexdigest() for path, data in files.items()}}
    files["evidence/metadata.json"] = json.dumps({"sha256": sha256}).encode()
    return files


def entries(data: bytes) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """(ZipInfo, bytes) of each entry of the ZIP ``data``, in order."""
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        return [(info, src.read(info)) for info in src.infolist()]


def zipped(files: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    """A ZIP (bytes) of ``entries`` in order, duplicates and unsafe names written as given."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, body in files:
            dst.writestr(info, body)
    return out.getvalue()


def with_datapackage(files: list, body: bytes) -> bytes:
    """The ZIP of ``files`` ((ZipInfo, bytes) pairs) with datapackage.json replaced by ``body`` and its digest file
    recomputed (no timestamp)."""
    digest = json.dumps({"hash": "sha256:" + hashlib.sha256(body).hexdigest()}).encode()
    return zipped([(i, body if i.filename == DATAPACKAGE else digest
                  if i.filename == DATAPACKAGE_DIGEST else b) for i, b in files])


def zeros_entry(zf: zipfile.ZipFile, name: str, size: int) -> None:
    """Write an entry ``name`` of ``size`` zero bytes (a multiple of 1 MiB), deflated: a bomb
    of about size / 1000 bytes."""
    chunk, info = bytes(2**20), zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as out:
        for _ in range(size // len(chunk)):
            out.write(chunk)


def forged(data: bytes, changes: dict[str, bytes], timestamp_from: bytes | None = None) -> bytes:
    """A copy of ``data`` with ``changes`` ({path: new bytes}) whose every digest is computed
    again, as a forger would: metadata.json, datapackage.json, datapackage-digest.json. The
    timestamp is dropped, or copied from the bundle ``timestamp_from``. Each entry keeps its
    ZIP header (a WARC stays stored, not deflated)."""
    read = entries(data)
    infos = {info.filename: info for info, _body in read}
    files = {info.filename: body for info, body in read}
    files.update(changes)
    metadata = json.loads(files["evidence/metadata.json"])
    metadata["sha256"] = {p: hashlib.sha256(files[p]).hexdigest() for p in metadata["sha256"]}
    files["evidence/metadata.json"] = json.dumps(metadata).encode()
    package = json.loads(files[DATAPACKAGE])
    for resource in package["resources"]:
        body = files[resource["path"]]
        resource["hash"], resource["bytes"] = "sha256:" + hashlib.sha256(body).hexdigest(), len(body)
    files[DATAPACKAGE] = json.dumps(package).encode()
    digest = {"path": DATAPACKAGE, "hash": "sha256:" + hashlib.sha256(files[DATAPACKAGE]).hexdigest()}
    if timestamp_from is not None:
        digest["timestamp"] = json.loads(dict((i.filename, b) for i, b in entries(timestamp_from))
                                         [DATAPACKAGE_DIGEST])["timestamp"]
    files[DATAPACKAGE_DIGEST] = json.dumps(digest).encode()
    return zipped([(infos.get(path, path), body) for path, body in files.items()])
