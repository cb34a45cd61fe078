"""Bytes to str: one decoder and one encoding detector for uploads and crawled pages.

Order: a byte-order mark; the HTTP header charset (crawled pages); the charset the document
declares (``<meta charset>``); detection. Declared names go through w3lib's resolution, the
WHATWG Encoding Standard's label table that browsers use: GB2312 and GBK are read as GB18030
(their superset; pages labelled GB2312 routinely contain GBK-only characters such as 镕) and
Big5 as Big5-HKSCS (Big5 plus the Hong Kong characters). Detection takes strict UTF-8 at once
(legacy text is very unlikely to be valid UTF-8), then charset-normalizer; when it names a
non-Chinese legacy code page (it reads short GBK snippets as cp949, Korean, or as UTF-16) a
second pass limited to UTF-8, GB18030 and Big5 wins if it finds one.

Big5. The two former detectors disagreed: one resolved Big5 to Big5-HKSCS, the other kept
charset-normalizer's cp950 (Microsoft's Big5). Both are kept, in this order: every Big5 name
(big5, cp950, big5-hkscs) decodes as Big5-HKSCS, and as cp950 when Big5-HKSCS would lose
characters that cp950 reads (the euro sign A3E1, for one).

Strictness. Crawled pages are decoded leniently: a declared or detected encoding is accepted
when at most ``TextConfig.max_bad_ratio`` of the characters are replacement characters, and the
last resort is UTF-8 with replacements. Uploaded plain text is decoded strictly (``strict=True``):
only a byte-order mark, UTF-8, or a Chinese encoding that decodes every byte is accepted, else a
``TextError`` says so, so that a work never stores a wrong character.
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

from .config import DEFAULT, TextConfig
from .errors import TextError

_CHINESE = ("utf_8", "gb18030", "big5")
# charset-normalizer's names (and aliases) that detection may be trusted with as they are
_TRUSTED = frozenset({"ascii", "utf_8", "utf_16", "utf_32", "gb18030", "gb2312", "gbk", "big5",
                      "big5hkscs", "cp950", "hz"})
# the Big5 family: decoded as Big5-HKSCS first, then as cp950
_BIG5 = ("big5hkscs", "cp950")
_DECLARED_BYTES = 4096  # a <meta charset> must be in the first 4 KiB (HTML spec: 1024 bytes)


@dataclass(frozen=True)
class Decoded:
    """Text of some bytes.

    Attributes:
        text: the decoded str (a byte-order mark removed).
        encoding: the Python codec used, e.g. "utf-8", "gb18030", "big5hkscs", "cp950",
            "utf-16".
        source: where the encoding came from: "bom", "header", "meta", "detected" or "default"
            (UTF-8 with replacement characters, lenient decoding only).
    """

    text: str
    encoding: str
    source: str


def decode_bytes(data: bytes, content_type: str | None = None, *, strict: bool = False,
                 config: TextConfig = DEFAULT) -> Decoded:
    """Decode ``data`` (bytes of a page or a text file).

    Args:
        data: the bytes.
        content_type: the HTTP Content-Type header value, or None (uploads).
        strict: refuse rather than replace undecodable bytes (uploads of plain text).
        config: ``max_bad_ratio`` and ``detect_bytes`` are used.

    Returns:
        Decoded.

    Raises:
        TextError("encoding", "bad_bom", codec=, error=): strict, and the bytes after a
            byte-order mark are not valid in its encoding.
        TextError("encoding", "unknown"): strict, and neither a declaration nor detection
            gives UTF-8, GB18030 or Big5 that decodes every byte.
        Lenient decoding never raises.
    """
    bom_encoding, bom = read_bom(data)
    if bom_encoding and bom:
        body = data[len(bom):]
        try:
            return Decoded(body.decode(bom_encoding, "strict" if strict else "replace"),
                           bom_encoding, "bom")
        except UnicodeDecodeError as exc:
            raise TextError("encoding", "bad_bom", codec=bom_encoding, error=exc) from exc
    for source, name in (("header", http_content_type_encoding(content_type)),
                         ("meta", html_body_declared_encoding(data[:_DECLARED_BYTES]))):
        decoded = _decode_as(data, resolve_encoding(name) if name else None, source, strict,
                             config)
        if decoded:
            return decoded
    decoded = _decode_as(data, detect_encoding(data, config, chinese_only=strict), "detected",
                         strict, config)
    if decoded:
        return decoded
    if strict:
        raise TextError("encoding", "unknown")
    return Decoded(data.decode("utf-8", "replace"), "utf-8", "default")


def detect_encoding(data: bytes, config: TextConfig = DEFAULT, *,
                    chinese_only: bool = False) -> str | None:
    """Guess the encoding of ``data`` (bytes) without any declaration.

    Args:
        data: the bytes; the first ``config.detect_bytes`` are read.
        config: the TextConfig.
        chinese_only: accept only UTF-8 and the Chinese encodings (uploads), None otherwise.

    Returns:
        A codec name resolved through w3lib ("gb2312" comes back as "gb18030", "big5" as
        "big5hkscs"), or None.
    """
    sample = data[:config.detect_bytes]
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 3 and len(data) > len(sample):  # a character cut off
            return "utf-8"
    best = charset_normalizer.from_bytes(sample).best()
    guess = best.encoding if best else None
    if guess not in _TRUSTED:
        chinese = charset_normalizer.from_bytes(sample, cp_isolation=list(_CHINESE)).best()
        if chinese is not None:
            guess = chinese.encoding
        elif chinese_only:
            return None
    return resolve_encoding(guess) if guess else None


def _decode_as(data: bytes, encoding: str | None, source: str, strict: bool,
               config: TextConfig) -> Decoded | None:
    """``data`` decoded as ``encoding`` (a Big5 name as Big5-HKSCS, else cp950), or None when
    the codec is unknown or the decoding is not clean enough."""
    if not encoding:
        return None
    candidates = _BIG5 if encoding in _BIG5 or encoding.startswith("big5") else (encoding,)
    lenient: list[tuple[int, Decoded]] = []
    for codec in candidates:
        try:
            return Decoded(data.decode(codec), codec, source)
        except LookupError:
            return None
        except UnicodeDecodeError:
            text = data.decode(codec, "replace")
            lenient.append((text.count("\ufffd"), Decoded(text, codec, source)))
    bad, best = min(lenient, key=lambda pair: pair[0])
    if strict or bad > config.max_bad_ratio * max(1, len(best.text)):
        return None
    return best
