"""Evidence bundles through the dashboard and the API (live server, real HTTP): a holder
downloads its matches' bundles from the evidence view and from /api/v1/matches/{id}/evidence/,
never another holder's (404, as for any object outside one's scope); an uploaded bundle is
verified by /api/v1/evidence/verify/ and a tampered one is refused naming the file."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest
import requests

from crawler.evidence.trust import Stamper
from tests.bundles import entries, with_datapackage, zeros_entry
from tests.evidence_captures import finished_capture, page_wacz

pytestmark = pytest.mark.django_db


def _login(base: str, username: str) -> requests.Session:
    session = requests.Session()
    session.headers["Accept-Language"] = "en"
    session.get(f"{base}/login/")
    session.post(f"{base}/login/", data={"username": username, "password": "Dash-board-2026!",
                                         "csrfmiddlewaretoken": session.cookies["csrftoken"]},
                 headers={"Referer": f"{base}/login/"})
    return session


def _token(user) -> str:
    from dashboard.models import ApiToken

    token = ApiToken(user=user, name="evidence")
    raw = token.issue()
    token.save()
    return raw


def test_a_holder_downloads_its_bundles_and_never_another_holders(scenario, live_server):
    mine = next(m for m in scenario.matches if m.work.holder == scenario.a)
    theirs = next(m for m in scenario.matches if m.work.holder == scenario.b)
    my_capture, their_capture = finished_capture(mine), finished_capture(theirs)
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {_token(scenario.users.holder_a)}"
    base = f"{live_server.url}/api/v1/matches"

    got = api.get(f"{base}/{mine.pk}/evidence/", timeout=30)
    assert got.status_code == 200, got.text
    assert hashlib.sha256(got.content).hexdigest() == my_capture.bundle_sha256
    assert got.headers["X-Evidence-SHA256"] == my_capture.bundle_sha256
    assert "attachment" in got.headers["Content-Disposition"]
    assert api.get(f"{base}/{theirs.pk}/evidence/", timeout=30).status_code == 404
    # naming the other holder's capture on one's own match gives nothing either
    assert api.get(f"{base}/{mine.pk}/evidence/?capture={their_capture.pk}",
                   timeout=30).status_code == 404

    view = _login(live_server.url, "holder_a")
    admin = f"{live_server.url}/crawler/match"
    page = view.get(f"{admin}/{mine.pk}/change/", timeout=30)
    assert f"/bundle/{my_capture.pk}/" in page.text and my_capture.bundle_sha256 in page.text
    assert "no trusted timestamp" in page.text  # no TSA answered for these bundles
    download = view.get(f"{admin}/{mine.pk}/bundle/{my_capture.pk}/", timeout=30)
    assert hashlib.sha256(download.content).hexdigest() == my_capture.bundle_sha256
    assert view.get(f"{admin}/{theirs.pk}/bundle/{their_capture.pk}/", timeout=30).status_code == 404
    assert view.get(f"{admin}/{mine.pk}/bundle/{their_capture.pk}/", timeout=30).status_code == 404


def test_an_uploaded_bundle_is_verified_and_a_tampered_one_named(scenario, live_server):
    match = scenario.matches[0]
    data = finished_capture(match).bundle.read()
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {_token(scenario.users.holder_a)}"
    api.headers["Accept-Language"] = "en"
    url = f"{live_server.url}/api/v1/evidence/verify/"
    unstamped = api.post(url, files={"bundle": ("good.wacz", data)}, timeout=30).json()
    assert unstamped["verdict"] == "UNVERIFIED" and unstamped["valid"] is False, unstamped
    assert unstamped["failed_file"] == "" and "no trusted timestamp" in unstamped["words"]
    stamped = page_wacz(match, stamp=Stamper())  # the session's demo authority, trusted in settings
    good = api.post(url, files={"bundle": ("stamped.wacz", stamped.data)}, timeout=30).json()
    assert good["verdict"] == "VALID" and good["valid"] is True and good["timestamp"], good
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info, body.replace(match.title.encode(), b"X" * len(match.title.encode()))
                         if info.filename == "evidence/text.txt" else body)
    bad = api.post(url, files={"bundle": ("bad.wacz", out.getvalue())}, timeout=30).json()
    assert bad["verdict"] == "FAIL" and bad["failed_file"] == "evidence/text.txt", bad


def test_the_pdf_report_is_signed_timestamped_and_shows_the_screenshot(scenario, pdf_reader,
                                                                        settings, client):
    from PIL import Image, ImageDraw

    from lib.evidence.signing import load_or_create_identity, validate_signed_pdf

    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    picture = Image.new("RGB", (640, 4000), "white")  # a tall page: more than one tile
    ImageDraw.Draw(picture).rectangle((40, 40, 600, 120), fill=(176, 0, 0))
    png = io.BytesIO()
    picture.save(png, "PNG")
    capture = finished_capture(match, {"evidence/screenshot.png": png.getvalue()})
    client.force_login(scenario.users.holder_a)
    response = client.get(f"/crawler/match/{match.pk}/report/pdf/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200, response.content[:300]
    pdf = b"".join(response.streaming_content) if response.streaming else response.content
    identity = load_or_create_identity(settings.EVIDENCE_SIGNING_DIR)
    roots = [Path(p).read_bytes() for p in settings.TSA_TRUSTED_CERTS]
    check = validate_signed_pdf(pdf, [identity.cert_path.read_bytes()], roots)
    assert check.ok and check.intact and check.valid and check.trusted, check.problems
    assert check.timestamp_time is not None and check.timestamp_trusted
    assert check.level == "B-LTA" and check.archive_timestamp_time is not None
    reader = pdf_reader.PdfReader(io.BytesIO(pdf))
    text = "".join(page.extract_text() for page in reader.pages)
    assert capture.bundle_sha256 in text.replace("\n", "")
    assert any(page.images for page in reader.pages)  # the screenshot is in it
    tiles = [page for page in reader.pages if "Tile " in page.extract_text()]
    assert len(tiles) == 3 and all(page.images for page in tiles)  # 4000 px in 1700 px tiles
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    signer = x509.load_pem_x509_certificate(identity.cert_path.read_bytes())
    fingerprint = hashlib.sha256(signer.public_bytes(Encoding.DER)).hexdigest().upper()
    flat = text.replace("\n", "").replace(" ", "")
    assert "Howtoverifythisreport" in flat and "opensslts-verify" in flat
    assert ":".join(fingerprint[i:i + 2] for i in range(0, 64, 2)) in flat
    assert capture.datapackage_sha256 in flat


def test_the_report_is_made_once_per_capture_and_every_download_gives_its_audited_bytes(
        scenario, client):
    from core.models import AuditEvent

    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    finished_capture(match)

    def download(user, language):
        client.force_login(user)
        response = client.get(f"/crawler/match/{match.pk}/report/pdf/",
                              HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, response.content[:300]
        return b"".join(response.streaming_content) if response.streaming else response.content

    first = download(scenario.users.holder_a, "en")
    assert download(scenario.users.staff, "en") == first  # another user, later: the same bytes

    def made():
        return AuditEvent.objects.about(match).filter(new_state="report made")

    assert [hashlib.sha256(first).hexdigest() in e.reason for e in made()] == [True]
    chinese = download(scenario.users.holder_a, "zh-hans")  # another language: its own report
    assert chinese != first and download(scenario.users.holder_a, "zh-hans") == chinese
    assert made().count() == 2
    finished_capture(match, version_id="a-later-version")  # a new capture: a new report
    assert download(scenario.users.holder_a, "en") != first and made().count() == 3


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_evidence_view_lists_the_captures(scenario, open_page, browser_login, screenshot,
                                               language):
    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    capture = finished_capture(match)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "holder_a")
    page.goto(f"/crawler/match/{match.pk}/change/")
    card = page.locator("#dash-captures")
    words = {"zh-hans": ("证据固定", "无可信时间戳", "下载证据包（WACZ）"),
             "en": ("Evidence captures", "no trusted timestamp", "Download bundle (WACZ)")}
    assert {"zh-hans": "已取证", "en": "captured"}[language] in card.locator("tr.dash-capture").inner_text()
    for text in words[language]:
        assert text in card.inner_text(), text
    assert capture.bundle_sha256 in card.inner_text()
    # fits 1366 px: nothing wider than the window
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    card.scroll_into_view_if_needed()
    screenshot(page, f"evidence-captures-{language}")
    with page.expect_download() as download:
        page.click("a.dash-bundle")
    saved = download.value.path()
    assert hashlib.sha256(Path(saved).read_bytes()).hexdigest() == capture.bundle_sha256
    # the same check as verify_evidence, from the evidence view: the good file, then a tampered one
    page.set_input_files("#dash-verify-bundle input[type=file]", saved)
    page.click("#dash-verify-bundle button")
    said = {"zh-hans": "无法证实（UNVERIFIED）", "en": "UNVERIFIED"}[language]
    assert said in page.locator(".messagelist .warning").inner_text()  # no timestamp: not valid
    tampered = Path(saved).with_name("tampered.wacz")
    out = io.BytesIO()
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info, body + b" " if info.filename == "archive/data.warc.gz" else body)
    tampered.write_bytes(out.getvalue())
    page.set_input_files("#dash-verify-bundle input[type=file]", str(tampered))
    page.click("#dash-verify-bundle button")
    refused = page.locator(".messagelist .error").inner_text()
    assert "archive/data.warc.gz" in refused and "FAIL" in refused
    page.locator("#dash-captures").scroll_into_view_if_needed()
    screenshot(page, f"evidence-verified-{language}")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_evidence_view_says_why_a_copy_found_in_a_web_archive_has_no_bundle(
        scenario, open_page, browser_login, screenshot, language, settings):
    from django.db import transaction

    from crawler.archive_models import ArchiveFind
    from crawler.evidence import actions
    from crawler.evidence.tasks import capture_page
    from crawler.models import Match

    settings.CAPTURE_MAX_ATTEMPTS = 1
    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    Match.objects.filter(pk=match.pk).update(url="http://gone.invalid/book/3.html")  # no answer
    match.refresh_from_db()
    ArchiveFind.objects.create(match=match, identity="sha256:demo", offset=48213,
                               source="/srv/archives/demo-crawl.warc.gz",
                               warc_date="2024-03-01T08:00:00Z", target_uri=match.url)
    with transaction.atomic():  # its task, queued on commit, finds it failed already
        capture = actions.do_request_capture(match, "archived-version")
        assert capture_page(capture.pk) == "failed"
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "holder_a")
    page.goto(f"/crawler/match/{match.pk}/change/")
    row = page.locator("#dash-captures tr.dash-capture[data-state=failed]").inner_text()
    said = {"zh-hans": ("此副本发现于网页存档", "demo-crawl.warc.gz", "48213", "其主机名无法解析",
                        "不制作证据包"),
            "en": ("found in a web archive", "demo-crawl.warc.gz", "48213",
                   "its host name does not resolve", "not made into an evidence bundle")}
    assert "http://gone.invalid/book/3.html" in row
    for text in said[language]:
        assert text in row, row
    assert "Error" not in row and "ssrf" not in row
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.locator("#dash-captures").scroll_into_view_if_needed()
    screenshot(page, f"evidence-archive-only-{language}")


def test_bombs_malformed_and_oversized_uploads_answer_400_or_413_never_500(scenario, live_server,
                                                                           settings):
    data = page_wacz(scenario.matches[0]).data
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {_token(scenario.users.holder_a)}"
    api.headers["Accept-Language"] = "zh-hans"
    url = f"{live_server.url}/api/v1/evidence/verify/"
    malformed = api.post(url, files={"bundle": ("m.wacz", with_datapackage(
        entries(data), b'{"resources": "abc"}'))}, timeout=30)
    assert malformed.status_code == 400 and malformed.json()["failed_file"] == "datapackage.json"
    assert "核验未通过（FAIL）" in malformed.json()["words"]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as bomb:
        for info, body in entries(data):
            bomb.writestr(info, body) if info.filename != "datapackage.json" else None
        zeros_entry(bomb, "datapackage.json", 300 * 2**20)
    refused = api.post(url, files={"bundle": ("bomb.wacz", out.getvalue())}, timeout=30)
    assert refused.status_code == 400 and refused.json()["verdict"] == "FAIL"
    assert "压缩炸弹" in refused.json()["words"]
    settings.EVIDENCE_VERIFY_UPLOAD_MAX_BYTES = 2**20
    big = api.post(url, files={"bundle": ("big.wacz", data + bytes(2 * 2**20))}, timeout=30)
    assert big.status_code == 413 and big.json()["code"] == "too_large"


def test_a_capture_id_not_in_ascii_digits_is_refused_not_a_crash(scenario, live_server):
    """"²".isdigit() is true but int("²") fails, and int("１") reads a full-width digit: a
    capture id is read with the ASCII digits 0-9 only, anything else answers 400."""
    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    capture = finished_capture(match)
    api = requests.Session()
    api.headers.update({"Authorization": f"Bearer {_token(scenario.users.holder_a)}",
                        "Accept-Language": "en"})
    base = f"{live_server.url}/api/v1/matches/{match.pk}/evidence/"
    for bad in ("²", "１", "٣", "-1", "1.0"):
        got = api.get(base, params={"capture": bad}, timeout=30)
        assert got.status_code == 400, (bad, got.status_code, got.text[:200])
        assert "A capture id is a number." in got.text
    got = api.get(base, params={"capture": str(capture.pk)}, timeout=30)
    assert got.status_code == 200 and got.headers["X-Evidence-SHA256"] == capture.bundle_sha256


def test_the_demo_authority_is_labelled_demo_not_accredited_wherever_its_time_is_shown(
        scenario, pdf_reader, settings, client, tmp_path):
    match = next(m for m in scenario.matches if m.work.holder == scenario.a)
    stamper = Stamper()  # the session's demo authority
    finished_capture(match, stamper=stamper)
    settings.TSA_ACCREDITED = [stamper.result.authority]  # even listed, a demo stays a demo
    client.force_login(scenario.users.holder_a)
    for language in ("en", "zh-hans"):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        for url in (f"/crawler/match/{match.pk}/change/", f"/crawler/match/{match.pk}/report/"):
            page = client.get(url).content.decode("utf-8")
            assert "DEMO, not accredited / 演示，非认证" in page, (language, url)
            assert "DEMO Time-Stamping Authority" in page, (language, url)  # its certificate
            assert "可信时间戳" not in page, (language, url)
        response = client.get(f"/crawler/match/{match.pk}/report/pdf/")
        pdf = b"".join(response.streaming_content) if response.streaming else response.content
        (tmp_path / f"report-{language}.pdf").write_bytes(pdf)
        text = "".join(p.extract_text() for p in pdf_reader.PdfReader(io.BytesIO(pdf)).pages)
        assert "DEMO, not accredited" in text and "可信时间戳" not in text, language
        (Path(settings.VAR_DIR) / f"report-demo-tsa-{language}.pdf").write_bytes(pdf)
