"""DKIM signatures of notice mails (dashboard.dkim_signing): a signed mail verifies with dkimpy
against the public key a DNS record would publish; a bad key is refused before any connection,
and `manage.py check` names it."""

from __future__ import annotations

import base64
import email

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.mail import EmailMessage

from dashboard import notice_mail
from dashboard.dkim_signing import DkimKeyError, check_dkim_key, dkim_signed


@pytest.fixture
def dkim_key(tmp_path):
    """An RSA key in a PEM file and the TXT record of its public key ("v=DKIM1; k=rsa; p=...")."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path / "dkim.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return path, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def _message() -> bytes:
    message = EmailMessage("侵权内容删除通知书", "请删除以下网页。\n", to=["abuse@host.example"],
                           headers={"From": "星河出版社 <rights@xinghe.example>",
                                    "Message-ID": "<n1@tracker.example>"})
    return message.message().as_bytes(linesep="\r\n")


def test_a_signed_notice_verifies_against_the_published_key(dkim_key, settings):
    path, record = dkim_key
    settings.NOTICE_DKIM_KEY, settings.NOTICE_DKIM_SELECTOR = str(path), "notices"
    settings.NOTICE_DKIM_DOMAIN = "xinghe.example"
    signed = dkim_signed(_message())
    header = email.message_from_bytes(signed)["DKIM-Signature"]
    assert "d=xinghe.example" in header and "s=notices" in header

    def dns(name, timeout=5):
        return record if name == b"notices._domainkey.xinghe.example." else None

    assert dkim.verify(signed, dnsfunc=dns)
    assert not dkim.verify(signed.replace("请删除".encode(), "请保留".encode()), dnsfunc=dns)


def test_unset_dkim_leaves_the_mail_as_it_is(settings):
    settings.NOTICE_DKIM_KEY = ""
    data = _message()
    assert dkim_signed(data) == data


@pytest.mark.parametrize("content", [None, b"not a key", b"-----BEGIN PRIVATE KEY-----\nAAAA\n"])
def test_a_missing_or_malformed_key_is_refused_before_any_connection(tmp_path, settings, content):
    path = tmp_path / "dkim.pem"
    if content is not None:
        path.write_bytes(content)
    settings.NOTICE_DKIM_KEY, settings.NOTICE_DKIM_SELECTOR = str(path), "notices"
    settings.NOTICE_DKIM_DOMAIN = "xinghe.example"
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # nothing listens: no OSError seen
    message = EmailMessage("notice", "body", to=["abuse@host.example"],
                           headers={"Message-ID": "<n2@tracker.example>"})
    with pytest.raises(DkimKeyError, match="DKIM key"):
        notice_mail.transmit(message)
    [error] = check_dkim_key()
    assert error.id == "dashboard.E020" and str(path) in error.msg
    note = notice_mail.failure_note(DkimKeyError("x"))
    assert "mail_dkim_key" in note


def test_a_key_without_selector_or_domain_is_named_at_start(dkim_key, settings):
    settings.NOTICE_DKIM_KEY, settings.NOTICE_DKIM_SELECTOR = str(dkim_key[0]), ""
    [error] = check_dkim_key()
    assert "TRACKER_DKIM_SELECTOR" in error.msg
