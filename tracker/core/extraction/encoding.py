"""Decoding the bytes of a plain-text or HTML upload.

Order: a byte-order mark; then strict UTF-8 (text that decodes as UTF-8 is UTF-8 with near
certainty); then charset-normalizer limited to the Chinese encodings (GB18030, which includes
GBK and GB2312, and Big5), because unrestricted detection misreads short GBK text as cp949
(Korean) (../shared/docs/machine-notes.md). GBK and GB2312 are decoded as GB18030, their
superset, and Big5 as Big5-HKSCS, Big5's superset.
"""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes
from django.utils.translation import gettext as _

from .errors import UploadError

_BOMS = [(codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16")]
CANDIDATES = ["gb18030", "big5"]
# Codec used to decode each encoding name charset-normalizer may report.
_SUPERSET = {"gb2312": "gb18030", "gbk": "gb18030", "gb18030": "gb18030",
             "big5": "big5hkscs", "big5hkscs": "big5hkscs", "cp950": "big5hkscs"}


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode ``data`` (bytes of a text file) to str.

    Returns:
        (text, encoding): encoding is "utf-8", "utf-8-sig", "utf-16", "utf-32", "gb18030" or
        "big5hkscs".

    Raises:
        UploadError("encoding"): no supported encoding decodes the bytes.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(name), name
            except UnicodeDecodeError as exc:
                raise UploadError("encoding", _(
                    "The file starts with a %(codec)s byte-order mark but is not valid "
                    "%(codec)s: %(error)s") % {"codec": name, "error": exc}) from exc
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    guess = detect_chinese_encoding(data)
    if guess:
        try:
            return data.decode(guess), guess
        except UnicodeDecodeError:
            pass
    raise UploadError("encoding", _("Could not tell the text's encoding: it is not UTF-8, "
                                    "GB18030/GBK/GB2312 or Big5. Save the file as UTF-8 and "
                                    "upload it again."))


def detect_chinese_encoding(data: bytes) -> str | None:
    """Guess GB18030 or Big5 for bytes that are not UTF-8.

    Returns:
        "gb18030", "big5hkscs" or None when neither fits (charset-normalizer finds too much
        "chaos" in both decodings).
    """
    best = from_bytes(data, cp_isolation=CANDIDATES).best()
    if best is None:
        return None
    return _SUPERSET.get(best.encoding.lower().replace("_", ""), None)
