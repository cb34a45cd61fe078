"""RFC 3161 timestamps: ask third-party time-stamping authorities (TSAs) to vouch for a SHA-256
digest, and verify the answer later against the TSAs' trusted certificates.

The token kept is the TSA's whole answer, a DER ``TimeStampResp`` (what ``openssl ts -reply``
writes and ``openssl ts -verify -in`` reads). Requests and answers are built and parsed with
asn1crypto, the signature and the certificate chain are checked with pyHanko's CMS validation
(pyhanko-certvalidator); see docs/evidence-verification.md for the choice of library.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import requests
from asn1crypto import cms, core, pem, tsp, x509
from cryptography import x509 as pyca_x509
from pyhanko.sign.validation.generic_cms import validate_tst_signed_data
from pyhanko.sign.validation.status import TimestampSignatureStatus
from pyhanko_certvalidator import ValidationContext

from lib.crawl.fetch import read_body, transport_outcome
from lib.crawl.outcomes import Outcome
from lib.runtime.backoff import backoff_delay

QUERY_TYPE = "application/timestamp-query"
REPLY_TYPE = "application/timestamp-reply"
SHA256_BYTES = 32
# PKIStatus values that carry a token (RFC 3161 section 2.4.2): granted, grantedWithMods
_GRANTED = ("granted", "granted_with_mods")
# Failures of an answer itself, beside the transport ones (lib.crawl.outcomes.Outcome)
GARBAGE, REJECTED, MISMATCH = "garbage", "rejected", "mismatch"
# Failures worth asking the same TSA again: the network or the server may recover
_TRANSIENT = frozenset({Outcome.TIMEOUT, Outcome.CONNECTION_ERROR, Outcome.SERVER_ERROR,
                        Outcome.RATE_LIMITED, GARBAGE})


class _TimeStampResp(core.Sequence):
    """RFC 3161 TimeStampResp; asn1crypto's own wrongly requires the token, absent from a
    rejection."""

    _fields = [("status", tsp.PKIStatusInfo),
               ("time_stamp_token", cms.ContentInfo, {"optional": True})]


@dataclass(frozen=True)
class TsaConfig:
    """Where and how patiently to ask for timestamps.

    ``urls`` the TSAs, tried in this order; ``timeout_seconds`` the most one attempt may take,
    connection and whole answer; ``retries`` attempts after the first at each TSA (transient
    failures only: connection error, timeout, HTTP 5xx or 429, garbage); the pause before
    retry n grows from ``retry_base_seconds`` to ``retry_max_seconds``
    (lib.runtime.backoff.backoff_delay); ``max_response_bytes`` the largest answer read (a
    token with its chain is a few KB).
    """

    urls: tuple[str, ...] = ()
    timeout_seconds: float = 10.0
    retries: int = 2
    retry_base_seconds: float = 1.0
    retry_max_seconds: float = 30.0
    max_response_bytes: int = 256 * 1024


@dataclass(frozen=True)
class TsaFailure:
    """One failed attempt: the TSA's URL, attempt number from 1, a reason and what was seen.
    Reasons: the transport's, as the crawler names them (lib.crawl.outcomes.Outcome: ``timeout``,
    ``connection_error``, ``invalid_url``, ``too_large``, ``server_error``, ``rate_limited``,
    ``client_error``), or the answer's: ``garbage`` (not RFC 3161), ``rejected`` (the TSA's
    refusal, with its status text), ``mismatch`` (a token for another digest or nonce)."""

    url: str
    attempt: int
    reason: str
    detail: str

    def __str__(self) -> str:
        return f"{self.url} (attempt {self.attempt}): {self.reason}: {self.detail}"


class TimestampError(Exception):
    """Base of the errors of this module."""


class TsaUnavailableError(TimestampError):
    """No TSA of the list gave a usable token; ``failures`` lists every attempt, in order."""

    def __init__(self, failures: list[TsaFailure]):
        self.failures = failures
        super().__init__("no time-stamping authority gave a token: "
                         + "; ".join(str(failure) for failure in failures))


class TsaNotConfiguredError(TsaUnavailableError):
    """The list of TSAs is empty: nothing was asked."""

    def __init__(self):
        super().__init__([])
        self.args = ("no time-stamping authority is configured",)


class TimestampVerificationError(TimestampError):
    """A token does not hold: ``check`` names the failed check (``format``, ``status``,
    ``digest``, ``signature``, ``certificate``) and ``detail`` says what was found."""

    def __init__(self, check: str, detail: str):
        self.check = check
        self.detail = detail
        super().__init__(f"timestamp {check} check failed: {detail}")


@dataclass(frozen=True)
class TimestampToken:
    """A granted answer: ``response`` the DER ``TimeStampResp`` bytes as the TSA sent them
    (keep them as a ``.tsr`` file), ``tsa_url`` who answered, ``gen_time`` the TSA's time
    (aware, UTC)."""

    response: bytes
    tsa_url: str
    gen_time: datetime


@dataclass(frozen=True)
class VerifiedTimestamp:
    """A token that holds: ``gen_time`` (aware, UTC), ``tsa_name`` the subject of the TSA's
    certificate (RFC 4514), ``serial_number`` the token's serial, ``policy`` the TSA policy OID,
    ``chain`` the subjects from the TSA certificate up to the trusted root."""

    gen_time: datetime
    tsa_name: str
    serial_number: int
    policy: str
    chain: tuple[str, ...] = field(default=())


def build_query(digest: bytes) -> bytes:
    """DER ``TimeStampReq`` for a SHA-256 ``digest`` (32 bytes), with a random 64-bit nonce and
    certReq set (the TSA includes its certificate). Raises ValueError for a wrong length."""
    _check_digest(digest)
    return tsp.TimeStampReq({
        "version": "v1",
        "message_imprint": {"hash_algorithm": {"algorithm": "sha256"}, "hashed_message": digest},
        "nonce": secrets.randbits(64),
        "cert_req": True,
    }).dump()


def request_timestamp(digest: bytes, config: TsaConfig) -> TimestampToken:
    """A token for a SHA-256 ``digest`` (32 bytes) from the first TSA of ``config.urls`` that
    grants one (see ``exchange``). The token is not verified against trusted certificates here:
    that is ``verify_timestamp``'s job, also later, by anyone.

    Raises:
        TsaNotConfiguredError: ``config.urls`` is empty.
        TsaUnavailableError: every TSA failed; its ``failures`` say which and why.
        ValueError: ``digest`` is not 32 bytes.
    """
    url, answer = exchange(build_query(digest), config)
    return TimestampToken(response=answer, tsa_url=url, gen_time=_tst_info(
        _TimeStampResp.load(answer))["gen_time"].native)


def exchange(query: bytes, config: TsaConfig) -> tuple[str, bytes]:
    """Send a DER ``TimeStampReq`` to the TSAs of ``config`` in order, each up to
    ``1 + config.retries`` times with backoff, until one grants a token whose message imprint
    and nonce are the query's. Returns (the TSA's URL, its DER ``TimeStampResp``).

    Raises:
        TsaNotConfiguredError: ``config.urls`` is empty.
        TsaUnavailableError: every TSA failed; ``failures`` lists each attempt.
    """
    if not config.urls:
        raise TsaNotConfiguredError()
    request = tsp.TimeStampReq.load(query)
    failures: list[TsaFailure] = []
    for url in config.urls:
        for attempt in range(config.retries + 1):
            if attempt:
                time.sleep(backoff_delay(attempt - 1, config.retry_base_seconds,
                                         config.retry_max_seconds))
            try:
                return url, _ask(url, query, request, config)
            except _AttemptFailed as failed:
                failures.append(TsaFailure(url, attempt + 1, failed.reason, failed.detail))
                if failed.reason not in _TRANSIENT:
                    break
    raise TsaUnavailableError(failures)


class _AttemptFailed(Exception):
    def __init__(self, reason: str, detail: str):
        self.reason, self.detail = reason, detail


def _ask(url: str, query: bytes, request: tsp.TimeStampReq, config: TsaConfig) -> bytes:
    """One POST to one TSA; the answer's bytes if it grants a token matching ``request``."""
    deadline = time.monotonic() + config.timeout_seconds
    try:
        response = requests.post(url, data=query, headers={"Content-Type": QUERY_TYPE},
                                 timeout=config.timeout_seconds, stream=True)
    except requests.RequestException as exc:
        raise _AttemptFailed(*transport_outcome(exc)) from exc
    with response:
        if response.status_code != 200:
            raise _AttemptFailed(Outcome.RATE_LIMITED if response.status_code == 429 else
                                 Outcome.SERVER_ERROR if response.status_code >= 500 else
                                 Outcome.CLIENT_ERROR, f"HTTP {response.status_code}")
        answer, failed = read_body(response, config.max_response_bytes, deadline,
                                   config.timeout_seconds)
    if failed:
        raise _AttemptFailed(*failed)
    try:
        parsed = _TimeStampResp.load(answer, strict=True)
        status = parsed["status"]["status"].native
        info = _tst_info(parsed) if status in _GRANTED else None
    except (ValueError, TypeError, KeyError, AttributeError, TimestampVerificationError) as exc:
        raise _AttemptFailed(GARBAGE, f"not an RFC 3161 answer ({len(answer)} bytes, "
                             f"{response.headers.get('Content-Type')}): {exc}") from exc
    if info is None:
        raise _AttemptFailed(REJECTED, f"status {status}: {_status_text(parsed)}")
    if info["message_imprint"].dump() != request["message_imprint"].dump():
        raise _AttemptFailed(MISMATCH, "the token is for another digest")
    if info["nonce"].native != request["nonce"].native:
        raise _AttemptFailed(MISMATCH, "the token's nonce is not the request's")
    return answer


