"""The platform's PAdES signature on PDF reports (lib.evidence.signing): signing
identity, signing with an embedded RFC 3161 timestamp, validation with pyHanko."""

from __future__ import annotations

import datetime as dt

import pytest
from cryptography import x509

from lib.evidence.signing import (
    PdfSignatureError,
    SigningError,
    load_or_create_identity,
    sign_pdf,
    validate_signed_pdf,
)
from lib.evidence.timestamp import TsaConfig


@pytest.fixture(scope="session")
def report_pdf() -> bytes:
    """A small evidence-report-like PDF in Chinese and English, made by WeasyPrint as the
    dashboard's reports are."""
    from weasyprint import HTML

    return HTML(string="<h1>侵权证据报告 Evidence report</h1><p>匹配段落：孙悟空……</p>"
                       "<p>SHA-256 of the bundle: " + "ab" * 32 + "</p>").write_pdf()


@pytest.fixture(scope="session")
def identity(tmp_path_factory):
    return load_or_create_identity(tmp_path_factory.mktemp("signing"))


@pytest.fixture(scope="session")
def signed(report_pdf, identity, demo_tsa, demo_root):
    return sign_pdf(report_pdf, identity, TsaConfig(urls=(demo_tsa.url,)),
                    trusted_tsa_certs=[demo_root], reason="Evidence of reprint / 侵权取证", location="loopback")


def test_the_identity_is_made_once_with_a_private_key(tmp_path):
    made = load_or_create_identity(tmp_path)
    again = load_or_create_identity(tmp_path)

    assert made == again and made.cert_path.read_bytes() == again.cert_path.read_bytes()
    assert made.key_path.stat().st_mode & 0o777 == 0o600
    cert = x509.load_pem_x509_certificate(made.cert_path.read_bytes())
    assert cert.issuer == cert.subject and "self-signed" in cert.subject.rfc4514_string()


def test_a_configured_identity_must_exist_and_match(tmp_path, identity):
    other = load_or_create_identity(tmp_path / "other")

    with pytest.raises(SigningError, match="cannot read the signing key"):
        load_or_create_identity(key_path=tmp_path / "absent.pem", cert_path=identity.cert_path)
    with pytest.raises(SigningError, match="does not belong to the certificate"):
        load_or_create_identity(key_path=other.key_path, cert_path=identity.cert_path)
    with pytest.raises(SigningError, match="both"):
        load_or_create_identity(key_path=identity.key_path)
    configured = load_or_create_identity(key_path=identity.key_path, cert_path=identity.cert_path)
    assert configured.cert_path == identity.cert_path


def test_a_signed_report_validates_with_its_timestamp(signed, identity, demo_tsa, demo_root):
    check = validate_signed_pdf(signed.data, [identity.cert_path.read_bytes()], [demo_root])

    assert signed.timestamped and signed.tsa_url == demo_tsa.url and signed.note == ""
    assert signed.level == "B-LTA"
    assert check.ok and check.problems == ()
    assert check.intact and check.valid and check.trusted and check.covers_whole_file
    assert check.timestamp_trusted and check.level == "B-LTA"
    assert check.signing_time <= check.archive_timestamp_time
    assert "Copyright Tracker evidence reports" in check.signer
    now = dt.datetime.now(dt.UTC)
    assert now - dt.timedelta(minutes=5) < check.timestamp_time <= now
    assert abs(check.timestamp_time - check.signing_time) < dt.timedelta(seconds=60)


