"""Text extraction from uploads: pasted text, .txt (any common Chinese encoding), .docx, .pdf,
.epub and .html, validated by content as well as by name.

``extract_file(name, data)`` and ``extract_pasted(text)`` return an ``Extracted`` or raise
``UploadError`` whose ``code`` says what is wrong and whose message says it to the user.
"""

from .errors import UploadError
from .result import Extracted
from .upload import extract_file, extract_pasted, supported_suffixes

__all__ = ["Extracted", "UploadError", "extract_file", "extract_pasted", "supported_suffixes"]