def verify_timestamp(response: bytes, digest: bytes,
                     trusted_certs: Iterable[bytes]) -> VerifiedTimestamp:
    """Check a DER ``TimeStampResp`` against a SHA-256 ``digest`` (32 bytes) and trusted
    certificates (PEM or DER bytes, a PEM may hold several): status granted, message imprint =
    ``digest``, the TSA's signature over the token, and a path from the TSA's certificate to a
    trusted one valid at the token's time, the TSA certificate's only extended key usage
    timeStamping, critical (RFC 3161 sections 2.3 and 2.4.2). Revocation is not checked
    (no fetching). Call from synchronous code (it runs pyHanko's coroutine).

    The token must include the TSA's certificate (requests here set certReq).

    Returns: a VerifiedTimestamp. Raises: TimestampVerificationError naming the failed check;
    ValueError for a ``digest`` that is not 32 bytes or trusted bytes that are no certificate.
    """
    _check_digest(digest)
    try:
        parsed = _TimeStampResp.load(response, strict=True)
        status = parsed["status"]["status"].native
        signed_data = parsed["time_stamp_token"]["content"] if status in _GRANTED else None
        info = _tst_info(parsed) if signed_data is not None else None
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise TimestampVerificationError("format", f"not an RFC 3161 response: {exc}") from exc
    if info is None:
        raise TimestampVerificationError("status", f"{status}: {_status_text(parsed)}")
    imprint = info["message_imprint"]
    algorithm = imprint["hash_algorithm"]["algorithm"].native
    if algorithm != "sha256" or imprint["hashed_message"].native != digest:
        raise TimestampVerificationError(
            "digest", f"the token is for {algorithm} {imprint['hashed_message'].native.hex()}, "
                      f"not sha256 {digest.hex()}")
    gen_time = info["gen_time"].native
    context = ValidationContext(trust_roots=load_certificates(trusted_certs), moment=gen_time,
                                allow_fetching=False, revocation_mode="soft-fail")
    try:
        outcome = TimestampSignatureStatus(**asyncio.run(
            validate_tst_signed_data(signed_data, context, lambda _algorithm: digest)))
    except (ValueError, TypeError, KeyError) as exc:
        raise TimestampVerificationError("signature", f"unreadable signature: {exc}") from exc
    if not (outcome.intact and outcome.valid):
        raise TimestampVerificationError("signature", "the TSA's signature does not match the "
                                                      "token (altered or wrong key)")
    if not outcome.trusted:
        raise TimestampVerificationError(
            "certificate", f"{_subject(outcome.signing_cert)} does not chain to a trusted "
                           f"certificate ({outcome.trust_problem_indic})")
    _check_time_stamping_usage(outcome.signing_cert)
    path = outcome.validation_path
    return VerifiedTimestamp(
        gen_time=gen_time, tsa_name=_subject(outcome.signing_cert),
        serial_number=info["serial_number"].native, policy=info["policy"].dotted,
        chain=tuple(_subject(cert) for cert in reversed(list(path.iter_certs(True))))
        if path is not None else ())


