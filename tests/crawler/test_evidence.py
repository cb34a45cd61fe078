"""Evidence captures end to end: a loopback site, the real worker (queue "capture"), headless
Chromium, the demo time-stamping authority of the test session, WACZ validation by Webrecorder's
validator, and ``verify_evidence`` on the bundle and on tampered copies of it.

The screenshots are kept under the session folder (``evidence-*.png``) to be looked at.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone, translation
from warcio.archiveiterator import ArchiveIterator

from lib.runtime.serving import serve_in_thread
from tests.browsers import needs_chromium
from tests.bundles import evidence_files
from tests.scanning import scan

FIXTURES = Path(__file__).parent / "fixtures"
WACZ_CLI = Path(sys.executable).with_name("wacz")
PAGE = ("<html><head><title>盗版书站 西游记 第一回</title><link rel='stylesheet' href='/site.css'>"
        "</head><body><h1 class='brand'>盗版书站</h1><div id='content'><p>{text}</p></div>"
        "{extra}</body></html>")
CSS = b"body{background:#fffbe6;font-size:18px} .brand{color:#b00000;border-bottom:4px solid #b00000}"


def _chapter() -> str:
    return (FIXTURES / "xiyouji-ch1.txt").read_text(encoding="utf-8")[:2500]


def _registered_work(text: str):
    from core.engine import get_engine
    from core.models import RightsHolder, Work

    holder = RightsHolder.objects.create(name="取证出版社")
    work = Work.objects.create(holder=holder, reference="XYJ-E", title="西游记", author="吴承恩",
                               kind="novel", length=len(text), status="indexed",
                               indexed_at=timezone.now())
    get_engine().add_work(work.engine_id, text)
    return work


def _scan(site, name: str) -> dict:
    call_command("add_site", name, site.url("/"), "--delay", "0", stdout=io.StringIO())
    return scan(name)


def _wait_captures(count: int, timeout: float = 120.0, **filters):
    from crawler.evidence.models import Capture, CaptureState

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = list(Capture.objects.filter(state__in=[CaptureState.DONE, CaptureState.FAILED],
                                           **filters))
        if len(done) >= count:
            return done
        time.sleep(0.5)
    raise AssertionError(f"captures not finished: {list(Capture.objects.values('state', 'outcome'))}")


def _verify(path: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_evidence", str(path), stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue() + err.getvalue()


def _rezip(data: bytes, member: str, change) -> bytes:
    """A copy of the ZIP ``data`` whose ``member`` is replaced by ``change(bytes)``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info, change(body) if info.filename == member else body)
    return out.getvalue()


