"""Witnessed captures: Chromium visits the page through the recording proxy (warcprox, in its own
virtual environment), which writes every request and response of the visit to the bundle's WARC.

Real parts throughout: the loopback site, the worker, headless Chromium, warcprox, Webrecorder's
WACZ validator, ``verify_evidence`` with the session's demo TSA, and pywb (in its own virtual
environment, ``.venv-replay``: its pyOpenSSL needs a newer cryptography than warcprox allows)
replaying the page from the bundle alone, with the site gone, in Chromium.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest
from django.conf import settings
from django.utils import translation
from warcio.archiveiterator import ArchiveIterator

from lib.crawl.outcomes import Outcome
from lib.crawl.render import Renderer
from lib.evidence.recorder import RecorderFailed
from tests.crawler.test_evidence import (
    WACZ_CLI,
    _chapter,
    _registered_work,
    _scan,
    _verify,
    _wait_captures,
    needs_chromium,
)

REPLAY = Path(settings.BASE_DIR) / ".venv-replay" / "bin"
needs_recorder = pytest.mark.skipif(
    not Path(settings.CAPTURE_RECORDER_PYTHON).exists(),
    reason=f"no recording proxy at {settings.CAPTURE_RECORDER_PYTHON} (make install makes it)")
needs_pywb = pytest.mark.skipif(not (REPLAY / "wayback").exists(),
                                reason=f"no pywb at {REPLAY} (make install makes it)")
# the font: any bytes served as font/woff2 are fetched and recorded (the browser rejects them
# as a font, which replay does the same way)
FONT = bytes(range(256)) * 8
PAGE = ("<html><head><title>盗版书站 西游记 第一回</title>"
        "<link rel='stylesheet' href='/assets/site.css'></head><body>"
        "<h1 class='brand'>盗版书站</h1><img id='logo' src='/assets/logo.png'>"
        "<div id='content'><p>{text}</p></div><p id='xhr'></p>"
        "<script>fetch('/api/hits.json').then(function (r) { return r.json(); })"
        ".then(function (d) { document.getElementById('xhr').textContent = d.hits; });"
        "fetch('/collect', {method: 'POST', body: 'who=1'});</script></body></html>")
CSS = (b"@font-face{font-family:Pirate;src:url(/assets/pirate.woff2) format('woff2')}"
       b"body{background:#fffbe6} .brand{color:rgb(176, 0, 0);font-family:Pirate,serif}")


def _png() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 40 for _ in range(20))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40, 20, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _serve_page(site, text: str) -> None:
    site.route("/robots.txt", site.Reply(200, {"Content-Type": "text/plain"},
                                         b"User-agent: *\nDisallow: /assets/\n"))
    site.route("/", site.html('<a href="/book/1.html">第一回</a>'))
    site.route("/book/1.html", site.html(PAGE.replace("{text}", text)))
    site.route("/assets/site.css", site.Reply(200, {"Content-Type": "text/css"}, CSS))
    site.route("/assets/logo.png", site.Reply(200, {"Content-Type": "image/png"}, _png()))
    site.route("/assets/pirate.woff2", site.Reply(200, {"Content-Type": "font/woff2"}, FONT))
    site.route("/api/hits.json", site.Reply(200, {"Content-Type": "application/json"},
                                            b'{"hits": "12345"}'))


def _records(warc: bytes) -> list[tuple[str, str, bytes, object]]:
    return [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI") or "",
             r.content_stream().read(), r.rec_headers)
            for r in ArchiveIterator(io.BytesIO(warc))]


@needs_chromium
@needs_recorder
@pytest.mark.django_db(transaction=True)
def test_the_witnessed_visit_records_every_requisite_and_replays_styled(
        idle_worker, site, platform_stores, tmp_path):
    from crawler.evidence.models import CaptureState

    text = _chapter()
    _registered_work(text)
    _serve_page(site, text)
    result = _scan(site, "取证站")
    assert result["matches_new"] == 1, result
    [capture] = _wait_captures(1)
    assert capture.state == CaptureState.DONE, capture.outcome
    bundle = tmp_path / "capture.wacz"
    bundle.write_bytes(capture.bundle.read())

    with zipfile.ZipFile(bundle) as wacz:
        warc = wacz.read("archive/data.warc.gz")
        meta = json.loads(wacz.read("evidence/metadata.json"))
    records = _records(warc)
    responses = {url: body for kind, url, body, _ in records if kind == "response"}
    page = site.url("/book/1.html")
    # every requisite, as the browser received it; robots.txt's Disallow: /assets/ did not stop it
    assert responses[site.url("/assets/site.css")].endswith(CSS)
    assert responses[site.url("/assets/logo.png")].endswith(_png())
    assert responses[site.url("/assets/pirate.woff2")].endswith(FONT)
    assert responses[site.url("/api/hits.json")].endswith(b'{"hits": "12345"}')
    assert site.url("/collect") not in responses and site.hits("/collect") == 0  # the POST
    # the bot's fetch first (the detection exchange), then the browser's own visit of the page
    page_requests = [h for kind, url, _, h in records if kind == "request" and url == page]
    assert len(page_requests) == 2
    [snapshot] = [(body, h) for kind, url, body, h in records if kind == "resource"]
    assert "12345" in snapshot[0].decode("utf-8")  # the DOM after the XHR filled it in
    assert snapshot[1].get_header("WARC-Refers-To-Target-URI") == page
    visit = meta["witnessed_visit"]
    assert visit["recorder"] == "warcprox" and visit["cut_at_byte_limit"] == []
    assert [site.url("/collect"), "blocked: POST"] in visit["requests_refused"]
    # the browser said it is a browser; the bot's fetch said it is the bot
    agents = [dict(h)["User-Agent"] for p, h in site.requests if p == "/book/1.html"]
    assert agents[0].startswith("CopyrightTrackerBot") and "Chrome/" in agents[-1]
    assert "HeadlessChrome" not in agents[-1]

    checked = subprocess.run([str(WACZ_CLI), "validate", "-f", str(bundle)],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and "is valid" in checked.stdout, checked.stdout + checked.stderr
    code, said = _verify(bundle)
    assert code == 0 and "VALID" in said and "UNVERIFIED" not in said, said

    site.routes.clear()  # the site is gone: replay has the bundle only
    if (REPLAY / "wayback").exists():
        _replays_styled(bundle, page, tmp_path)


def _replays_styled(bundle: Path, page: str, folder: Path) -> None:
    """pywb serves the bundle's WARC; Chromium shows the page from it, styled."""
    from playwright.sync_api import sync_playwright

    with zipfile.ZipFile(bundle) as wacz:
        (folder / "data.warc.gz").write_bytes(wacz.read("archive/data.warc.gz"))
    env = {**os.environ, "PATH": f"{REPLAY}:{os.environ['PATH']}"}
    subprocess.run([str(REPLAY / "wb-manager"), "init", "evidence"], cwd=folder, env=env,
                   check=True, capture_output=True)
    subprocess.run([str(REPLAY / "wb-manager"), "add", "evidence", str(folder / "data.warc.gz")],
                   cwd=folder, env=env, check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([str(REPLAY / "wayback"), "--bind", "127.0.0.1", "-p", str(port)],
                              cwd=folder, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        _wait_port(port)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(Path("/usr/bin/chromium")),
                                         args=["--no-sandbox", "--headless"])
            tab = browser.new_page()
            # pywb's own page, with the archived page in its frame
            tab.goto(f"http://127.0.0.1:{port}/evidence/29991231235959/{page}", wait_until="load")
            tab.wait_for_function("() => { var f = document.querySelector('iframe');"
                                  " var d = f && f.contentDocument;"
                                  " var img = d && d.getElementById('logo');"
                                  " return img && img.complete; }")
            [shown] = [f for f in tab.frames if "mp_/" in f.url]
            color = shown.evaluate("getComputedStyle(document.querySelector('.brand')).color")
            width = shown.evaluate("document.getElementById('logo').naturalWidth")
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    assert color == "rgb(176, 0, 0)"  # the stylesheet, from the bundle
    assert width == 40  # the image, from the bundle


def _wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"pywb did not listen on {port}")


