"""One evidence capture: the exchange that found the page, a witnessed visit of it (every request
and response of the browser, a DOM snapshot, a screenshot and a PDF print), its text and the
match's passages, metadata and a provenance page, packed as a WACZ bundle.

The witnessed visit (``witness``, with CAPTURE_WITNESSED): Chromium loads the page from its URL
through a recording proxy (``lib.evidence.recorder``: warcprox under the SSRF guard and
the CAPTURE_MAX_BYTES budget), with a normal browser's user agent; the proxy's WARC records,
the DOM snapshot (a ``resource`` record) and a ``metadata`` record of the visit follow the
detection exchange in the bundle's WARC. The screenshot and the PDF come from that visit. A
proxy that fails is started again (CAPTURE_RECORDER_ATTEMPTS); then the attempt fails with the
reason. Without CAPTURE_WITNESSED, the screenshot is a rendering of the exchange's HTML, below.

The WARC is the raw exchange of the fetch that found the page version (stashed by the crawl,
``lib.crawl.exchange``), or, for a removal capture, the exchange of the takedown check that
found it gone or changed. Only when that exchange was not kept (stashed longer ago than its
TTL, over the stash's byte limit, a version stored before captures existed) is the page
fetched now, under robots.txt, the politeness slots and the SSRF guard. The screenshot and the
PDF show the HTML of that exchange as the document at its URL (``Renderer.snapshot``: every
request it makes goes through the SSRF guard and robots.txt), so they show what was received
then, even when the page is gone by capture time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlsplit

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_noop

from core import notes
from crawler import labels, scans
from crawler.evidence.models import Capture, CaptureKind
from crawler.evidence.trust import Stamper, bundle_signature
from crawler.takedown import polite_slot
from lib.crawl.exchange import ContentDecoder, Exchange
from lib.crawl.outcomes import Outcome
from lib.evidence.bundle import Bundle, build_wacz
from lib.evidence.environment import capture_environment
from lib.evidence.recorder import Recorder, RecorderFailed
from lib.evidence.video import screen_recording
from lib.evidence.warc import DOM_SNAPSHOT_URI, exchange_warc, witness_warc
from lib.text import decode_bytes

WARC = "archive/data.warc.gz"
SCREENSHOT, PRINT = "evidence/screenshot.png", "evidence/page.pdf"
RECORDING = "evidence/visit.mp4"
TEXT, PASSAGES = "evidence/text.txt", "evidence/passages.json"
METADATA, PROVENANCE = "evidence/metadata.json", "evidence/provenance.html"
_RENDER_PROBLEMS = {Outcome.RENDER_TIMEOUT: gettext_noop("render timeout"),
                    Outcome.BROWSER_CRASHED: gettext_noop("the browser crashed"),
                    Outcome.BROWSER_MISSING: gettext_noop("no browser on this worker")}


def software() -> str:
    """The software that captures: "copyright-tracker <version>"."""
    try:
        return f"copyright-tracker {version('copyright-tracker')}"
    except PackageNotFoundError:
        return "copyright-tracker (version unknown)"


class NothingToCapture(ValueError):
    """No exchange of the page was kept and none is to be had now: ``note`` (a coded note,
    ``core.notes``) says why in the reader's language; the message is its English with the
    fetcher's ``detail`` (for the log)."""

    def __init__(self, note: str, detail: str = ""):
        super().__init__(notes.in_english(note) + (f" ({detail})" if detail else ""))
        self.note, self.detail = note, detail


@dataclass
class Captured:
    """What ``capture`` made: the Bundle, the outcome (a coded note) and the Stamper's result."""

    bundle: Bundle
    outcome: str
    stamping: object