def token_certificate_pem(response: bytes) -> str:
    """The certificates a granted TimeStampResp carries (the TSA's, and its chain where
    included), PEM, as one str. Raises TimestampVerificationError ("format") for an answer
    that is not a granted RFC 3161 response."""
    try:
        parsed = _TimeStampResp.load(response, strict=True)
        certs = parsed["time_stamp_token"]["content"]["certificates"] or []
        return "".join(pem.armor("CERTIFICATE", cert.chosen.dump()).decode("ascii") for cert in certs)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise TimestampVerificationError("format", f"not an RFC 3161 response: {exc}") from exc


def _check_digest(digest: bytes) -> None:
    if not isinstance(digest, bytes) or len(digest) != SHA256_BYTES:
        raise ValueError(f"a SHA-256 digest is {SHA256_BYTES} bytes, got {digest!r:.80}")


def _tst_info(parsed: _TimeStampResp) -> tsp.TSTInfo:
    """The TSTInfo inside a granted answer; raises TimestampVerificationError if absent."""
    signed = parsed["time_stamp_token"]["content"]
    content = signed["encap_content_info"]["content"]
    info = content.parsed if isinstance(content, core.ParsableOctetString) else None
    if not isinstance(info, tsp.TSTInfo):
        raise TimestampVerificationError("format", "the token holds no TSTInfo")
    _ = info.native  # parse it all now: a broken field fails here, not later
    return info