def _witness(config, url: str):
    from crawler.evidence.capture import witness

    renderer = Renderer(config)
    try:
        return witness(SimpleNamespace(config=config, renderer=renderer), url)
    finally:
        renderer.close()


@needs_chromium
@needs_recorder
def test_huge_requisites_are_cut_at_the_capture_byte_limit(config, site, settings):
    settings.CAPTURE_MAX_BYTES = 200_000
    big = bytes(range(256)) * 1200  # 307 kB
    site.route("/page.html", site.html("<html><body><h1>大图</h1><img src='/huge.png'>"
                                       "<img src='/later.png'></body></html>"))
    site.route("/huge.png", site.Reply(200, {"Content-Type": "image/png"}, big))
    site.route("/later.png", site.Reply(200, {"Content-Type": "image/png"}, big, delay=1.0))
    shot, visit = _witness(config, site.url("/page.html"))
    assert shot.outcome is Outcome.OK, shot.reason
    cuts = {cut["url"]: cut["reason"] for cut in visit.metadata["cut_at_byte_limit"]}
    assert any("capture byte limit" in reason for reason in cuts.values()), cuts
    recorded = sum(len(body) for kind, _, body, _ in _records(visit.warc) if kind == "response")
    # warcprox cuts each response in flight after the 64 KiB read that went over the limit
    assert recorded < 200_000 + len(cuts) * 64 * 1024 + 2 * 1024, (recorded, cuts)
    truncated = [h.get_header("WARC-Truncated") for kind, _, _, h in _records(visit.warc)
                 if kind == "response" and h.get_header("WARC-Truncated")]
    assert truncated == ["length"] or len(cuts) == 2, (truncated, cuts)


