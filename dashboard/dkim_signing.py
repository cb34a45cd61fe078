"""DKIM signatures (RFC 6376, with dkimpy) on the notice mails the platform sends over SMTP.

With settings.NOTICE_DKIM_KEY (a PEM private key file, RSA or Ed25519), NOTICE_DKIM_SELECTOR
and NOTICE_DKIM_DOMAIN set, each notice mail is signed over its From, Sender, To, Subject,
Date, Message-ID and Reply-To headers and its body, so that the recipient's server can check it
came from a server allowed to send for that domain (the DNS record
``SELECTOR._domainkey.DOMAIN``). Unset: mails go unsigned. A key that cannot be used fails the
mail with the reason before anything is sent, and ``manage.py check`` says so at start
(dashboard.E020).
"""

from __future__ import annotations

from pathlib import Path

import dkim
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from django.conf import settings
from django.core import checks

from dashboard.errors import DashboardError

SIGNED_HEADERS = (b"from", b"sender", b"to", b"subject", b"date", b"message-id", b"reply-to")


class DkimKeyError(DashboardError, ValueError):
    """The DKIM settings are incomplete or the key cannot be read as a PEM private key."""


def dkim_key() -> bytes | None:
    """The configured DKIM private key (PEM bytes), or None when DKIM signing is off.

    Raises:
        DkimKeyError: a key is set without a selector or domain, or the file is missing,
            unreadable or not an unencrypted PEM private key (the message says which).
    """
    path = settings.NOTICE_DKIM_KEY
    if not path:
        return None
    if not (settings.NOTICE_DKIM_SELECTOR and settings.NOTICE_DKIM_DOMAIN):
        raise DkimKeyError("TRACKER_DKIM_KEY is set but TRACKER_DKIM_SELECTOR or "
                           "TRACKER_DKIM_DOMAIN is not")
    try:
        key = Path(path).read_bytes()
        load_pem_private_key(key, password=None)
    except OSError as exc:
        raise DkimKeyError(f"the DKIM key {path} cannot be read: {exc.strerror or exc}") from exc
    except (ValueError, TypeError) as exc:
        raise DkimKeyError(f"the DKIM key {path} is not an unencrypted PEM private key") from exc
    return key


def dkim_signed(data: bytes) -> bytes:
    """``data`` (a whole message, CRLF line ends) with a DKIM-Signature header in front, or
    unchanged when DKIM signing is off. Raises DkimKeyError as ``dkim_key``."""
    key = dkim_key()
    if key is None:
        return data
    signature = dkim.sign(data, settings.NOTICE_DKIM_SELECTOR.encode("ascii"),
                          settings.NOTICE_DKIM_DOMAIN.encode("ascii"), key,
                          include_headers=list(SIGNED_HEADERS))
    return signature + data


def check_dkim_key(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """System check: the DKIM settings can sign (dashboard.E020 naming what is wrong)."""
    try:
        dkim_key()
    except DkimKeyError as exc:
        return [checks.Error(str(exc), hint="fix or unset TRACKER_DKIM_KEY (docs/takedown.md)",
                             id="dashboard.E020")]
    return []
