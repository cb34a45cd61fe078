"""The operator's signature on a WACZ, as the WACZ Signing and Verification recommendation
(Webrecorder, https://specs.webrecorder.net/wacz-auth/0.1.0/) places it: ``signedData`` in
``datapackage-digest.json``.

The domain-identity form: ``hash`` (datapackage-digest.json's "sha256:…", the SHA-256 of
datapackage.json), ``created`` (ISO 8601 UTC), ``software``, ``signature`` (ECDSA P-256 with
SHA-256 over the ASCII of ``hash``, DER, base64: authsign's ``crypto.sign``), ``domain`` (the
signer certificate's common name), ``domainCert`` (the signer's certificate and chain, PEM),
and when a TSA answers ``timeSignature`` (base64 of the RFC 3161 TimeStampResp over the SHA-256
of ``signature``) with ``timestampCert`` (the TSA's certificate, PEM).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from asn1crypto import pem
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from lib.evidence.signing import SigningIdentity
from lib.evidence.timestamp import (
    TimestampVerificationError,
    TsaConfig,
    TsaUnavailableError,
    request_timestamp,
    token_certificate_pem,
    verify_timestamp,
)


class SignatureInvalid(ValueError):
    """A ``signedData`` that does not hold: malformed, for another hash, or not made by the
    key of its certificate."""


@dataclass(frozen=True)
class CheckedSignature:
    """A ``signedData`` that holds: ``signer`` (the certificate's subject, RFC 4514),
    ``fingerprint`` (its SHA-256, hex), ``trusted`` (it is one of the trusted signer
    certificates given), ``time`` (the timeSignature's time, verified against the trusted TSA
    roots, or None)."""

    signer: str
    fingerprint: str
    trusted: bool
    time: datetime | None


def sign_hash(digest_hash: str, identity: SigningIdentity, software: str,
              tsa: TsaConfig | None = None, created: str | None = None) -> dict:
    """The ``signedData`` of a WACZ whose datapackage-digest.json ``hash`` is ``digest_hash``
    ("sha256:<hex>"), signed with ``identity`` (an ECDSA key) and, when ``tsa`` names
    authorities and one answers, time-stamped. ``created``: the datapackage's own ``created``
    (``wacz validate`` refuses a signedData whose ``created`` differs from it); now, to the
    second, when None. Raises ValueError for a key that is not ECDSA."""
    key = serialization.load_pem_private_key(identity.key_path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("WACZ signing needs an ECDSA key (the recommendation's algorithm)")
    cert_pem = identity.cert_path.read_text()
    signature = base64.b64encode(key.sign(digest_hash.encode("ascii"),
                                          ec.ECDSA(hashes.SHA256()))).decode("ascii")
    signed = {"hash": digest_hash,
              "created": created or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "software": software, "signature": signature,
              "domain": _common_name(x509.load_pem_x509_certificate(cert_pem.encode())),
              "domainCert": cert_pem + "".join(p.read_text() for p in identity.chain_paths)}
    if tsa and tsa.urls:
        try:
            token = request_timestamp(hashlib.sha256(signature.encode("ascii")).digest(), tsa)
        except TsaUnavailableError:
            return signed
        signed["timeSignature"] = base64.b64encode(token.response).decode("ascii")
        signed["timestampCert"] = token_certificate_pem(token.response)
    return signed


def check_signed_data(signed: dict, digest_hash: str, trusted_signers: list[bytes],
                      trusted_tsa_roots: list[bytes]) -> CheckedSignature:
    """Check ``signed`` (a signedData) against the bundle's ``digest_hash``: the same hash, a
    signature by the key of ``domainCert``'s first certificate, and its timeSignature, if any,
    over that signature. ``trusted_signers``: PEM certificates whose holder the reader trusts;
    ``trusted_tsa_roots``: PEM roots for the timeSignature. Returns CheckedSignature; raises
    SignatureInvalid saying what does not hold."""
    try:
        if signed["hash"] != digest_hash:
            raise SignatureInvalid(f"signedData is for {signed['hash']}, not this datapackage")
        ders = [der for _, _, der in pem.unarmor(signed["domainCert"].encode("ascii"), multiple=True)]
        cert = x509.load_der_x509_certificate(ders[0])
        key = cert.public_key()
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise SignatureInvalid("the signer's certificate holds no ECDSA key")
        key.verify(base64.b64decode(signed["signature"], validate=True),
                   signed["hash"].encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise SignatureInvalid("the signature was not made by the key of its certificate") from exc
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise SignatureInvalid(f"malformed signedData: {exc}") from exc
    fingerprint = cert.fingerprint(hashes.SHA256()).hex()
    trusted = any(x509.load_pem_x509_certificate(blob).fingerprint(hashes.SHA256()).hex() == fingerprint
                  for blob in trusted_signers)
    time = None
    if "timeSignature" in signed:
        try:
            time = verify_timestamp(base64.b64decode(signed["timeSignature"]), hashlib.sha256(
                signed["signature"].encode("ascii")).digest(), trusted_tsa_roots).gen_time
        except TimestampVerificationError as exc:
            if exc.check != "certificate":
                raise SignatureInvalid(f"timeSignature does not hold: {exc}") from exc
        except ValueError as exc:
            raise SignatureInvalid(f"malformed timeSignature: {exc}") from exc
    return CheckedSignature(cert.subject.rfc4514_string(), fingerprint, trusted, time)


def _common_name(cert: x509.Certificate) -> str:
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else cert.subject.rfc4514_string()
