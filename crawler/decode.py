"""Bytes to text: the HTTP header charset, then a BOM or the page's meta charset, then detection.

Declared names go through w3lib's encoding resolution, which reads GB2312 and GBK as GB18030
(their superset; pages labelled GB2312 routinely contain GBK-only characters) and Big5 as
Big5-HKSCS. A declaration that does not decode (more than ``MAX_BAD_RATIO`` of the characters
would be replacement characters) is treated as a lie and detection decides. Detection is
charset-normalizer; when it names a non-Chinese legacy code page (it reads short GBK text as
cp949, measured on chardet's test pages) a second pass limited to the Chinese encodings wins
if it finds one.
"""

from __future__ import annotations

from dataclasses import dataclass

import charset_normalizer
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

MAX_BAD_RATIO = 0.01
_DETECT_BYTES = 256 * 1024
_CHINESE = ("utf_8", "gb18030", "big5")
_TRUSTED_DETECTIONS = frozenset({"ascii", "utf_8", "utf_16", "utf_32", "gb18030", "gb2312",
                                 "gbk", "big5", "big5hkscs", "cp950", "hz"})


@dataclass(frozen=True)
class Decoded:
    """Text of a body. ``text``: str; ``encoding``: Python codec name used; ``source``: where it
    came from, one of 'bom', 'header', 'meta', 'detected', 'default' (UTF-8 with replacement)."""

    text: str
    encoding: str
    source: str


def decode_body(body: bytes, content_type: str | None = None) -> Decoded:
    """Decode ``body`` (bytes) given the Content-Type header value (str or None).

    Returns Decoded. Never raises for undecodable input: the last resort is UTF-8 with
    U+FFFD replacement characters, reported as source 'default'.
    """
    bom_encoding, bom = read_bom(body)
    if bom_encoding and bom:
        return Decoded(body[len(bom):].decode(bom_encoding, "replace"), bom_encoding, "bom")
    for source, name in (("header", http_content_type_encoding(content_type)),
                         ("meta", html_body_declared_encoding(body[:4096]))):
        encoding = resolve_encoding(name) if name else None
        if encoding:
            text = _decode_if_clean(body, encoding)
            if text is not None:
                return Decoded(text, encoding, source)
    encoding = detect_encoding(body)
    if encoding:
        text = _decode_if_clean(body, encoding)
        if text is not None:
            return Decoded(text, encoding, "detected")
    return Decoded(body.decode("utf-8", "replace"), "utf-8", "default")


def detect_encoding(body: bytes) -> str | None:
    """Guess the encoding of ``body`` (bytes) without any declaration.

    Returns a codec name resolved through w3lib (so 'gb2312' comes back as 'gb18030'), or None.
    Valid UTF-8 is taken at once (a non-UTF-8 legacy text is very unlikely to be valid UTF-8).
    """
    sample = body[:_DETECT_BYTES]
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 3:  # a character cut by the sample's end
            return "utf-8"
    best = charset_normalizer.from_bytes(sample).best()
    guess = best.encoding if best else None
    if guess not in _TRUSTED_DETECTIONS:
        chinese = charset_normalizer.from_bytes(sample, cp_isolation=list(_CHINESE)).best()
        if chinese is not None:
            guess = chinese.encoding
    return resolve_encoding(guess) if guess else None


def _decode_if_clean(body: bytes, encoding: str) -> str | None:
    try:
        text = body.decode(encoding, "replace")
    except LookupError:
        return None
    bad = text.count("\ufffd")
    return text if bad <= MAX_BAD_RATIO * max(1, len(text)) else None
