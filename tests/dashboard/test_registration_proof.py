"""Proof of authorship at registration: a work's indexed text is time-stamped by the session's
demo TSA through the real worker; a TSA that is down leaves the proof pending until the
sweeper finds one answering; the holder downloads a signed registration certificate from the
work's page that openssl's check would use (the text's SHA-256, the token), and another
holder's user gets 404."""

from __future__ import annotations

import io
import socket
import time
from pathlib import Path

import pytest
from django.db import transaction

from core.ingestion import work_indexed
from core.models import AuditEvent, Work
from core.registration import text_sha256
from crawler.evidence.models import RegistrationProof, TimestampStatus
from crawler.evidence.registrations import do_stamp_registration, stamp_pending_registrations
from lib.evidence.timestamp import verify_timestamp
from tests.dashboard.conftest import ARTIFACTS


def _with_text(work: Work, text: str) -> Work:
    work.sha256 = text_sha256(text)
    work.save(update_fields=["sha256"])
    return work


@pytest.mark.django_db(transaction=True)
def test_an_indexed_text_is_time_stamped_by_the_worker(scenario, idle_worker, settings):
    work = _with_text(scenario.novel, "话说天下大势，分久必合。")
    with transaction.atomic():  # as the ingestion task sends it
        work_indexed.send(sender=Work, work_id=work.pk)
    deadline = time.monotonic() + 60
    while not RegistrationProof.objects.filter(work=work, status=TimestampStatus.STAMPED).exists():
        assert time.monotonic() < deadline, list(RegistrationProof.objects.values())
        time.sleep(0.5)
    proof = RegistrationProof.objects.get(work=work)
    roots = [Path(p).read_bytes() for p in settings.TSA_TRUSTED_CERTS]
    checked = verify_timestamp(bytes(proof.token), bytes.fromhex(work.sha256), roots)
    assert checked.gen_time == proof.stamped_at and "DEMO" in checked.tsa_name
    assert AuditEvent.objects.filter(target_id=proof.pk, new_state="stamped").exists()


def test_a_tsa_down_leaves_the_proof_pending_until_the_sweeper_finds_one(scenario, settings):
    work = _with_text(scenario.news, "人民日报 一九九八年一月一日")
    demo = list(settings.TSA_URLS)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        settings.TSA_URLS = [f"http://127.0.0.1:{probe.getsockname()[1]}/"]
    settings.TSA_RETRIES, settings.TSA_TIMEOUT_SECONDS = 0, 2.0
    proof = do_stamp_registration(work.pk)
    assert proof.status == TimestampStatus.PENDING and "connection" in proof.problem.lower()
    assert stamp_pending_registrations() == []  # still down
    settings.TSA_URLS = demo
    assert stamp_pending_registrations() == [work.pk]
    assert RegistrationProof.objects.get(pk=proof.pk).status == TimestampStatus.STAMPED
    settings.TSA_URLS = []
    other = _with_text(scenario.novel, "另一个文本")
    assert do_stamp_registration(other.pk).status == TimestampStatus.NONE


def test_the_holder_downloads_a_signed_certificate_and_another_holder_cannot(
        scenario, pdf_reader, settings, client):
    from lib.evidence.signing import load_or_create_identity, validate_signed_pdf

    work = _with_text(scenario.novel, "西游记 第一回 灵根育孕源流出")
    proof = do_stamp_registration(work.pk)
    assert proof.status == TimestampStatus.STAMPED
    client.force_login(scenario.users.holder_a)
    page = client.get(f"/core/work/{work.pk}/change/")
    assert b"registration-certificate.pdf" in page.content
    response = client.get(f"/works/{work.pk}/registration-certificate.pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    identity = load_or_create_identity(settings.EVIDENCE_SIGNING_DIR)
    roots = [Path(p).read_bytes() for p in settings.TSA_TRUSTED_CERTS]
    check = validate_signed_pdf(response.content, [identity.cert_path.read_bytes()], roots)
    assert check.ok, check.problems
    ARTIFACTS.mkdir(exist_ok=True)  # to be looked at (pdftoppm -png)
    (ARTIFACTS / "registration-certificate.pdf").write_bytes(response.content)
    text = "".join(p.extract_text() for p in pdf_reader.PdfReader(io.BytesIO(response.content)).pages)
    assert work.sha256 in text.replace("\n", "") and "作品登记证明" in text
    assert "DEMO, not accredited" in text  # the demo authority is named as such
    client.force_login(scenario.users.holder_b)
    assert client.get(f"/works/{work.pk}/registration-certificate.pdf").status_code == 404


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_work_page_shows_the_proof_and_offers_the_certificate(scenario, open_page,
                                                                   browser_login, screenshot,
                                                                   language):
    work = _with_text(scenario.novel, "西游记 第一回 灵根育孕源流出")
    proof = do_stamp_registration(work.pk)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "holder_a")
    page.goto(f"/core/work/{work.pk}/change/")
    card = page.locator("#dash-registration-proof")
    words = {"zh-hans": ("登记证明", "加盖时间戳", "作品登记证明（PDF）"),
             "en": ("Proof of registration", "time-stamped", "Registration certificate (PDF)")}
    for text in words[language]:
        assert text in card.inner_text(), text
    assert proof.text_sha256 in card.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    card.scroll_into_view_if_needed()
    screenshot(page, f"registration-proof-{language}")
    with page.expect_download() as download:
        page.click("#dash-registration-certificate")
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")