def capture(record: Capture) -> Captured:
    """Make the bundle of ``record`` (a Capture whose match still exists).

    Returns Captured. Raises the storage errors of MongoDB and Redis (the task retries) and
    NothingToCapture when there is nothing to capture (no exchange kept and no answer now).
    """
    crawler = scans.get_crawler()
    match = record.match
    exchange, fetched_now = _exchange(crawler, record)
    version = crawler.pages.version(record.version_id)
    final = exchange.hops[-1]
    html = _html(final)  # '' for a 404 or any answer that is not a whole 2xx HTML page
    shot = visit = None
    if html and settings.CAPTURE_WITNESSED:
        shot, visit = witness(crawler, final.url, _accepts_invalid_certificate(record))
    if html and (shot is None or (shot.outcome is Outcome.OK and not 200 <= shot.status < 300)):
        # not witnessed, or the page is gone by now: show the page as the crawl received it
        shot = crawler.renderer.snapshot(
            final.url, html, _robots_check(crawler), width=settings.CAPTURE_VIEWPORT_WIDTH,
            max_height=settings.CAPTURE_MAX_HEIGHT, timeout=settings.CAPTURE_RENDER_TIMEOUT_SECONDS)
    outcome = _outcome(record, final, shot, fetched_now, visit)
    captured_at = datetime.now(UTC)
    files = {}
    if shot is not None and shot.outcome is Outcome.OK:
        files[SCREENSHOT], files[PRINT] = shot.png, shot.pdf
    if visit is not None and visit.video:
        files[RECORDING] = visit.video
    if record.kind == CaptureKind.DETECTION:  # a removal shows what the check found instead
        files[TEXT] = (version.text if version else "").encode("utf-8")
        files[PASSAGES] = _json(_passages(match, version))
    warc = exchange_warc(exchange, software=software())
    if visit is not None:
        warc += visit.warc
    context = _metadata(record, exchange, shot, outcome, captured_at, fetched_now)
    context["witnessed_visit"] = visit.metadata if visit is not None else None
    context["environment"] = capture_environment(
        final.url, chromium_path=crawler.config.chromium_path, ntp_server=settings.NTP_SERVER,
        ntp_timeout_seconds=settings.NTP_TIMEOUT_SECONDS)
    context["sha256"] = {WARC: hashlib.sha256(warc).hexdigest(),
                         **{p: hashlib.sha256(d).hexdigest() for p, d in files.items()}}
    files[PROVENANCE] = render_to_string("evidence/provenance.html", {
        "meta": context, "match": match, "languages": [
            (code, _in_language(code, outcome)) for code in ("zh-hans", "en")]}).encode("utf-8")
    context["sha256"][PROVENANCE] = hashlib.sha256(files[PROVENANCE]).hexdigest()
    files[METADATA] = _json(context)
    stamper = Stamper()
    bundle = build_wacz(warc, files, main_url=final.url, captured_at=final.started,
                        title=(version.title if version and version.title else match.url)[:300],
                        description=f"{record.get_kind_display()} capture of {record.url}",
                        software=software(),
                        stamp=lambda data: {**stamper(data), **bundle_signature(data, software())})
    if stamper.result.status == "pending":
        outcome = notes.coded("captured_tsa_pending", gettext_noop(
            "%(outcome)s; timestamp pending: no time-stamping authority answered"),
            outcome=outcome)
    return Captured(bundle, outcome, stamper.result)


@dataclass
class Visit:
    """A witnessed visit: ``warc`` (the recording proxy's records and the DOM snapshot's),
    ``metadata`` (what metadata.json says of it) and ``video`` (its screen recording, MP4
    bytes; b"" when not filmed)."""

    warc: bytes
    metadata: dict
    video: bytes = b""


def witness(crawler, url: str, accept_invalid_certificate: bool = False):
    """Visit ``url`` in the crawler's browser through a recording proxy (Renderer.witness under
    a Recorder), starting a proxy again when one fails, up to CAPTURE_RECORDER_ATTEMPTS.
    ``accept_invalid_certificate`` (the target site's setting): the page's host is visited even
    when its certificate does not validate, the error recorded in the visit's metadata.

    Returns (RenderResult, Visit): the visit is recorded even when it gave no picture (a
    render timeout). Raises RecorderFailed with the last proxy's failure when every proxy
    failed.
    """
    check = None if not settings.CAPTURE_REQUISITES_OBEY_ROBOTS else _robots_check(crawler)
    attempts = max(settings.CAPTURE_RECORDER_ATTEMPTS, 1)
    for _ in range(attempts):
        started = datetime.now(UTC)
        try:
            with Recorder(settings.CAPTURE_RECORDER_PYTHON, settings.CAPTURE_RECORDER_CA_FILE,
                          crawler.config.allow_addresses, settings.CAPTURE_MAX_BYTES,
                          crawler.config.ca_bundle,
                          settings.CAPTURE_RECORDER_START_SECONDS,
                          (urlsplit(url).hostname or "",) if accept_invalid_certificate
                          else ()) as recorder:
                shot = crawler.renderer.witness(
                    url, check, proxy=recorder.proxy_url, proxy_spki=recorder.ca_spki(),
                    width=settings.CAPTURE_VIEWPORT_WIDTH, max_height=settings.CAPTURE_MAX_HEIGHT,
                    timeout=settings.CAPTURE_RENDER_TIMEOUT_SECONDS,
                    max_frames=(settings.CAPTURE_RECORDING_MAX_FRAMES
                                if settings.CAPTURE_SCREEN_RECORDING else 0))
                recording = recorder.finish()
        except RecorderFailed as exc:
            failure = exc
            continue
        meta = {"started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "url": url,
                "document_status": shot.status,
                "recorder": "warcprox", "requests_sent": shot.requests,
                "requests_refused": [list(r) for r in shot.refused],
                "byte_limit": settings.CAPTURE_MAX_BYTES, "cut_at_byte_limit": recording.cuts,
                "invalid_certificates_accepted": recording.tls_errors,
                "requisites_obey_robots": settings.CAPTURE_REQUISITES_OBEY_ROBOTS,
                "dom_snapshot": DOM_SNAPSHOT_URI if shot.html else None}
        video = _film(shot, url)
        meta["screen_recording"] = ({"file": RECORDING, "frames": len(shot.frames),
                                     "first_frame_at": _utc(shot.frames[0][0]),
                                     "last_frame_at": _utc(shot.frames[-1][0]),
                                     "fps": settings.CAPTURE_RECORDING_FPS}
                                    if video else None)
        records = recording.warc + (witness_warc(url, shot.html, started, meta) if shot.html
                                    else b"")
        return shot, Visit(records, meta, video)
    raise RecorderFailed(f"{failure} ({attempts} proxies tried)")


