"""A target site whose HTTPS certificate does not validate (an expired leaf of the test's own
making, on loopback): refused by default, crawled and captured when the site accepts invalid
certificates, the error recorded in the exchange and in the witnessed visit's metadata."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from warcio.archiveiterator import ArchiveIterator

from lib.crawl.fetch import INVALID_ACCEPTED, Fetcher
from lib.crawl.outcomes import Outcome
from lib.crawl.render import Renderer
from tests.crawler.test_evidence import _chapter, _registered_work, _wait_captures, needs_chromium
from tests.crawler.test_witnessed_capture import needs_recorder
from tests.lib.crawl.test_tls import (
    pki,  # noqa: F401  (the fixture: the test's root and leaves)
    serve_https,
)
from tests.scanning import scan


def test_an_expired_certificate_is_fetched_when_the_site_accepts_it_and_the_error_kept(config, pki):  # noqa: F811
    base, stop = serve_https(pki["expired"], {"/book/1.html": "<p>盗版正文</p>".encode()})
    config = dataclasses.replace(config, ca_bundle=pki["root"])  # its root known: only expired
    try:
        refused = Fetcher(config).fetch(base + "/book/1.html")
        accepted = Fetcher(config).fetch(base + "/book/1.html", accept_invalid_certificate=True)
    finally:
        stop()
    assert refused.outcome is Outcome.CONNECTION_ERROR and "expired" in refused.reason
    assert accepted.outcome is Outcome.OK and "盗版正文" in accepted.body.decode()
    [hop] = accepted.exchange.hops
    assert hop.tls["validation"].startswith(INVALID_ACCEPTED) and "expired" in hop.tls["validation"]
    assert hop.certificates  # the certificate it sent, kept as evidence all the same


@needs_chromium
@needs_recorder
def test_the_witnessed_visit_of_an_accepting_site_records_the_certificate_error(config, pki):  # noqa: F811
    from crawler.evidence.capture import witness

    base, stop = serve_https(pki["expired"], {
        "/book/1.html": b"<html><body><h1>\xe7\x9b\x97\xe7\x89\x88</h1></body></html>"})
    renderer = Renderer(dataclasses.replace(config, ca_bundle=pki["root"]))
    crawler = SimpleNamespace(config=renderer.config, renderer=renderer)
    try:
        shot, visit = witness(crawler, base + "/book/1.html", accept_invalid_certificate=True)
        _, not_accepted = witness(crawler, base + "/book/1.html")
    finally:
        renderer.close()
        stop()
    assert shot.outcome is Outcome.OK, shot.reason
    [error] = visit.metadata["invalid_certificates_accepted"]
    assert error["host"] == "localhost" and "expired" in error["error"]
    assert [r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(io.BytesIO(visit.warc)) if r.rec_type == "response"] == [
        base + "/book/1.html"]  # the page's response recorded
    # not accepted: the proxy refused the certificate, nothing of the page was recorded
    assert not_accepted.metadata["invalid_certificates_accepted"] == []
    assert [r.rec_type for r in ArchiveIterator(io.BytesIO(not_accepted.warc))
            if r.rec_type == "response"] == []
    assert "盗版" in shot.html


@needs_chromium
@needs_recorder
@pytest.mark.django_db(transaction=True)
def test_a_site_that_accepts_invalid_certificates_is_crawled_and_captured(idle_worker, platform_stores,
                                                                         pki):  # noqa: F811
    from crawler.evidence.models import CaptureState
    from crawler.models import TargetSite

    text = _chapter()
    _registered_work(text)
    page = f"<html><head><title>西游记</title></head><body><p>{text}</p></body></html>".encode()
    base, stop = serve_https(pki["expired"], {
        "/": b'<html><body><a href="/book/1.html">1</a></body></html>', "/book/1.html": page})
    try:
        call_command("add_site", "过期证书站", base + "/", "--delay", "0", stdout=io.StringIO())
        TargetSite.objects.filter(name="过期证书站").update(accept_invalid_certificate=True)
        result = scan("过期证书站")
        assert result["matches_new"] == 1, result
        [capture] = _wait_captures(1)
    finally:
        stop()
    assert capture.state == CaptureState.DONE, capture.outcome
    with zipfile.ZipFile(io.BytesIO(capture.bundle.read())) as wacz:
        meta = json.loads(wacz.read("evidence/metadata.json"))
    assert meta["tls"]["validation"].startswith(INVALID_ACCEPTED), meta["tls"]
    assert "expired" in meta["tls"]["validation"] or "certificate" in meta["tls"]["validation"]
    assert meta["witnessed_visit"]["invalid_certificates_accepted"], meta["witnessed_visit"]
