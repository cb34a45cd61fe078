"""The trust library (lib.evidence.timestamp) configured from settings: the RFC 3161
timestamp of a bundle's datapackage.json, and its verification.

A bundle's timestamp travels in its ``datapackage-digest.json`` as ``"timestamp": {"tsr":
base64 of the DER TimeStampResp, "tsa": the authority's URL, "time": its genTime (UTC,
ISO 8601)}``; its message imprint is the SHA-256 of datapackage.json, which lists the SHA-256
of every other file.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from core.text_extraction import text_config
from lib.evidence.signing import CERT_FILE, SigningIdentity, load_or_create_identity
from lib.evidence.timestamp import (
    TimestampVerificationError,
    TsaConfig,
    TsaNotConfiguredError,
    TsaUnavailableError,
    request_timestamp,
    verify_timestamp,
)
from lib.evidence.verify import TimestampUntrusted, VerifyLimits
from lib.evidence.wacz_signing import check_signed_data, sign_hash


def verify_limits() -> VerifyLimits:
    """What the verification of a bundle reads at most: the archive limits of uploaded works
    (settings.ARCHIVE_MAX_*) and settings.EVIDENCE_VERIFY_JSON_MAX_BYTES."""
    return VerifyLimits(archive=text_config(), json_max_bytes=settings.EVIDENCE_VERIFY_JSON_MAX_BYTES)


def signing_identity() -> SigningIdentity:
    """The platform's signing key and certificate (settings.EVIDENCE_SIGNING_*; made once in
    EVIDENCE_SIGNING_DIR when none is configured). Raises SigningError when they cannot be
    read or made."""
    return load_or_create_identity(
        settings.EVIDENCE_SIGNING_DIR, _path(settings.EVIDENCE_SIGNING_KEY),
        _path(settings.EVIDENCE_SIGNING_CERT), [Path(p) for p in settings.EVIDENCE_SIGNING_CHAIN])


def _path(value: str) -> Path | None:
    return Path(value) if value else None


def bundle_signature(datapackage: bytes, software: str) -> dict:
    """The ``signedData`` field of a bundle's datapackage-digest.json: the platform's signature
    over the SHA-256 of ``datapackage`` (datapackage.json's bytes), time-stamped by the TSAs
    of settings when one answers (lib.evidence.wacz_signing), with the datapackage's own
    ``created`` (a signature made a second later, after the TSA answered, would otherwise say
    another time and fail ``wacz validate``). Raises SigningError."""
    digest_hash = "sha256:" + hashlib.sha256(datapackage).hexdigest()
    created = json.loads(datapackage).get("created")
    return {"signedData": sign_hash(digest_hash, signing_identity(), software, tsa_config(),
                                    created)}


def signature_check(extra_signers: list[str] | tuple[str, ...] = (),
                    extra_tsa_certs: list[str] | tuple[str, ...] = ()):
    """The ``check_signature`` of ``lib.evidence.verify.verify_bundle``: the bundle's
    signedData checked against its hash; the platform's own certificate and the PEM files
    ``extra_signers`` are the trusted signers, the TSA roots of ``trusted_certs`` those of its
    timeSignature. Returns a line saying who signed and whether that signer is trusted;
    raises SignatureInvalid. Raises OSError at once for a file that cannot be read."""
    signers = [Path(p).read_bytes() for p in extra_signers]
    own = Path(settings.EVIDENCE_SIGNING_CERT or settings.EVIDENCE_SIGNING_DIR / CERT_FILE)
    if own.exists():
        signers.append(own.read_bytes())
    roots = trusted_certs(extra_tsa_certs)

    def check(signed: dict, digest_hash: str) -> str:
        found = check_signed_data(signed, digest_hash, signers, roots)
        when = f", time-signed {found.time:%Y-%m-%d %H:%M:%S} UTC" if found.time else ""
        trust = "a trusted signer" if found.trusted else "a signer not among the trusted ones"
        return f"signed by {found.signer} (certificate SHA-256 {found.fingerprint}): {trust}{when}"

    return check


def tsa_config() -> TsaConfig:
    """The TSAs and their patience, from settings.TSA_*."""
    return TsaConfig(urls=tuple(settings.TSA_URLS), timeout_seconds=settings.TSA_TIMEOUT_SECONDS,
                     retries=settings.TSA_RETRIES, retry_base_seconds=settings.TSA_RETRY_BASE_SECONDS,
                     retry_max_seconds=settings.TSA_RETRY_MAX_SECONDS,
                     max_response_bytes=settings.TSA_MAX_RESPONSE_BYTES)


def trusted_certs(extra: list[str] | tuple[str, ...] = ()) -> list[bytes]:
    """The certificates (PEM bytes) a timestamp may chain to: settings.TSA_TRUSTED_CERTS and
    the paths in ``extra``. Raises OSError for a file that cannot be read."""
    return [Path(p).read_bytes() for p in (*settings.TSA_TRUSTED_CERTS, *extra)]


@dataclass
class Stamping:
    """What ``Stamper`` got: ``status`` (a TimestampStatus value), ``token`` (DER bytes or
    None), ``authority`` (URL or ''), ``time`` (datetime or None), ``problem`` ('' or why none)."""

    status: str = "none"
    token: bytes | None = None
    authority: str = ""
    time: object = None
    problem: str = ""


class Stamper:
    """The ``stamp`` function of ``lib.evidence.bundle.build_wacz``: asks the TSAs of
    settings for a token over the SHA-256 of datapackage.json and keeps what happened in
    ``result`` (no TSA configured: "none"; all of them failing: "pending", with the reason)."""

    def __init__(self):
        self.result = Stamping()

    def __call__(self, datapackage: bytes) -> dict:
        self.result = stamp_digest(hashlib.sha256(datapackage).digest())
        if self.result.status != "stamped":
            return {}
        return {"timestamp": {"tsr": base64.b64encode(self.result.token).decode("ascii"),
                              "tsa": self.result.authority,
                              "time": self.result.time.strftime("%Y-%m-%dT%H:%M:%SZ")}}


def stamp_digest(digest: bytes) -> Stamping:
    """Ask the TSAs of settings for a token over ``digest`` (32 bytes of SHA-256): "stamped"
    with the token, authority and time; "none" when no TSA is configured; "pending" with the
    reason when none answered. Raises ValueError for a digest that is not 32 bytes."""
    try:
        token = request_timestamp(digest, tsa_config())
    except TsaNotConfiguredError:
        return Stamping("none", problem="no time-stamping authority configured")
    except TsaUnavailableError as exc:
        return Stamping("pending", problem=str(exc)[:500])
    return Stamping("stamped", token.response, token.tsa_url, token.gen_time)


# Words in a TSA certificate's subject that mark a demo authority (the demo TSA's own).
_DEMO_MARKS = ("not accredited", "非认证")


@dataclass
class AuthorityLabel:
    """How a capture's timestamp authority is shown: ``name`` the subject of the TSA's
    certificate from the verified token ('' when the token does not verify against the trusted
    roots), ``demo`` (its subject says "not accredited" / "非认证"), ``accredited`` (its URL is
    in settings.TSA_ACCREDITED and it is no demo)."""

    name: str
    demo: bool
    accredited: bool


def authority_label(capture) -> AuthorityLabel | None:
    """The AuthorityLabel of ``capture`` (a Capture), None when it has no timestamp."""
    return token_authority_label(capture.timestamp_token, capture.datapackage_sha256,
                                 capture.timestamp_authority)


def token_authority_label(token: bytes | None, sha256_hex: str, url: str) -> AuthorityLabel | None:
    """The AuthorityLabel of a timestamp ``token`` (DER TimeStampResp, or None) over the digest
    ``sha256_hex`` (hex str) from the TSA at ``url``: the name from its certificate once the
    token verifies against ``trusted_certs()``. None when there is no token."""
    if not token:
        return None
    try:
        name = verify_timestamp(bytes(token), bytes.fromhex(sha256_hex), trusted_certs()).tsa_name
    except (TimestampVerificationError, ValueError, OSError):
        name = ""
    demo = any(mark in name.lower() for mark in _DEMO_MARKS)
    return AuthorityLabel(name, demo, not demo and url in settings.TSA_ACCREDITED)


def timestamp_check(extra_certs: list[str] | tuple[str, ...] = ()):
    """The ``check_timestamp`` of ``lib.evidence.verify.verify_bundle``: verifies the
    token against the trusted certificates (``trusted_certs(extra_certs)``). A token that
    holds but chains to none of them (or none is configured) raises TimestampUntrusted (the
    bundle is UNVERIFIED); any other fault ValueError (FAIL). Raises OSError at once for a
    certificate file that cannot be read."""
    certs = trusted_certs(extra_certs)

    def check(digest_fields: dict, datapackage: bytes) -> str:
        try:
            response = base64.b64decode(digest_fields["timestamp"]["tsr"], validate=True)
            verified = verify_timestamp(response, hashlib.sha256(datapackage).digest(), certs)
        except TimestampVerificationError as exc:
            if exc.check == "certificate":
                raise TimestampUntrusted(exc.detail) from exc
            raise ValueError(str(exc)) from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed timestamp entry: {exc}") from exc
        return (f"RFC 3161 timestamp of {verified.gen_time:%Y-%m-%d %H:%M:%S} UTC by "
                f"{verified.tsa_name}, over the SHA-256 of datapackage.json")

    return check
