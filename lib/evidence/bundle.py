"""One WACZ bundle (WACZ 1.1.1, https://specs.webrecorder.net/wacz/1.1.1/) per capture.

The ``wacz`` package's ``WACZIndexer`` (Webrecorder) indexes the WARC (``indexes/index.cdx.gz``
and ``index.idx``) and writes ``datapackage.json`` (the path, size and SHA-256 of every file of
the ZIP) and ``datapackage-digest.json`` (the SHA-256 of datapackage.json). Its command line
(``wacz create``) packs only WARCs, page lists and logs; the capture's other files (screenshot,
PDF print, text, passages, metadata, provenance page) go under ``evidence/`` here, before the
datapackage is written, so that its digests cover them too. ``pages/pages.jsonl`` names the
captured URL as the page to open, so that ReplayWeb.page replays it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import tempfile
import types
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from wacz.main import DEFAULT_NUM_LINES
from wacz.waczindexer import WACZIndexer

WARC_PATH = "archive/data.warc.gz"
DATAPACKAGE, DATAPACKAGE_DIGEST = "datapackage.json", "datapackage-digest.json"

# stamp(datapackage.json bytes) -> fields added to datapackage-digest.json (e.g. a timestamp)
Stamp = Callable[[bytes], dict]


@dataclass(frozen=True)
class Bundle:
    """A built WACZ: ``data`` (bytes), ``sha256`` (hex, of data), ``datapackage_sha256`` (hex,
    of its datapackage.json: what a trusted timestamp covers), ``digest_fields`` (what
    ``stamp`` added to datapackage-digest.json)."""

    data: bytes
    sha256: str
    datapackage_sha256: str
    digest_fields: dict


def build_wacz(warc: bytes, files: dict[str, bytes], *, main_url: str, captured_at: datetime,
               title: str, description: str, software: str, stamp: Stamp | None = None) -> Bundle:
    """Pack ``warc`` (a gzip WARC file) and ``files`` ({path under the ZIP, e.g.
    "evidence/screenshot.png": bytes}; each path one folder deep, as WACZ validators expect)
    into a WACZ whose main page is ``main_url`` captured at ``captured_at`` (aware datetime).

    ``title``, ``description``, ``software``: datapackage.json's fields (str). ``stamp``: called
    with datapackage.json's bytes; the dict it returns is added to datapackage-digest.json.
    Returns a Bundle. Raises ValueError for a file path that is not one folder deep.
    """
    for path in files:
        if path.count("/") != 1:
            raise ValueError(f"bundle file {path!r} must be one folder deep")
    when = captured_at.utctimetuple()[:6]
    out = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(out, "w") as wacz:
        warc_file = Path(tmp) / Path(WARC_PATH).name
        warc_file.write_bytes(warc)
        index = io.StringIO()
        with wacz.open(zipfile.ZipInfo("indexes/index.cdx.gz", when), "w") as cdx:
            indexer = WACZIndexer(
                index, [str(warc_file)], sort=True, post_append=True, compress=cdx,
                lines=DEFAULT_NUM_LINES, digest_records=True, fields="referrer,req.http:cookie",
                data_out_name="index.cdx.gz", hash_type="sha256", main_url=main_url,
                main_ts=captured_at.strftime("%Y%m%d%H%M%S"), detect_pages=False,
                passed_pages_dict={}, extract_text=False)
            with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
                indexer.process_all()
        _write(wacz, "indexes/index.idx", index.getvalue().encode("utf-8"), when)
        _write(wacz, WARC_PATH, warc, when, compress=False)  # WACZ: WARCs stored, not deflated
        _write(wacz, "pages/pages.jsonl", _pages(main_url, captured_at, title), when)
        for path, data in files.items():
            _write(wacz, path, data, when, compress=not path.endswith((".png", ".pdf")))
        meta = types.SimpleNamespace(title=title, desc=description, date=None)
        datapackage = json.loads(indexer.generate_datapackage(meta, wacz))
        datapackage["software"] = f"{software}; {datapackage['software']}"
        datapackage_bytes = json.dumps(datapackage, indent=2, ensure_ascii=False).encode("utf-8")
        _write(wacz, DATAPACKAGE, datapackage_bytes, when)
        digest = json.loads(indexer.generate_datapackage_digest(datapackage_bytes))
        added = stamp(datapackage_bytes) if stamp else {}
        _write(wacz, DATAPACKAGE_DIGEST,
               json.dumps({**digest, **added}, indent=2).encode("utf-8"), when)
    data = out.getvalue()
    return Bundle(data, hashlib.sha256(data).hexdigest(),
                  hashlib.sha256(datapackage_bytes).hexdigest(), added)


def _pages(url: str, at: datetime, title: str) -> bytes:
    lines = [{"format": "json-pages-1.0", "id": "pages", "title": "Pages"},
             {"id": uuid.uuid4().hex, "url": url, "ts": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "title": title}]
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode("utf-8") + b"\n"


def _write(wacz: zipfile.ZipFile, path: str, data: bytes, when, compress: bool = True) -> None:
    info = zipfile.ZipInfo(path, when)
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    wacz.writestr(info, data)


def restamp(data: bytes, stamp: Stamp) -> Bundle | None:
    """A copy of the WACZ ``data`` whose datapackage-digest.json gains what ``stamp`` returns
    for its datapackage.json (every other file byte for byte the same), or None when ``stamp``
    returns nothing. Raises zipfile.BadZipFile or KeyError for a bundle that is not a WACZ."""
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        datapackage = src.read(DATAPACKAGE)
        added = stamp(datapackage)
        if not added:
            return None
        digest = {**json.loads(src.read(DATAPACKAGE_DIGEST)), **added}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as dst:
            for info in src.infolist():
                body = src.read(info)
                if info.filename == DATAPACKAGE_DIGEST:
                    body = json.dumps(digest, indent=2).encode("utf-8")
                dst.writestr(info, body)
    new = out.getvalue()
    return Bundle(new, hashlib.sha256(new).hexdigest(), hashlib.sha256(datapackage).hexdigest(),
                  added)
