"""Limits and tunables of the text package, in one frozen dataclass.

The package reads no Django settings: the Django side builds a ``TextConfig`` from its settings
(``core.text_extraction.text_config``) and passes it in; library callers (the crawler, tests,
benchmarks) use ``DEFAULT``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextConfig:
    """What the text package accepts and how hard it looks.

    Attributes:
        upload_max_bytes: largest uploaded file or pasted text (its UTF-8 size), bytes.
        archive_max_bytes: most all entries of one ZIP container (.docx, .epub, .zip) may
            declare once expanded, bytes.
        archive_max_ratio: highest uncompressed / compressed size of one entry of at least
            ``archive_ratio_min_bytes`` (archive bombs compress 1000 times and more; real
            text about 3 to 10 times).
        archive_ratio_min_bytes: entries smaller than this, uncompressed, skip the ratio test
            (bytes).
        archive_max_entries: most entries one ZIP container may hold.
        min_text_chars: extracted body text shorter than this (characters) is no text: shorter
            than one sentence, nothing worth matching.
        max_bad_ratio: a declared or detected encoding is rejected when more than this share
            of the decoded characters would be U+FFFD replacement characters (lenient decoding
            of crawled pages).
        detect_bytes: how many leading bytes encoding detection reads.
        title_max_chars: longest line (characters) taken as a title from a document's content.
        front_matter_lines: how many leading non-empty lines (or paragraphs) are searched for
            a title and an ``作者：NAME`` author line.
        text_max_chars: longest extracted text accepted (characters).
        max_parts: most parts a document reader walks through: paragraphs of a .docx, pages
            of a PDF, documents of an EPUB's reading order. Blank parts add no text, so the
            text limit alone would not stop a body of millions of empty paragraphs.
    """

    upload_max_bytes: int = 50 * 2**20
    archive_max_bytes: int = 500 * 2**20
    archive_max_ratio: int = 200
    archive_ratio_min_bytes: int = 2**20
    archive_max_entries: int = 10_000
    min_text_chars: int = 20
    max_bad_ratio: float = 0.01
    detect_bytes: int = 256 * 1024
    title_max_chars: int = 60
    front_matter_lines: int = 5
    text_max_chars: int = 10_000_000
    max_parts: int = 1_000_000


DEFAULT = TextConfig()