def _film(shot, url: str) -> bytes:
    """The screen recording of a filmed visit (MP4 bytes; b"" without frames)."""
    if not shot.frames:
        return b""
    return screen_recording(shot.frames, url, width=settings.CAPTURE_VIEWPORT_WIDTH, height=900,
                            fps=settings.CAPTURE_RECORDING_FPS,
                            tail_seconds=settings.CAPTURE_RECORDING_TAIL_SECONDS)


def _utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _accepts_invalid_certificate(record: Capture) -> bool:
    site = record.match.site
    return bool(site and site.accept_invalid_certificate)


def _exchange(crawler, record: Capture) -> tuple[Exchange, bool]:
    """(exchange, fetched now) of ``record``: the exchange the crawl stashed, else the page
    fetched now (``_fetch_now``). Raises NothingToCapture when neither is to be had."""
    exchange = crawler.exchanges.get(record.exchange_key) if record.exchange_key else None
    if exchange is not None and exchange.hops:
        return exchange, False
    try:
        return _fetch_now(crawler, record), True
    except NothingToCapture as exc:
        raise NothingToCapture(_not_fetched(record, exc.note), exc.detail) from exc


def _fetch_now(crawler, record: Capture) -> Exchange:
    """The page's exchange fetched now, under robots.txt and the politeness slots. Raises
    NothingToCapture whose note says why not (robots.txt forbids it, or no answer)."""
    accept = _accepts_invalid_certificate(record)
    policy = crawler.robots.policy(record.url, accept)
    if not policy.allowed(record.url):
        raise NothingToCapture(notes.coded("capture_robots_now", gettext_noop(
            "robots.txt now forbids %(url)s"), url=record.url))
    polite_slot(crawler, record.url, max(crawler.config.default_delay_seconds,
                                         policy.crawl_delay or 0.0))
    result = crawler.fetcher.fetch(record.url, accept_invalid_certificate=accept)
    if not result.exchange.hops:
        why = (notes.coded("host_unresolvable", gettext_noop("its host name does not resolve"))
               if result.outcome is Outcome.SSRF_REFUSED and result.reason.endswith("unresolvable")
               else labels.outcome_note(result.outcome.value))
        raise NothingToCapture(notes.coded("capture_no_answer", gettext_noop(
            "%(url)s gave no answer now: %(why)s"), url=record.url, why=why), result.reason)
    return result.exchange


def _not_fetched(record: Capture, why: str) -> str:
    """The coded note of a capture with no exchange kept whose page cannot be fetched now
    (``why``, a coded note): a copy found in a web archive names its record there (the first
    archive find), any other says its exchange was not kept."""
    find = record.match.archive_finds.order_by("pk").first()
    if find is None:
        return notes.coded("capture_not_kept", gettext_noop(
            "the exchange that found the page was not kept, and %(why)s"), why=why)
    return notes.coded("capture_archive_only", gettext_noop(
        "this copy was found in a web archive (%(file)s, record at byte %(offset)s, WARC-Date "
        "%(date)s) and %(why)s; the archive's record stays the record of this copy (it is not "
        "made into an evidence bundle)"), file=find.source.rsplit("/", 1)[-1] or find.source,
        offset=find.offset, date=find.warc_date or "-", why=why)


def _html(hop) -> str:
    """The decoded HTML of ``hop``'s body ('' when it is not a complete 2xx HTML answer)."""
    headers = {k.lower(): v for k, v in hop.response_headers}
    if not (200 <= hop.status < 300 and hop.body_complete) or "html" not in headers.get(
            "content-type", "text/html"):
        return ""
    body = ContentDecoder(headers.get("content-encoding", "")).decode(
        hop.body, scans.get_crawler().config.max_body_bytes)
    return decode_bytes(body, headers.get("content-type")).text


def _robots_check(crawler):
    def check(url: str) -> str | None:
        policy = crawler.robots.policy(url)
        return None if policy.allowed(url) else f"{Outcome.ROBOTS_DISALLOWED.value} ({policy.reason})"

    return check


