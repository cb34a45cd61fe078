"""The platform's signature on its PDF reports: PAdES B-T (ETSI EN 319 142-1) with pyHanko.

A signing identity is a private key and its certificate (PEM files). On first use one is made
in a given folder (ECDSA P-256, self-signed, key mode 0600); production points at its own files,
e.g. a certificate issued by an accredited CA. The signature embeds an RFC 3161 timestamp from
the TSAs of a TsaConfig (the same failover as crawler.lib.evidence.timestamp); without one
answering, the PDF is signed without it and the result says so.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from asn1crypto import tsp
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.general import SigningError as PyhankoSigningError
from pyhanko.sign.timestamps.api import TimeStamper
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.errors import SignatureValidationError
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from crawler.lib.evidence.keyfiles import write_private_file
from crawler.lib.evidence.timestamp import (
    TsaConfig,
    TsaUnavailableError,
    exchange,
    load_certificates,
)

KEY_FILE = "signing-key.pem"
CERT_FILE = "signing-cert.pem"
DEFAULT_SUBJECT = "Copyright Tracker evidence reports (self-signed) / 版权追踪证据报告（自签名）"
# ECDSA P-256: 128-bit security (NIST SP 800-57 part 1), in ETSI TS 119 312's list for
# signatures; an RSA 3072 key took 0.28 s to load, and pyHanko loads it three times per PDF.
SIGNING_CURVE = ec.SECP256R1
CERT_VALIDITY = dt.timedelta(days=3650)
SIGNATURE_FIELD = "EvidenceSignature"


class SigningError(Exception):
    """The signing identity cannot be loaded or made, or the PDF cannot be signed."""


class PdfSignatureError(Exception):
    """The PDF cannot be read, or it holds no signature."""


@dataclass(frozen=True)
class SigningIdentity:
    """The key (PEM, unencrypted) and certificate (PEM) the platform signs with, and the
    certificates between it and a root (PEM files, may be empty)."""

    key_path: Path
    cert_path: Path
    chain_paths: tuple[Path, ...] = ()


@dataclass(frozen=True)
class SignedPdf:
    """A signed PDF: ``data`` its bytes; ``timestamped`` whether an RFC 3161 timestamp is
    embedded (PAdES B-T) or not (B-B); ``tsa_url`` who stamped it; ``note`` why there is no
    timestamp (empty when there is one)."""

    data: bytes
    timestamped: bool
    tsa_url: str | None
    note: str


@dataclass(frozen=True)
class PdfSignatureCheck:
    """The last signature of a PDF as pyHanko validates it. ``signer`` the certificate subject
    (RFC 4514); ``signing_time`` the time the signer claims; ``timestamp_time`` the TSA's time
    (None: not timestamped); ``intact`` the signed bytes are unchanged; ``valid`` the signature
    matches the signer's key; ``trusted`` the signer chains to a trusted certificate;
    ``timestamp_trusted`` the timestamp holds and chains to a trusted TSA certificate;
    ``covers_whole_file`` nothing was appended after signing; ``problems`` what fails, in
    words (empty when ``ok``)."""

    signer: str
    signing_time: dt.datetime | None
    timestamp_time: dt.datetime | None
    intact: bool
    valid: bool
    trusted: bool
    timestamp_trusted: bool
    covers_whole_file: bool
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Everything holds: intact, valid, trusted, whole file, and a timestamp if any."""
        return not self.problems


def load_or_create_identity(folder: Path | None = None, key_path: Path | None = None,
                            cert_path: Path | None = None, chain_paths: Iterable[Path] = (),
                            subject: str = DEFAULT_SUBJECT) -> SigningIdentity:
    """The signing identity: ``key_path`` and ``cert_path`` when given (production: both must
    exist), else ``folder``/signing-key.pem and signing-cert.pem, made on first call (ECDSA P-256,
    self-signed certificate with common name ``subject``, at most 64 UTF-8 bytes per name part
    after splitting on " / "). Raises SigningError: files missing, unreadable, or a key that
    does not match its certificate."""
    if key_path is None and cert_path is None:
        if folder is None:
            raise SigningError("give a folder or the key and certificate paths")
        folder = Path(folder)
        key_path, cert_path = folder / KEY_FILE, folder / CERT_FILE
        if not key_path.exists() or not cert_path.exists():
            _make_identity(folder, key_path, cert_path, subject)
    elif key_path is None or cert_path is None:
        raise SigningError("give both the signing key and its certificate, or neither")
    identity = SigningIdentity(Path(key_path), Path(cert_path), tuple(map(Path, chain_paths)))
    _check_identity(identity)
    return identity


def _make_identity(folder: Path, key_path: Path, cert_path: Path, subject: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(SIGNING_CURVE())
    english, _, chinese = subject.partition(" / ")
    name = x509.Name([*([x509.NameAttribute(NameOID.ORGANIZATION_NAME, chinese)] if chinese
                        else []), x509.NameAttribute(NameOID.COMMON_NAME, english)])
    now = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + CERT_VALIDITY)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=True, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=False,
                crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    write_private_file(key_path, key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _check_identity(identity: SigningIdentity) -> None:
    try:
        key = serialization.load_pem_private_key(identity.key_path.read_bytes(), password=None)
        cert = x509.load_pem_x509_certificate(identity.cert_path.read_bytes())
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(f"cannot read the signing key {identity.key_path} or certificate "
                           f"{identity.cert_path}: {exc}") from exc
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, public) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, public):
        raise SigningError(f"the signing key {identity.key_path} does not belong to the "
                           f"certificate {identity.cert_path}")


