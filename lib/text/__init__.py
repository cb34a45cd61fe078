"""Bytes to text, one path for uploads and crawled pages; imports no Django.

- ``decode_bytes`` (one charset detector), ``extract_document`` (HTML body text by resiliparse
  with one set of options, or plain text), ``normalize`` (one normalisation), ``find_sections``
  (chapters), ``extract_file`` / ``extract_pasted`` (uploads: .txt .html .docx .pdf .epub,
  checked by content and name, archive bombs refused), ``open_zip``.
- One result, ``Extracted``; one exception, ``TextError`` (a stable code, reason and
  parameters; the Django side words it, ``core.text_extraction``); limits in ``TextConfig``.
"""

from .archives import open_zip
from .chapters import Section, find_sections, join_sections
from .config import DEFAULT, TextConfig
from .encoding import Decoded, decode_bytes, detect_encoding
from .errors import TextError
from .files import SUFFIXES, extract_file, extract_pasted, sniff, supported_suffixes
from .html import extract_document
from .normalize import normalize
from .result import Extracted

__all__ = ["DEFAULT", "SUFFIXES", "Decoded", "Extracted", "Section", "TextConfig", "TextError",
           "decode_bytes", "detect_encoding", "extract_document", "extract_file",
           "extract_pasted", "find_sections", "join_sections", "normalize", "open_zip", "sniff",
           "supported_suffixes"]