@needs_chromium
@needs_recorder
def test_a_recording_proxy_that_dies_is_started_again_then_the_capture_fails_with_the_reason(
        config, site, settings):
    from core import notes
    from crawler.evidence.tasks import recorder_failure

    # the recording proxy is killed while it fetches the page's image: the site finds the
    # process on the other end of the connection
    def kill_the_proxy(handler):
        peer = handler.client_address[1]
        for conn in psutil.net_connections("tcp"):
            if conn.laddr and conn.laddr.port == peer and conn.pid and conn.pid != os.getpid():
                os.kill(conn.pid, signal.SIGKILL)
        return site.Reply(200, {"Content-Type": "image/png"}, _png())

    settings.CAPTURE_RECORDER_ATTEMPTS = 2
    site.route("/slow.html", site.html("<html><body><h1>慢</h1>"
                                       "<img src='/slow.png'></body></html>"))
    site.route("/slow.png", kill_the_proxy)
    started = time.monotonic()
    with pytest.raises(RecorderFailed) as failed:
        _witness(config, site.url("/slow.html"))
    assert "died during the capture" in str(failed.value) and "signal 9" in str(failed.value)
    assert "2 proxies tried" in str(failed.value)
    assert time.monotonic() - started < 2 * (settings.CAPTURE_RENDER_TIMEOUT_SECONDS + 10)
    assert site.hits("/slow.png") == 2  # each proxy died at the same point
    assert not [p for p in psutil.Process().children(recursive=True)
                if "recording_proxy" in " ".join(p.cmdline())]  # none left behind
    note = recorder_failure(failed.value)
    with translation.override("zh-hans"):
        assert "录制代理" in notes.in_words(note)
    with translation.override("en"):
        assert "the recording proxy failed" in notes.in_words(note)


@needs_chromium
@needs_recorder
def test_the_screen_recording_films_the_visit_with_the_address_and_clock_in_view(
        config, site, settings, tmp_path):
    import imageio_ffmpeg
    from PIL import Image

    settings.CAPTURE_SCREEN_RECORDING = True
    site.route("/film.html", site.html(
        "<html><body style='background:#fff'><h1>录屏</h1><p id='n'></p><script>var i = 0;"
        "setInterval(function () { document.getElementById('n').textContent = i++; }, 100);"
        "</script></body></html>"))
    started = time.time()
    shot, visit = _witness(config, site.url("/film.html"))
    assert shot.outcome is Outcome.OK, shot.reason
    film = visit.metadata["screen_recording"]
    assert film["file"] == "evidence/visit.mp4" and film["frames"] >= 2
    assert film["first_frame_at"] >= time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started - 1))
    video = tmp_path / "visit.mp4"
    video.write_bytes(visit.video)
    # ffmpeg reads it: H.264, 1280 px wide, the page's 900 px under the band
    probe = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(video)],
                           capture_output=True, text=True, check=False)
    assert "h264" in probe.stderr and "1280x936" in probe.stderr, probe.stderr
    first = tmp_path / "first.png"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-i", str(video),
                    "-frames:v", "1", str(first)], check=True)
    picture = Image.open(first).convert("RGB")
    band = picture.crop((0, 0, 1280, 36))
    page = picture.crop((0, 40, 1280, 900))
    # the band: dark, with the clock (yellow) and the address (white) written in it
    assert band.getpixel((2, 2))[0] < 60
    colours = {band.getpixel((x, y)) for x in range(0, 700) for y in range(8, 28)}
    assert any(r > 200 and g > 180 and b < 120 for r, g, b in colours)  # the clock's yellow
    assert any(min(c) > 200 for c in colours)  # the address's white
    assert page.getpixel((1200, 800))[0] > 200  # the page itself, white