class _FailoverTimeStamper(TimeStamper):
    """pyHanko's timestamp client over crawler.lib.evidence.timestamp.exchange (the TSA list,
    retries and backoff); remembers the URL that answered."""

    def __init__(self, config: TsaConfig):
        super().__init__()
        self.config = config
        self.url: str | None = None

    async def async_request_tsa_response(self, req: tsp.TimeStampReq) -> tsp.TimeStampResp:
        self.url, answer = await asyncio.to_thread(exchange, req.dump(), self.config)
        return tsp.TimeStampResp.load(answer)


def sign_pdf(pdf: bytes, identity: SigningIdentity, tsa: TsaConfig, *,
             reason: str | None = None, location: str | None = None) -> SignedPdf:
    """Sign ``pdf`` (bytes) as PAdES B-T: a CAdES signature (SHA-256) by ``identity`` in an
    incremental update, with a signature timestamp from the first TSA of ``tsa`` that answers.
    With no TSA configured or none answering it signs without a timestamp (PAdES B-B) and says
    why in ``note``. ``reason`` and ``location`` are shown by PDF readers.

    Raises: SigningError (unreadable identity, a PDF pyHanko cannot update).
    """
    signer = signers.SimpleSigner.load(str(identity.key_path), str(identity.cert_path),
                                       ca_chain_files=tuple(map(str, identity.chain_paths)))
    if signer is None:
        raise SigningError(f"cannot load the signing key {identity.key_path}")
    stamper = _FailoverTimeStamper(tsa)
    try:
        return SignedPdf(_sign(pdf, signer, stamper, reason, location), True, stamper.url, "")
    except TsaUnavailableError as exc:
        return SignedPdf(_sign(pdf, signer, None, reason, location), False, None, str(exc))


def _sign(pdf: bytes, signer: signers.Signer, stamper: TimeStamper | None,
          reason: str | None, location: str | None) -> bytes:
    metadata = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD, md_algorithm="sha256", reason=reason, location=location,
        subfilter=fields.SigSeedSubFilter.PADES)
    try:
        writer = IncrementalPdfFileWriter(BytesIO(pdf), strict=False)
        return signers.sign_pdf(writer, metadata, signer=signer, timestamper=stamper).getvalue()
    except (PdfError, PyhankoSigningError, ValueError) as exc:
        raise SigningError(f"cannot sign this PDF: {exc}") from exc


def validate_signed_pdf(pdf: bytes, trusted_signer_certs: Iterable[bytes],
                        trusted_tsa_certs: Iterable[bytes]) -> PdfSignatureCheck:
    """Validate the last signature of ``pdf`` with pyHanko: integrity of the signed bytes,
    the signature, trust in the signer (``trusted_signer_certs``: PEM or DER bytes; the
    platform's own certificate when self-signed) and in the embedded timestamp
    (``trusted_tsa_certs``), and whether bytes were appended after signing. Revocation is not
    checked (no fetching).

    Returns: a PdfSignatureCheck. Raises: PdfSignatureError (unreadable PDF, no signature).
    """
    try:
        reader = PdfFileReader(BytesIO(pdf), strict=False)
        signatures = reader.embedded_regular_signatures
    except (PdfError, ValueError, KeyError, TypeError) as exc:
        raise PdfSignatureError(f"not a readable PDF: {exc}") from exc
    if not signatures:
        raise PdfSignatureError("the PDF holds no signature")
    signer_context = ValidationContext(trust_roots=load_certificates(trusted_signer_certs),
                                       allow_fetching=False, revocation_mode="soft-fail")
    tsa_context = ValidationContext(trust_roots=load_certificates(trusted_tsa_certs),
                                    allow_fetching=False, revocation_mode="soft-fail")
    try:
        status = validate_pdf_signature(signatures[-1], signer_validation_context=signer_context,
                                        ts_validation_context=tsa_context)
    except (SignatureValidationError, PdfError, ValueError, KeyError, TypeError) as exc:
        raise PdfSignatureError(f"the signature cannot be checked: {exc}") from exc
    stamp = status.timestamp_validity
    whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    problems = [text for failed, text in (
        (not status.intact, "the signed bytes were changed after signing"),
        (not status.valid, "the signature does not match the signer's key"),
        (not status.trusted, "the signer's certificate does not chain to a trusted one"),
        (not whole, "content was added after the signature"),
        (stamp is not None and not (stamp.intact and stamp.valid and stamp.trusted),
         "the timestamp does not hold or its TSA is not trusted"),
    ) if failed]
    return PdfSignatureCheck(
        signer=x509.load_der_x509_certificate(status.signing_cert.dump()).subject
        .rfc4514_string(), signing_time=status.signer_reported_dt,
        timestamp_time=stamp.timestamp if stamp is not None else None,
        intact=status.intact, valid=status.valid, trusted=status.trusted,
        timestamp_trusted=bool(stamp and stamp.intact and stamp.valid and stamp.trusted),
        covers_whole_file=whole, problems=tuple(problems))
