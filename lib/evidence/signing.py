"""The platform's signature on its PDF reports: PAdES B-LTA (ETSI EN 319 142-1) with pyHanko.

A signing identity is a private key and its certificate (PEM files). On first use one is made
in a given folder (ECDSA P-256, self-signed, key mode 0600); production points at its own files,
e.g. a certificate issued by an accredited CA. The signature embeds an RFC 3161 timestamp from
the TSAs of a TsaConfig (the same failover as lib.evidence.timestamp), then the
validation data (certificates, and the revocation data their CRL or OCSP addresses give) in the
document security store and a document timestamp over all of it (B-LTA). Without a TSA
answering, the PDF is signed without either (B-B) and the result says so.
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
from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
from pyhanko.sign.validation.errors import SignatureValidationError
from pyhanko.sign.validation.status import ModificationLevel
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.errors import PathError
from pyhanko_certvalidator.errors import ValidationError as CertificateValidationError

from lib.evidence.keyfiles import write_private_file
from lib.evidence.timestamp import (
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
    """A signed PDF: ``data`` its bytes; ``timestamped`` whether RFC 3161 timestamps are
    embedded; ``tsa_url`` who stamped it; ``level`` the PAdES level reached: "B-LTA" (the
    signature's timestamp, validation data and a document timestamp), "B-T" (the validation
    data could not be gathered) or "B-B" (no timestamp); ``note`` why a level was missed
    (empty at B-LTA)."""

    data: bytes
    timestamped: bool
    tsa_url: str | None
    note: str
    level: str


@dataclass(frozen=True)
class PdfSignatureCheck:
    """The last signature of a PDF as pyHanko validates it. ``signer`` the certificate subject
    (RFC 4514); ``signing_time`` the time the signer claims; ``timestamp_time`` the TSA's time
    (None: not timestamped); ``intact`` the signed bytes are unchanged; ``valid`` the signature
    matches the signer's key; ``trusted`` the signer chains to a trusted certificate;
    ``timestamp_trusted`` the timestamp holds and chains to a trusted TSA certificate;
    ``covers_whole_file`` nothing was appended after signing but validation data and document
    timestamps; ``archive_timestamp_time`` the last document timestamp's time (None: none,
    PAdES B-B or B-T); ``level`` "B-LTA", "B-T" or "B-B"; ``problems`` what fails, in words
    (empty when ``ok``)."""

    signer: str
    signing_time: dt.datetime | None
    timestamp_time: dt.datetime | None
    intact: bool
    valid: bool
    trusted: bool
    timestamp_trusted: bool
    covers_whole_file: bool
    archive_timestamp_time: dt.datetime | None
    level: str
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
    """pyHanko's timestamp client over lib.evidence.timestamp.exchange (the TSA list,
    retries and backoff); remembers the URL that answered."""

    def __init__(self, config: TsaConfig):
        super().__init__()
        self.config = config
        self.url: str | None = None

    async def async_request_tsa_response(self, req: tsp.TimeStampReq) -> tsp.TimeStampResp:
        self.url, answer = await asyncio.to_thread(exchange, req.dump(), self.config)
        return tsp.TimeStampResp.load(answer)


def sign_pdf(pdf: bytes, identity: SigningIdentity, tsa: TsaConfig, *,
             trusted_tsa_certs: Iterable[bytes] = (), reason: str | None = None,
             location: str | None = None) -> SignedPdf:
    """Sign ``pdf`` (bytes) as PAdES B-LTA: a CAdES signature (SHA-256) by ``identity`` in an
    incremental update with a signature timestamp from the first TSA of ``tsa`` that answers,
    then the validation data of the signer's and the TSA's certificates (chains up to
    ``identity``'s own certificate or ``trusted_tsa_certs``, PEM or DER bytes; revocation data
    where a certificate names a CRL or OCSP address) and a document timestamp. When a chain
    cannot be built it stops at B-T; with no TSA configured or none answering it signs without
    timestamps (B-B); ``note`` says why. ``reason`` and ``location`` are shown by PDF readers.

    Raises: SigningError (unreadable identity, a PDF pyHanko cannot update).
    """
    signer = signers.SimpleSigner.load(str(identity.key_path), str(identity.cert_path),
                                       ca_chain_files=tuple(map(str, identity.chain_paths)))
    if signer is None:
        raise SigningError(f"cannot load the signing key {identity.key_path}")
    roots = load_certificates([identity.cert_path.read_bytes(), *trusted_tsa_certs])
    context = ValidationContext(trust_roots=roots, other_certs=list(signer.cert_registry),
                                allow_fetching=True, revocation_mode="soft-fail")
    stamper = _FailoverTimeStamper(tsa)
    try:
        try:
            data = _sign(pdf, signer, stamper, context, reason, location)
            return SignedPdf(data, True, stamper.url, "", "B-LTA")
        except (PathError, CertificateValidationError) as exc:
            note = f"no validation data embedded: {exc}"
            data = _sign(pdf, signer, stamper, None, reason, location)
            return SignedPdf(data, True, stamper.url, note, "B-T")
    except TsaUnavailableError as exc:
        data = _sign(pdf, signer, None, None, reason, location)
        return SignedPdf(data, False, None, str(exc), "B-B")


def _sign(pdf: bytes, signer: signers.Signer, stamper: TimeStamper | None,
          context: ValidationContext | None, reason: str | None, location: str | None) -> bytes:
    lta = context is not None
    metadata = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD, md_algorithm="sha256", reason=reason, location=location,
        subfilter=fields.SigSeedSubFilter.PADES, embed_validation_info=lta, use_pades_lta=lta,
        validation_context=context)
    try:
        writer = IncrementalPdfFileWriter(BytesIO(pdf), strict=False)
        return signers.sign_pdf(writer, metadata, signer=signer, timestamper=stamper).getvalue()
    except (PdfError, PyhankoSigningError, ValueError) as exc:
        raise SigningError(f"cannot sign this PDF: {exc}") from exc


def validate_signed_pdf(pdf: bytes, trusted_signer_certs: Iterable[bytes],
                        trusted_tsa_certs: Iterable[bytes]) -> PdfSignatureCheck:
    """Validate the last signature of ``pdf`` with pyHanko: integrity of the signed bytes,
    the signature, trust in the signer (``trusted_signer_certs``: PEM or DER bytes; the
    platform's own certificate when self-signed), in its embedded timestamp and in the last
    document timestamp (``trusted_tsa_certs``), and that nothing but validation data and
    document timestamps was appended after signing. Revocation is not checked (no fetching).

    Returns: a PdfSignatureCheck. Raises: PdfSignatureError (unreadable PDF, no signature).
    """
    try:
        reader = PdfFileReader(BytesIO(pdf), strict=False)
        signatures = reader.embedded_regular_signatures
        archive_stamps = reader.embedded_timestamp_signatures
    except (PdfError, ValueError, KeyError, TypeError) as exc:
        raise PdfSignatureError(f"not a readable PDF: {exc}") from exc
    if not signatures:
        raise PdfSignatureError("the PDF holds no signature")
    signer_context = ValidationContext(trust_roots=load_certificates(trusted_signer_certs),
                                       allow_fetching=False, revocation_mode="soft-fail")
    tsa_roots = load_certificates(trusted_tsa_certs)
    try:
        status = validate_pdf_signature(
            signatures[-1], signer_validation_context=signer_context,
            ts_validation_context=_tsa_context(tsa_roots))
        archive = validate_pdf_timestamp(archive_stamps[-1], _tsa_context(tsa_roots)) \
            if archive_stamps else None
    except (SignatureValidationError, PdfError, ValueError, KeyError, TypeError) as exc:
        raise PdfSignatureError(f"the signature cannot be checked: {exc}") from exc
    stamp = status.timestamp_validity
    stamp_ok = bool(stamp and stamp.intact and stamp.valid and stamp.trusted)
    archive_ok = bool(archive and archive.intact and archive.valid and archive.trusted)
    # pyHanko's diff analysis: after each, only validation data and timestamps were appended
    whole = all(check.modification_level in _ARCHIVAL_CHANGES
                for check in (status, archive) if check is not None)
    problems = [text for failed, text in (
        (not status.intact, "the signed bytes were changed after signing"),
        (not status.valid, "the signature does not match the signer's key"),
        (not status.trusted, "the signer's certificate does not chain to a trusted one"),
        (not whole, "content was added after the signature"),
        (stamp is not None and not stamp_ok,
         "the timestamp does not hold or its TSA is not trusted"),
        (archive is not None and not archive_ok,
         "the document timestamp does not hold or its TSA is not trusted"),
    ) if failed]
    return PdfSignatureCheck(
        signer=x509.load_der_x509_certificate(status.signing_cert.dump()).subject
        .rfc4514_string(), signing_time=status.signer_reported_dt,
        timestamp_time=stamp.timestamp if stamp is not None else None,
        intact=status.intact, valid=status.valid, trusted=status.trusted,
        timestamp_trusted=stamp_ok, covers_whole_file=whole,
        archive_timestamp_time=archive.timestamp if archive is not None else None,
        level="B-LTA" if archive is not None else "B-T" if stamp is not None else "B-B",
        problems=tuple(problems))


_ARCHIVAL_CHANGES = (ModificationLevel.NONE, ModificationLevel.LTA_UPDATES)


def _tsa_context(roots: list) -> ValidationContext:
    return ValidationContext(trust_roots=roots, allow_fetching=False,
                             revocation_mode="soft-fail")