def _outcome(record: Capture, final, shot, fetched_now: bool, visit) -> str:
    if record.kind == CaptureKind.REMOVAL:
        return notes.coded("removal_captured", gettext_noop(
            "removal captured: HTTP %(status)s at %(url)s"), status=final.status, url=final.url)
    if fetched_now and not 200 <= final.status < 300:
        return notes.coded("captured_gone", gettext_noop(
            "the page was gone at capture time (HTTP %(status)s) and the exchange that found it "
            "was not kept: captured that answer and the stored text"), status=final.status)
    if shot is None:
        return notes.coded("captured_no_page", gettext_noop(
            "captured without screenshot: no HTML page to show"))
    if shot.outcome is not Outcome.OK:
        return notes.coded("captured_no_screenshot", gettext_noop(
            "captured without screenshot: %(problem)s"),
            problem=notes.coded("render_problem", _RENDER_PROBLEMS.get(shot.outcome, shot.reason)))
    if shot.page_height > settings.CAPTURE_MAX_HEIGHT:
        return notes.coded("captured_cut", gettext_noop(
            "captured; the screenshot shows the first %(shown)s of %(height)s pixels"),
            shown=settings.CAPTURE_MAX_HEIGHT, height=shot.page_height)
    if visit is not None and visit.metadata["document_status"] not in range(200, 300):
        return notes.coded("captured_visit_gone", gettext_noop(
            "captured; at the witnessed visit the page answered HTTP %(status)s: the screenshot "
            "shows the page as the crawl received it"), status=visit.metadata["document_status"])
    if fetched_now:
        return notes.coded("captured_live", gettext_noop(
            "captured from a fetch at capture time (the exchange that found the page was not kept)"))
    return notes.coded("captured", gettext_noop("captured"))


def _passages(match, version) -> dict:
    text = version.text if version else ""
    return {"work": {"reference": match.work.reference,
                     "title": match.work.title, "holder": match.work.holder.name},
            "score": match.score, "containment_page": match.containment_page,
            "containment_work": match.containment_work, "chapters": match.section,
            "passages": [{**p, "page_text": text[p["page_start"]:p["page_end"]]}
                         for p in match.passages]}


def _metadata(record: Capture, exchange: Exchange, shot, outcome: str, captured_at: datetime,
              fetched_now: bool) -> dict:
    final = exchange.hops[-1]
    request_headers = dict((k.lower(), v) for k, v in final.request_headers)
    return {
        "kind": record.kind, "capture_id": record.pk, "match_id": record.match_id,
        "page_version_id": record.version_id,
        "outcome": notes.in_english(outcome),
        "bundle_made_at": captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "fetched_at": final.started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "fetched_at_capture_time": fetched_now,
        "requested_url": exchange.hops[0].url, "final_url": final.url,
        "server_ip": final.peer_ip, "server_port": final.peer_port,
        "tls_certificates_pem": final.certificates, "tls": final.tls,
        "http_status": final.status, "response_headers": final.response_headers,
        "user_agent": request_headers.get("user-agent", ""),
        "hops": [{"url": h.url, "status": h.status, "server_ip": h.peer_ip,
                  "server_port": h.peer_port, "sent_at": h.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
                  "request_headers": h.request_headers, "response_headers": h.response_headers,
                  "tls": h.tls, "tls_certificates_pem": h.certificates,
                  "body_bytes_received": len(h.body), "body_complete": h.body_complete}
                 for h in exchange.hops],
        "screenshot": ({"width": settings.CAPTURE_VIEWPORT_WIDTH,
                        "page_height": shot.page_height,
                        "shown_height": min(shot.page_height, settings.CAPTURE_MAX_HEIGHT),
                        "requests_refused": [list(r) for r in shot.refused]}
                       if shot is not None and shot.outcome is Outcome.OK else None),
        "software": software(),
        "closes": _closes(record),
        "takedown_check": ({"id": record.takedown_check_id,
                            "outcome": record.takedown_check.outcome,
                            "checked_at": record.takedown_check.checked_at.isoformat()}
                           if record.takedown_check_id else None),
    }


def _closes(record: Capture) -> dict | None:
    """What a removal capture cites of the detection capture it closes: its id, its bundle's
    and datapackage's SHA-256 and its timestamp's time (ISO 8601, None when not stamped)."""
    closed = record.closed_capture()
    if closed is None:
        return None
    return {"capture_id": closed.pk, "bundle_sha256": closed.bundle_sha256,
            "datapackage_sha256": closed.datapackage_sha256,
            "timestamp_time": closed.timestamped_at.isoformat() if closed.timestamped_at else None}


def _in_language(code: str, note: str) -> str:
    with translation.override(code):
        return notes.in_words(note)


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str).encode("utf-8")