def _flip(body: bytes) -> bytes:
    at = len(body) // 2
    return body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1:]


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_match_is_captured_as_a_verifiable_timestamped_wacz(idle_worker, site, platform_stores,
                                                              tmp_path):
    from core.models import AuditEvent
    from crawler.evidence.models import CaptureState, TimestampStatus
    from crawler.models import Match

    text = _chapter()
    work = _registered_work(text)
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/site.css", site.Reply(200, {"Content-Type": "text/css"}, CSS))
    page = PAGE.format(text=text, extra="").encode("utf-8")
    site.route("/book/1.html", site.Reply(200, {"Content-Type": "text/html; charset=utf-8",
                                                "Content-Encoding": "gzip"}, gzip.compress(page)))
    result = _scan(site, "取证站")
    assert result["matches_new"] == 1, result
    match = Match.objects.get(work=work)
    [capture] = _wait_captures(1)
    assert capture.state == CaptureState.DONE, capture.outcome
    assert capture.match == match and capture.kind == "detection"
    assert capture.timestamp_status == TimestampStatus.STAMPED and capture.timestamp_token

    data = capture.bundle.read()
    import hashlib
    assert hashlib.sha256(data).hexdigest() == capture.bundle_sha256
    bundle = tmp_path / "capture.wacz"
    bundle.write_bytes(data)
    # Webrecorder's validator: required files, frictionless datapackage, paths and hashes
    checked = subprocess.run([str(WACZ_CLI), "validate", "-f", str(bundle)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 0 and "is valid" in checked.stdout, checked.stdout + checked.stderr

    with zipfile.ZipFile(bundle) as wacz:
        names = set(wacz.namelist())
        assert {"archive/data.warc.gz", "evidence/screenshot.png", "evidence/page.pdf",
                "evidence/text.txt", "evidence/passages.json", "evidence/metadata.json",
                "evidence/provenance.html", "datapackage.json", "datapackage-digest.json",
                "pages/pages.jsonl", "indexes/index.cdx.gz"} <= names
        meta = json.loads(wacz.read("evidence/metadata.json"))
        warc = wacz.read("archive/data.warc.gz")
        png = wacz.read("evidence/screenshot.png")
        provenance = wacz.read("evidence/provenance.html").decode("utf-8")
        passages = json.loads(wacz.read("evidence/passages.json"))
    port = int(site.base.rsplit(":", 1)[1])
    assert meta["final_url"] == site.url("/book/1.html") and meta["http_status"] == 200
    assert meta["server_ip"] == "127.0.0.1" and meta["server_port"] == port
    assert meta["user_agent"].startswith("CopyrightTrackerBot")
    assert ["Content-Encoding", "gzip"] in meta["response_headers"]
    environment = meta["environment"]  # the capture's machine, DNS, browser and clock
    assert environment["dns"]["answers"] == ["127.0.0.1"] and "Chromium" in environment["browser"]
    assert environment["clock"]["status"] == "not checked"  # no TRACKER_NTP_SERVER in the tests
    assert passages["passages"] and "灵根育孕源流出" in passages["passages"][0]["page_text"]
    assert "取证说明" in provenance or "证据" in provenance
    assert "How to verify" in provenance and "openssl ts -verify" in provenance
    # the response record holds the body exactly as received: gzip bytes, as the server sent them
    records = list(ArchiveIterator(io.BytesIO(warc)))
    responses = [r for r in ArchiveIterator(io.BytesIO(warc)) if r.rec_type == "response"]
    # the exchange that found the page first; the witnessed visit's records follow it
    assert [r.rec_type for r in records][:3] == ["warcinfo", "request", "response"]
    raw = [r.raw_stream.read() for r in ArchiveIterator(io.BytesIO(warc)) if r.rec_type == "response"]
    assert raw == [gzip.compress(page)] or gzip.decompress(raw[0]) == page
    assert responses[0].rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    shot = Path(settings.VAR_DIR) / "evidence-detected.png"
    shot.write_bytes(png)  # look at it: the brand in red and the chapter's text

    event = AuditEvent.objects.filter(kind="evidence", new_state="done").get()
    assert capture.bundle_sha256 in event.reason

    code, said = _verify(bundle)
    assert code == 0 and "timestamp" in said.lower() and "VALID" in said, said
    assert "signed by CN=Copyright Tracker evidence reports" in said  # the operator's signedData
    assert "a trusted signer" in said and "time-signed" in said
    # a changed byte in any file of the bundle is found and the file named
    for member in sorted(names):
        tampered = tmp_path / "tampered.wacz"
        tampered.write_bytes(_rezip(data, member, _flip))
        code, said = _verify(tampered)
        assert code == 1 and member in said, (member, said)
    # a flipped byte of the ZIP itself (CRC), a truncated copy
    flipped = tmp_path / "flipped.wacz"
    flipped.write_bytes(_flip(data))
    code, said = _verify(flipped)
    assert code == 1 and "FAIL" in said, said
    truncated = tmp_path / "cut.wacz"
    truncated.write_bytes(data[: len(data) // 3])
    code, said = _verify(truncated)
    assert code == 1 and "cut.wacz" in said, said


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_removed_page_keeps_its_evidence_and_the_removal_is_captured(idle_worker, site,
                                                                       platform_stores, tmp_path):
    from crawler.evidence.models import Capture

    match, detection, removal, check = _found_then_removed(site)
    bundle = tmp_path / "removal.wacz"
    bundle.write_bytes(removal.bundle.read())
    with zipfile.ZipFile(bundle) as wacz:
        meta = json.loads(wacz.read("evidence/metadata.json"))
        assert "evidence/screenshot.png" not in wacz.namelist()
    assert meta["http_status"] == 404 and meta["kind"] == "removal"
    assert meta["takedown_check"]["outcome"] == "removed"
    assert _verify(bundle)[0] == 0
    # the detection's bundle is still there, unchanged
    detection.refresh_from_db()
    assert detection.bundle.storage.exists(detection.bundle.name)
    import hashlib
    assert hashlib.sha256(detection.bundle.read()).hexdigest() == detection.bundle_sha256
    assert Capture.objects.count() == 2


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_removal_capture_cites_the_detection_capture_it_closes(idle_worker, site,
                                                                platform_stores, client):
    from django.contrib.auth import get_user_model

    match, detection, removal, _ = _found_then_removed(site)
    detection.refresh_from_db()  # a fresh file handle
    assert detection.timestamp_status == "stamped"
    with zipfile.ZipFile(io.BytesIO(removal.bundle.read())) as wacz:
        meta = json.loads(wacz.read("evidence/metadata.json"))
    assert meta["closes"] == {"capture_id": detection.pk,
                              "bundle_sha256": detection.bundle_sha256,
                              "datapackage_sha256": detection.datapackage_sha256,
                              "timestamp_time": detection.timestamped_at.isoformat()}
    with zipfile.ZipFile(io.BytesIO(detection.bundle.read())) as wacz:
        assert json.loads(wacz.read("evidence/metadata.json"))["closes"] is None
    client.force_login(get_user_model().objects.create_superuser("staff", "s@example.org", "pw"))
    for language, said in (("en", f"closes capture #{detection.pk}, SHA-256 "
                                  f"{detection.bundle_sha256}"),
                           ("zh-hans", f"了结取证 #{detection.pk}，SHA-256 "
                                       f"{detection.bundle_sha256}")):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(f"/crawler/match/{match.pk}/change/")
        assert page.status_code == 200
        assert said in page.content.decode("utf-8"), language


def _found_then_removed(site):
    """A page found copying a registered work, captured, then removed (404) and found gone by
    a takedown check. Returns (match, detection capture, removal capture, the check)."""
    from core.engine import get_engine
    from crawler.models import CheckOutcome, Match
    from crawler.takedown import verify_match

    text = _chapter()
    work = _registered_work(text)
    page = site.html(PAGE.format(text=text, extra=""))
    gone = site.html("<html><body>该页面已删除</body></html>", status=404)
    served = []

    def once_then_gone(handler):  # the pirate removes the page right after the crawl found it
        served.append(1)
        return page if len(served) == 1 else gone

    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/book/1.html", once_then_gone)
    assert _scan(site, "删除站")["matches_new"] == 1
    match = Match.objects.get(work=work)
    [detection] = _wait_captures(1)
    assert detection.state == "done", detection.outcome
    # the witnessed visit met the page gone (its 404 recorded after the crawl's exchange); the
    # screenshot shows the page as the crawl received it, and the outcome says so
    assert site.hits("/book/1.html") == 2
    from core import notes

    said = notes.in_english(detection.outcome)
    assert "HTTP 404" in said and "as the crawl received it" in said, said
    with zipfile.ZipFile(io.BytesIO(detection.bundle.read())) as wacz:
        assert "evidence/screenshot.png" in wacz.namelist()
        (Path(settings.VAR_DIR) / "evidence-removed-page.png").write_bytes(
            wacz.read("evidence/screenshot.png"))
        warc = wacz.read("archive/data.warc.gz")
    found, visited = [r.content_stream().read() for r in ArchiveIterator(io.BytesIO(warc))
                      if r.rec_type == "response"]
    assert "灵根育孕源流出" in found.decode("utf-8") and "该页面已删除" in visited.decode("utf-8")

    check = verify_match(match, get_engine())  # the takedown check finds it gone: 404
    assert check.outcome == CheckOutcome.REMOVED
    done = _wait_captures(2)
    [removal] = [c for c in done if c.kind == "removal"]
    assert removal.state == "done" and removal.takedown_check == check, removal.outcome
    return match, detection, removal, check


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_page_that_does_not_render_is_captured_without_screenshot(idle_worker, site,
                                                                    platform_stores, tmp_path):
    from core import notes
    from crawler.evidence.models import CaptureState

    text = _chapter()
    _registered_work(text)
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/book/1.html", site.html(PAGE.format(
        text=text, extra="<script>for(;;){}</script>")))  # never reaches its load event
    assert _scan(site, "卡死站")["matches_new"] == 1
    [capture] = _wait_captures(1)
    assert capture.state == CaptureState.DONE
    assert notes.code_of(capture.outcome) == "captured_no_screenshot"
    assert notes.in_english(capture.outcome) == "captured without screenshot: render timeout"
    bundle = tmp_path / "no-shot.wacz"
    bundle.write_bytes(capture.bundle.read())
    with zipfile.ZipFile(bundle) as wacz:
        assert "evidence/screenshot.png" not in wacz.namelist()
        assert "archive/data.warc.gz" in wacz.namelist()
    assert _verify(bundle)[0] == 0


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_capture_whose_worker_was_killed_is_retried_then_given_up(idle_worker, site,
                                                                    platform_stores, settings):
    from core import notes
    from crawler.evidence.models import Capture, CaptureState
    from crawler.evidence.tasks import sweep_captures

    settings.CAPTURE_RETRY_BASE_SECONDS = 0.5  # the sweeper runs here: its countdown is ours
    text = _chapter()
    _registered_work(text)
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/book/1.html", site.html(PAGE.format(text=text, extra="")))
    assert _scan(site, "中断站")["matches_new"] == 1
    [capture] = _wait_captures(1)
    first_bundle = capture.bundle.name
    # what a worker killed mid-capture leaves: running, its message gone (acks_late redelivers
    # a task whose worker dies; this is the case where the broker lost it too)
    long_ago = timezone.now() - timezone.timedelta(seconds=settings.CAPTURE_STUCK_SECONDS + 5)
    Capture.objects.filter(pk=capture.pk).update(state=CaptureState.RUNNING, started_at=long_ago)
    assert sweep_captures()["retried"] == [capture.pk]
    capture.refresh_from_db()
    assert capture.state == CaptureState.PENDING and "worker was lost" in notes.in_english(
        capture.outcome)
    deadline = time.monotonic() + 90
    while capture.state != CaptureState.DONE and time.monotonic() < deadline:
        time.sleep(0.5)
        capture.refresh_from_db()
    assert capture.state == CaptureState.DONE and capture.attempts == 2
    assert capture.bundle.storage.exists(first_bundle)  # the earlier bundle file is kept
    # the last attempt lost too: given up, with the reason, never pending for ever
    Capture.objects.filter(pk=capture.pk).update(state=CaptureState.RUNNING, started_at=long_ago,
                                                 attempts=settings.CAPTURE_MAX_ATTEMPTS)
    assert sweep_captures()["failed"] == [capture.pk]
    capture.refresh_from_db()
    assert capture.state == CaptureState.FAILED
    assert notes.code_of(capture.outcome) == "capture_failed"
    assert "worker was lost" in notes.in_english(capture.outcome)
    with translation.override("zh-hans"):
        assert "取证进程已丢失" in notes.in_words(capture.outcome)


def _bundled_while_the_tsa_was_down(settings, outcome: str):
    """A Capture done with ``outcome`` (a coded note) whose bundle no TSA stamped (the TSA URL
    points at a closed loopback port). Returns (capture, bundle, the demo TSA's URLs)."""
    import socket
    from datetime import UTC, datetime

    from crawler.evidence import actions
    from crawler.evidence.models import TimestampStatus
    from crawler.evidence.trust import Stamper
    from crawler.models import Match
    from lib.crawl.exchange import Exchange, Hop
    from lib.evidence.bundle import build_wacz
    from lib.evidence.warc import exchange_warc

    work = _registered_work(_chapter())
    match = Match.objects.create(work=work, page_id="0" * 24, version_id="1" * 24,
                                 url="http://127.0.0.1/book/1.html", domain="127.0.0.1",
                                 score=0.9, containment_page=0.9, containment_work=0.5)
    with socket.socket() as probe:  # a loopback port where nothing listens: the TSA is down
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    demo = list(settings.TSA_URLS)
    settings.TSA_URLS, settings.TSA_RETRIES, settings.TSA_TIMEOUT_SECONDS = [down], 0, 2.0
    hop = Hop(started=datetime.now(UTC), method="GET", url=match.url, target="/book/1.html",
              request_headers=[["Host", "127.0.0.1"]], status=200, reason="OK",
              response_headers=[["Content-Type", "text/html"]], body=b"<p>x</p>",
              body_complete=True)
    stamper = Stamper()
    warc = exchange_warc(Exchange([hop]), software="test")
    bundle = build_wacz(warc, evidence_files(warc), main_url=match.url,
                        captured_at=hop.started, title="t", description="d", software="test",
                        stamp=stamper)
    assert stamper.result.status == TimestampStatus.PENDING and down in stamper.result.problem
    capture = actions.do_start_capture(actions.do_request_capture(match, match.version_id).pk)
    capture = actions.do_complete_capture(capture, bundle.data, bundle_sha256=bundle.sha256,
                                          datapackage_sha256=bundle.datapackage_sha256,
                                          outcome=outcome, timestamp={"status": "pending"})
    return capture, bundle, demo


@pytest.mark.django_db
def test_a_copy_on_a_gone_site_says_why_it_has_no_bundle_in_both_languages(platform_stores,
                                                                           settings):
    from core import notes
    from crawler.archive_models import ArchiveFind
    from crawler.evidence import actions
    from crawler.evidence.tasks import capture_page
    from crawler.models import Match

    settings.CAPTURE_MAX_ATTEMPTS = 1  # given up at the first attempt: nothing queued again
    work = _registered_work(_chapter())

    def gone_copy(n: int) -> Match:  # .invalid never resolves (RFC 6761); nothing was stashed
        url = f"http://gone{n}.invalid/book/3.html"
        return Match.objects.create(work=work, page_id=f"{n}" * 24, version_id=f"{n}" * 24,
                                    url=url, domain=f"gone{n}.invalid", score=0.9,
                                    containment_page=0.9, containment_work=0.5)

    archived, crawled = gone_copy(1), gone_copy(2)
    ArchiveFind.objects.create(match=archived, identity="sha256:demo", offset=48213,
                               source="/srv/archives/demo-crawl.warc.gz",
                               warc_date="2024-03-01T08:00:00Z", target_uri=archived.url)
    outcomes = {}
    for match in (archived, crawled):
        capture = actions.do_request_capture(match, match.version_id)
        assert capture_page(capture.pk) == "failed"
        capture.refresh_from_db()
        assert notes.code_of(capture.outcome) == "capture_failed"
        outcomes[match] = capture.outcome
    assert notes.in_english(outcomes[archived]) == (
        "capture failed after 1 attempts: this copy was found in a web archive "
        "(demo-crawl.warc.gz, record at byte 48213, WARC-Date 2024-03-01T08:00:00Z) and "
        "http://gone1.invalid/book/3.html gave no answer now: its host name does not resolve; "
        "the archive's record stays the record of this copy (it is not made into an evidence "
        "bundle)")
    assert notes.in_english(outcomes[crawled]) == (
        "capture failed after 1 attempts: the exchange that found the page was not kept, and "
        "http://gone2.invalid/book/3.html gave no answer now: its host name does not resolve")
    with translation.override("zh-hans"):
        assert notes.in_words(outcomes[archived]) == (
            "取证在 1 次尝试后失败：此副本发现于网页存档（demo-crawl.warc.gz，记录位于第 48213 字节，"
            "WARC-Date 2024-03-01T08:00:00Z），且http://gone1.invalid/book/3.html 现在无应答："
            "其主机名无法解析；此副本以网页存档中的该记录为凭（不制作证据包）")
        assert "Error" not in notes.in_words(outcomes[crawled])


@pytest.mark.django_db
def test_the_tsa_down_then_back_timestamps_the_bundle_later(platform_stores, settings, tmp_path):
    from crawler.evidence.models import TimestampStatus
    from crawler.evidence.tasks import sweep_captures

    capture, bundle, demo = _bundled_while_the_tsa_was_down(settings, "captured")
    unstamped = tmp_path / "unstamped.wacz"
    unstamped.write_bytes(bundle.data)
    code, said = _verify(unstamped)
    assert code == 3 and "UNVERIFIED" in said and "no trusted timestamp" in said
    assert sweep_captures()["stamped"] == []  # still down
    settings.TSA_URLS = demo  # back
    assert sweep_captures()["stamped"] == [capture.pk]
    capture.refresh_from_db()
    assert capture.timestamp_status == TimestampStatus.STAMPED and capture.timestamped_at
    assert capture.datapackage_sha256 == bundle.datapackage_sha256  # the same files, stamped
    stamped = tmp_path / "stamped.wacz"
    stamped.write_bytes(capture.bundle.read())
    code, said = _verify(stamped)
    assert code == 0 and "RFC 3161 timestamp" in said, said


@pytest.mark.django_db
def test_a_capture_stamped_later_no_longer_says_timestamp_pending(platform_stores, settings):
    from core import notes
    from core.models import AuditEvent
    from crawler.evidence.models import TimestampStatus
    from crawler.evidence.tasks import sweep_captures

    pending = notes.coded("captured_tsa_pending", "%(outcome)s; timestamp pending: no "
                          "time-stamping authority answered",
                          outcome=notes.coded("captured", "captured"))
    capture, _, demo = _bundled_while_the_tsa_was_down(settings, pending)
    settings.TSA_URLS = demo
    assert sweep_captures()["stamped"] == [capture.pk]
    capture.refresh_from_db()
    assert capture.timestamp_status == TimestampStatus.STAMPED
    said = notes.in_english(capture.outcome)
    assert "pending" not in said and said.startswith("captured; timestamped later by "), said
    assert capture.timestamp_authority in said
    with translation.override("zh-hans"):
        assert "待取得" not in notes.in_words(capture.outcome)
    assert AuditEvent.objects.filter(new_state=TimestampStatus.STAMPED,
                                     reason__contains="capture_stamped").exists()


@needs_chromium
def test_an_endless_page_is_cut_at_the_height_cap(config, site):
    import struct

    from lib.crawl.render import Renderer

    renderer = Renderer(config)
    tall = "<html><body>" + "".join(f"<p style='height:200px'>第{i}段</p>" for i in range(400)) \
        + "</body></html>"
    try:
        shot = renderer.snapshot(site.url("/tall.html"), tall, width=800, max_height=3000,
                                 timeout=10)
    finally:
        renderer.close()
    assert shot.page_height > 80_000
    width, height = struct.unpack(">II", shot.png[16:24])
    assert (width, height) == (800, 3000)
    assert shot.pdf.startswith(b"%PDF")


def test_the_exchange_names_the_server_of_an_http_1_0_answer(config):
    """An HTTP/1.0 server closes the connection after its answer: the peer is still recorded,
    and the WARC's request record says the request line the server received (HTTP/1.1), its
    response record the answer's version."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from lib.crawl.fetch import Fetcher
    from lib.evidence.warc import exchange_warc

    received = []

    class OldServer(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            received.append(self.requestline)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write("<p>旧服务器</p>".encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), OldServer)
    serve_in_thread(server)
    try:
        result = Fetcher(config).fetch(f"http://127.0.0.1:{server.server_address[1]}/a.html")
    finally:
        server.shutdown()
    [hop] = result.exchange.hops
    assert (hop.peer_ip, hop.peer_port) == ("127.0.0.1", server.server_address[1])
    assert hop.protocol == "HTTP/1.0" and hop.body_complete and "旧服务器" in hop.body.decode()
    records = list(ArchiveIterator(io.BytesIO(exchange_warc(result.exchange, software="test"))))
    request, response = [r for r in records if r.rec_type in ("request", "response")]
    sent = f"{request.http_headers.protocol} {request.http_headers.statusline}"
    assert sent == received[0] == "GET /a.html HTTP/1.1"
    assert response.http_headers.protocol == "HTTP/1.0"


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_a_scan_that_meets_the_page_gone_captures_the_removal(idle_worker, site, platform_stores):
    from crawler.models import CheckOutcome, TakedownCheck

    text = _chapter()
    _registered_work(text)
    page = site.html(PAGE.format(text=text, extra=""))
    served = []
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/book/1.html", lambda handler: served.append(1) or (
        page if len(served) == 1 else site.html("<html><body>已删除</body></html>", status=410)))
    assert _scan(site, "再扫站")["matches_new"] == 1
    _wait_captures(1)
    scan("再扫站")
    check = TakedownCheck.objects.get()
    assert check.outcome == CheckOutcome.REMOVED and check.scan is not None
    [removal] = [c for c in _wait_captures(2) if c.kind == "removal"]
    assert removal.state == "done" and removal.takedown_check == check, removal.outcome
    with zipfile.ZipFile(io.BytesIO(removal.bundle.read())) as wacz:
        meta = json.loads(wacz.read("evidence/metadata.json"))
    assert meta["http_status"] == 410 and meta["server_ip"] == "127.0.0.1"


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_the_captures_of_a_crawl_batch_go_in_one_message_and_are_all_made(idle_worker, site,
                                                                         platform_stores):
    from bson import ObjectId
    from celery.signals import before_task_publish

    from core.models import AuditEvent
    from crawler import matching
    from crawler.evidence.actions import do_request_capture
    from crawler.evidence.models import CaptureState
    from crawler.models import Match

    text = _chapter()
    _registered_work(text)
    site.route("/", site.html('<a href="/book/1.html">第一回</a><a href="/book/2.html">重印</a>'))
    for number in (1, 2):  # both admitted by the start page: one crawl task crawls them
        site.route(f"/book/{number}.html", site.html(PAGE.format(text=text, extra="")))
    assert _scan(site, "批量取证站")["matches_new"] == 2
    captures = _wait_captures(2)
    assert [c.state for c in captures] == [CaptureState.DONE] * 2
    assert AuditEvent.objects.filter(kind=AuditEvent.Kind.EVIDENCE,
                                     new_state=CaptureState.PENDING).count() == 2

    sent = []

    def published(sender=None, body=None, **kwargs):
        sent.append((sender, body[0]))

    before_task_publish.connect(published)
    try:
        matches = list(Match.objects.order_by("pk"))
        with matching.batch_of_pages():  # what a crawl task wraps its batch in
            requested = [do_request_capture(m, str(ObjectId())).pk for m in matches]
            assert sent == []  # committed, not sent yet
        assert sent == [("evidence.capture_pages", [requested])]
        alone = do_request_capture(matches[0], str(ObjectId())).pk  # no block open: sent at once
        assert sent[1:] == [("evidence.capture_page", [alone])]
    finally:
        before_task_publish.disconnect(published)


def test_the_signature_says_the_datapackages_creation_time(settings):
    """``wacz validate`` wants the signedData's ``created`` to be the datapackage's: a bundle
    signed after the TSA answered, a second later, failed it."""
    from crawler.evidence.trust import bundle_signature

    settings.TSA_URLS = []  # the signature alone
    datapackage = json.dumps({"profile": "data-package", "created": "2020-01-02T03:04:05Z"})
    signed = bundle_signature(datapackage.encode(), "tests")["signedData"]
    assert signed["created"] == "2020-01-02T03:04:05Z"
