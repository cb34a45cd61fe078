"""WARC/1.1 records (ISO 28500:2017) of a raw HTTP exchange, written with warcio.

Each hop of a ``lib.crawl.exchange.Exchange`` becomes a ``request`` record and a ``response``
record (``WARC-Concurrent-To`` linking them, ``WARC-IP-Address`` the server, ``WARC-Date`` the
time the request was sent), after one ``warcinfo`` record naming the software. The response
body is stored as received: Content-Encoding kept, only the HTTP/1.1 chunk framing removed
(its header is kept as ``X-Archive-Orig-Transfer-Encoding``, the convention of pywb and
Webrecorder's tools); a body not read whole carries ``WARC-Truncated: length``. warcio adds the
``WARC-Block-Digest`` and ``WARC-Payload-Digest`` (SHA-1, base 32, as the WARC standard's
examples and the Webrecorder tools do). A hop over TLS is followed by a ``metadata`` record
(JSON, ``WARC-Concurrent-To`` its response): the session's version, cipher, SNI and validation
result, and the whole certificate chain the server sent.
"""

from __future__ import annotations

import io
import json

from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import datetime_to_iso_date
from warcio.warcwriter import WARCWriter

from lib.crawl.exchange import Exchange

WARC_VERSION = "WARC/1.1"


def exchange_warc(exchange: Exchange, *, software: str, filename: str = "data.warc.gz") -> bytes:
    """The gzip-compressed WARC file (bytes, one gzip member per record) of every hop of
    ``exchange``, headed by a warcinfo record naming ``software`` (str) and ``filename``."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    writer.write_record(writer.create_warcinfo_record(filename, {
        "software": software, "format": "WARC File Format 1.1",
        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"}))
    for hop in exchange.hops:
        date = datetime_to_iso_date(hop.started)
        request = writer.create_warc_record(
            hop.url, "request", payload=io.BytesIO(b""),
            http_headers=StatusAndHeaders(f"{hop.method} {hop.target} {hop.request_protocol}",
                                          [tuple(h) for h in hop.request_headers],
                                          is_http_request=True),
            warc_headers_dict={"WARC-Date": date})
        response_fields = {"WARC-Date": date,
                           "WARC-Concurrent-To": request.rec_headers.get_header("WARC-Record-ID")}
        if hop.peer_ip:
            response_fields["WARC-IP-Address"] = hop.peer_ip
        if not hop.body_complete:
            response_fields["WARC-Truncated"] = "length"
        headers = [("X-Archive-Orig-Transfer-Encoding", v) if k.lower() == "transfer-encoding"
                   else (k, v) for k, v in hop.response_headers]
        response = writer.create_warc_record(
            hop.url, "response", payload=io.BytesIO(hop.body), length=len(hop.body),
            http_headers=StatusAndHeaders(f"{hop.status} {hop.reason}".strip(), headers,
                                          protocol=hop.protocol),
            warc_headers_dict=response_fields)
        writer.write_record(request)
        writer.write_record(response)
        if hop.tls or hop.certificates:
            writer.write_record(_tls_record(writer, hop, response, date))
    return out.getvalue()


def _tls_record(writer: WARCWriter, hop, response, date: str):
    """The ``metadata`` record of a hop's TLS session: JSON of the session (version, cipher,
    SNI, validation) and the certificate chain the server sent (PEM, leaf first)."""
    body = json.dumps({"tls": hop.tls, "certificates_pem": hop.certificates},
                      ensure_ascii=False, indent=1).encode("utf-8")
    return writer.create_warc_record(
        hop.url, "metadata", payload=io.BytesIO(body), length=len(body),
        warc_content_type="application/json",
        warc_headers_dict={"WARC-Date": date,
                           "WARC-Concurrent-To": response.rec_headers.get_header("WARC-Record-ID")})


# not the page's URL: a replay tool would show them in its place
DOM_SNAPSHOT_URI, VISIT_URI = "file:///dom-snapshot.html", "file:///witnessed-visit.json"


def witness_warc(url: str, dom_html: str, visited_at, visit: dict) -> bytes:
    """The gzip WARC records a witnessed visit adds to those of its recording proxy: a
    ``resource`` record of the DOM as rendered (``DOM_SNAPSHOT_URI``, text/html,
    ``WARC-Refers-To-Target-URI`` the page ``url``) and a ``metadata`` record (``VISIT_URI``, JSON ``visit``:
    the browser's user agent, the requests refused, the cuts at the byte limit), both dated
    ``visited_at`` (aware datetime). Returns bytes, one gzip member per record."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    date = datetime_to_iso_date(visited_at)
    body = dom_html.encode("utf-8")
    snapshot = writer.create_warc_record(
        DOM_SNAPSHOT_URI, "resource", payload=io.BytesIO(body), length=len(body),
        warc_content_type="text/html; charset=utf-8",
        warc_headers_dict={"WARC-Date": date, "WARC-Refers-To-Target-URI": url})
    writer.write_record(snapshot)
    meta = json.dumps(visit, ensure_ascii=False, indent=1).encode("utf-8")
    writer.write_record(writer.create_warc_record(
        VISIT_URI, "metadata", payload=io.BytesIO(meta), length=len(meta),
        warc_content_type="application/json",
        warc_headers_dict={"WARC-Date": date, "WARC-Refers-To-Target-URI": url,
                           "WARC-Concurrent-To": snapshot.rec_headers.get_header("WARC-Record-ID")}))
    return out.getvalue()