def _status_text(parsed: _TimeStampResp) -> str:
    status = parsed["status"]
    text = status["status_string"].native or []
    failure = status["fail_info"].native
    return "; ".join([*text, *(sorted(failure) if failure else [])]) or "no reason given"


def load_certificates(blobs: Iterable[bytes]) -> list[x509.Certificate]:
    """Certificates (asn1crypto) from PEM or DER bytes; a PEM may hold several. Raises
    TimestampVerificationError (check ``certificate``) when there are none, ValueError for
    bytes that are not a certificate."""
    certs = []
    for blob in blobs:
        ders = [der for _, _, der in pem.unarmor(blob, multiple=True)] if pem.detect(blob) \
            else [blob]
        certs += [x509.Certificate.load(der) for der in ders]
    if not certs:
        raise TimestampVerificationError("certificate", "no trusted certificate was given")
    return certs


def _subject(cert: x509.Certificate) -> str:
    return pyca_x509.load_der_x509_certificate(cert.dump()).subject.rfc4514_string()


def _check_time_stamping_usage(cert: x509.Certificate) -> None:
    extension = next((ext for ext in cert["tbs_certificate"]["extensions"]
                      if ext["extn_id"].native == "extended_key_usage"), None)
    usages = extension["extn_value"].parsed.native if extension is not None else []
    if extension is None or not extension["critical"].native or usages != ["time_stamping"]:
        raise TimestampVerificationError(
            "certificate", f"{_subject(cert)} is not a TSA certificate: its extended key usage "
                           "must be timeStamping alone, marked critical (RFC 3161 2.3)")