def test_the_signed_report_passes_pyhankos_long_term_validation(signed, identity, demo_root,
                                                                tmp_path):
    """PAdES B-LTA as a court expert's tool would check it: pyHanko's AdES validation with the
    long-term availability and integrity of validation material (ETSI EN 319 102-1, 5.6.3),
    offline, from what the PDF itself holds."""
    import asyncio
    from io import BytesIO

    from pyhanko.keys import load_cert_from_pemder
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import ades
    from pyhanko.sign.validation.policy_decl import (
        PdfSignatureValidationSpec,
        RevinfoOnlineFetchingRule,
        RevocationInfoGatheringSpec,
        SignatureValidationSpec,
    )
    from pyhanko_certvalidator.context import CertValidationPolicySpec
    from pyhanko_certvalidator.policy_decl import (
        CertRevTrustPolicy,
        RevocationCheckingPolicy,
        RevocationCheckingRule,
    )
    from pyhanko_certvalidator.registry import SimpleTrustManager

    (tmp_path / "root.pem").write_bytes(demo_root)
    roots = [load_cert_from_pemder(str(identity.cert_path)),
             load_cert_from_pemder(str(tmp_path / "root.pem"))]
    declared = RevocationCheckingRule.CHECK_IF_DECLARED
    policy = CertValidationPolicySpec(
        trust_manager=SimpleTrustManager.build(trust_roots=roots),
        revinfo_policy=CertRevTrustPolicy(RevocationCheckingPolicy(declared, declared)))
    spec = PdfSignatureValidationSpec(SignatureValidationSpec(
        cert_validation_policy=policy, revinfo_gathering_policy=RevocationInfoGatheringSpec(
            online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY)))
    signature = PdfFileReader(BytesIO(signed.data), strict=False).embedded_regular_signatures[-1]

    result = asyncio.run(ades.ades_lta_validation(signature, spec))

    assert result.ades_subindic == ades.AdESPassed.OK
    assert result.api_status is not None and result.api_status.bottom_line
    assert result.oldest_evidence_record_timestamp is not None  # the document timestamp


def test_a_tsa_outside_the_trusted_list_gives_b_t_and_says_why(report_pdf, identity, demo_tsa,
                                                               demo_root):
    signed = sign_pdf(report_pdf, identity, TsaConfig(urls=(demo_tsa.url,)))  # no TSA root

    check = validate_signed_pdf(signed.data, [identity.cert_path.read_bytes()], [demo_root])

    assert signed.timestamped and signed.level == "B-T"
    assert signed.note.startswith("no validation data embedded: ") and "DEMO" in signed.note
    assert check.ok and check.level == "B-T" and check.timestamp_trusted


def test_one_tampered_byte_makes_validation_fail(signed, identity, demo_root):
    data = bytearray(signed.data)
    data[data.index(b"stream") + 40] ^= 0x01  # inside the first page content, a signed byte

    check = validate_signed_pdf(bytes(data), [identity.cert_path.read_bytes()], [demo_root])

    assert not check.ok and not check.intact
    assert "the signed bytes were changed after signing" in check.problems


def test_content_appended_after_signing_is_reported(signed, identity, demo_root):
    from io import BytesIO

    from pyhanko.pdf_utils.generic import NameObject, TextStringObject
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    writer = IncrementalPdfFileWriter(BytesIO(signed.data))
    writer.root[NameObject("/Lang")] = TextStringObject("en")  # a harmless-looking edit
    writer.update_root()
    edited = BytesIO()
    writer.write(edited)

    check = validate_signed_pdf(edited.getvalue(), [identity.cert_path.read_bytes()],
                                [demo_root])

    assert check.intact and not check.covers_whole_file and not check.ok


def test_a_signer_not_trusted_is_reported(signed, demo_root, tmp_path):
    stranger = load_or_create_identity(tmp_path)

    check = validate_signed_pdf(signed.data, [stranger.cert_path.read_bytes()], [demo_root])

    assert check.intact and not check.trusted and not check.ok


def test_without_a_tsa_the_report_is_signed_and_says_it_has_no_timestamp(
        report_pdf, identity, demo_root, down_tsa_url):
    unset = sign_pdf(report_pdf, identity, TsaConfig(urls=()))
    down = sign_pdf(report_pdf, identity, TsaConfig(urls=(down_tsa_url,), retries=0))

    assert not unset.timestamped and unset.note == "no time-stamping authority is configured"
    assert not down.timestamped and down_tsa_url in down.note and "connection_error" in down.note
    for result in (unset, down):
        check = validate_signed_pdf(result.data, [identity.cert_path.read_bytes()], [demo_root])
        assert check.ok and check.timestamp_time is None and not check.timestamp_trusted
        assert check.level == "B-B" and check.archive_timestamp_time is None


def test_what_is_not_a_signed_pdf_is_a_clear_error(report_pdf, identity, demo_root):
    trusted = [identity.cert_path.read_bytes()]

    with pytest.raises(PdfSignatureError, match="holds no signature"):
        validate_signed_pdf(report_pdf, trusted, [demo_root])
    with pytest.raises(PdfSignatureError, match="not a readable PDF"):
        validate_signed_pdf(b"%PDF-1.7 truncated", trusted, [demo_root])
