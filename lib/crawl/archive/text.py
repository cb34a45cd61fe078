"""The text of an archive record, taken as the crawl pipeline takes a fetched page's.

A WARC ``response`` record's payload goes through the crawler's path (lib.crawl.pipeline):
its HTTP Content-Type decides the kind (lib.crawl.fetch.kind_of), ``lib.text``
decodes it and extracts the main text and title (HTML: one lxml tree and resiliparse); only
2xx responses of HTML or plain text are read. A WET ``conversion`` record is already the
page's text (UTF-8, as Common Crawl writes it): it is only normalised
(``lib.text.normalize``), as a plain-text page would be.

``matched_texts`` is what an archive scan does per batch of records: most records copy nothing,
so a WET record's text is first matched as written, and normalised (then matched again, for
passages whose offsets are those of the stored text) only when that found something;
normalising was the largest share of a record's CPU time, and the batch's one index lookup
saves a Redis round trip per record (bench/README.md, "Web-archive scans").
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.crawl.archive.reader import ArchiveRecord
from lib.crawl.fetch import kind_of
from lib.text import decode_bytes, extract_document, normalize
from lib.text.html import parse_html


@dataclass(frozen=True)
class RecordText:
    """``text`` (normalised, '' when extraction found none), ``title`` (None when unknown),
    ``encoding`` (how the bytes were decoded, as the page store records it) and
    ``extraction`` ({"method", "error"}, as the page store records it)."""

    text: str
    title: str | None
    encoding: str
    extraction: dict


def record_text(record: ArchiveRecord) -> RecordText | None:
    """The text of ``record`` (reader.ArchiveRecord), or None when it has none to match: a
    record that is neither a response nor a conversion, a response whose status is not 2xx or
    whose Content-Type the crawler does not read as a page (images, feeds, scripts ...).
    Never raises on bad bytes or markup (the failure is in ``extraction["error"]``)."""
    if record.kind == "conversion":
        return RecordText(normalize(record.body.decode("utf-8", "replace")), None, "utf-8 (wet)",
                          {"method": "wet", "error": None})
    if record.kind != "response" or not (record.status and 200 <= record.status < 300):
        return None
    kind = kind_of(record.content_type)
    if kind not in ("html", "text"):
        return None
    decoded = decode_bytes(record.body, record.content_type or None)
    parsed = parse_html(decoded.text) if kind == "html" else decoded.text
    extracted = extract_document(parsed, kind, record.uri or None, with_author=False,
                                 with_date=False)
    return RecordText(extracted.text, extracted.title or None,
                      f"{decoded.encoding} ({decoded.source})",
                      {"method": extracted.method, "error": extracted.error})


def matched_texts(records: list[ArchiveRecord], engine) -> list[tuple[RecordText, list] | None]:
    """For each of ``records``, in order: (the record's RecordText, the works ``engine`` (a
    fingerprint.Engine) finds in it, a non-empty list of fingerprint.Match whose passages are
    offsets in that text), or None when the record has no text or its text copies nothing.
    One index lookup for the whole batch (``Engine.match_many``: one Redis round trip instead
    of one per record); only the few WET records whose text as written matched are normalised
    and matched again, one by one. Raises what ``engine.match`` raises."""
    extracted: dict[int, RecordText] = {}
    asked: list[tuple[int, str]] = []
    for i, record in enumerate(records):
        if record.kind == "conversion":  # matched as written first (the module docstring)
            asked.append((i, record.body.decode("utf-8", "replace")))
            continue
        text = record_text(record)
        if text is not None and text.text:
            extracted[i] = text
            asked.append((i, text.text))
    out: list[tuple[RecordText, list] | None] = [None] * len(records)
    for (i, _), found in zip(asked, engine.match_many([t for _, t in asked]), strict=True):
        if found and i in extracted:
            out[i] = (extracted[i], found)
        elif found:
            text = record_text(records[i])
            found = engine.match(text.text) if text is not None and text.text else []
            out[i] = (text, found) if text is not None and found else None
    return out
