"""Text -> pinyin first-letter sequence, with an offset map back to the original characters.

Daguan's step 1 (InfoQ, 2016-08-18): each Chinese character becomes the first letter of its
pinyin, which makes the sequence blind to simplified/traditional script and to homophones.

Rules (one table lookup per original character, so offsets always refer to the text as given):
- each code point is NFKC-normalised on its own before classification (full-width Latin letters
  and punctuation, compatibility ideographs, half-width forms fold to their ordinary forms);
- a Han character gives its letter from the versioned table ``data/letter_table.json.gz`` built by
  ``fingerprint.build_data`` from pypinyin's data (one letter per character: the one pypinyin's
  phrase mode gives it most often in the corpus; see that module for the polyphone figures);
- a Latin-script word (a run of Latin letters, accents folded) gives one letter, its first,
  lower-cased: "Beijing" -> "b", "pin yin" -> "py" (so syllable-spaced pinyin matches the Han
  text it transcribes); the letter's offset is the word's first character;
- a digit (ASCII or full-width) gives one letter of its own, code 26 + d % 5 (since rules
  version r2: texts that differ in every date and case number are not the same letter
  sequence; five codes because the 5-bit k-gram codes leave room for no more);
- Latin words keep one letter each: on the English bench corpus (200-300-word answers
  reprinted with light cuts) recall is 1.00 with it, so more letters per word were not needed;
- spaces and punctuation give nothing; sentence punctuation (。！？；… ! ? ; . and line
  breaks) marks a boundary, reported in letter coordinates.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from fingerprint.compiled.letters import convert

DATA_DIR = Path(__file__).with_name("data")
# class codes in the lookup array: Han letter 1..26, digit 27..31, boundary 32, Latin letter
# 65..90, so that ``cls & 31`` is the letter (1..31) of Han, digit and Latin classes and 0 for
# the others
BOUNDARY = 32
LATIN = 64
DIGIT = 27
#: Letter codes 26..30 ('{' to DEL as characters) are digits: digit d gives 26 + d % 5.
DIGIT_CODES = 5
DIGIT_LETTER = 26  # the first digit code
#: Version of the conversion rules applied on top of the table (digits, Latin words); part of
#: ``LetterTable.version`` and so of FINGERPRINT_VERSION.
RULES_VERSION = "r2"
_DIGITS = {"0123456789": 0x30, "０１２３４５６７８９": 0xFF10}
_UNICODE_SIZE = 0x110000
_NO_BOUNDARIES = np.zeros(0, dtype=np.int64)
_NO_BOUNDARIES.setflags(write=False)


class EmptyTextError(ValueError):
    """Raised when a text yields no letters at all (empty, digits or punctuation only)."""


#: a lone surrogate code point (text decoded with ``surrogateescape``): not valid Unicode, so
#: it cannot be encoded as UTF-8 or stored
LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


class TextTooLargeError(ValueError):
    """Raised when a text is longer than the engine accepts (``EngineConfig.max_text_chars``)."""


class Letters:
    """Letter sequence of one text.

    codes: np.uint8 array (n_letters,), letter codes 0..25 (a..z).
    offsets: np.int64 array (n_letters,), index (characters) of each letter's source character
        in the original text.
    text_length: length of the original text in characters.
    boundaries: np.int64 array, sorted unique letter positions where a sentence starts (letter
        index just after sentence punctuation), excluding 0 and n_letters; empty when not
        given (letters rebuilt from a stored record).
    letters (computed on first use): str of a-z, one per Han character or Latin word.
    """

    def __init__(self, codes: np.ndarray, offsets: np.ndarray, text_length: int,
                 boundaries: np.ndarray | None = None):
        self.codes = codes
        self.offsets = offsets
        self.text_length = text_length
        self.boundaries = _NO_BOUNDARIES if boundaries is None else boundaries

    def __len__(self) -> int:
        return len(self.codes)

    @cached_property
    def letters(self) -> str:
        return (self.codes + 97).tobytes().decode("ascii")  # digits: '{' to DEL


class LetterTable:
    """A code point -> class table (see ``fingerprint.build_data``) and the conversion using it.

    table: str indexed by code point; 'a'-'z' Han letter, 'A'-'Z' Latin letter, '|' boundary,
    '.' nothing. version: the table's version string (part of FINGERPRINT_VERSION).
    """

    def __init__(self, table: str, version: str):
        tr = bytearray(256)
        for ch in range(26):
            tr[97 + ch] = 1 + ch
            tr[65 + ch] = LATIN + 1 + ch
        tr[ord("|")] = BOUNDARY
        cls = np.zeros(_UNICODE_SIZE, dtype=np.uint8)
        raw = table.encode("ascii").translate(bytes(tr))
        cls[: len(raw)] = np.frombuffer(raw, dtype=np.uint8)
        for first in _DIGITS.values():  # ASCII and full-width digits
            cls[first:first + 10] = DIGIT + np.arange(10) % DIGIT_CODES
        # one entry per code point (1.1 MB): no bounds check needed at lookup time
        self.classes = cls
        self.version = f"{version}{RULES_VERSION}"

    def convert(self, text: str) -> Letters:
        """Letters of ``text`` (str), with its sentence starts. Never raises on content;
        returns an empty Letters if none. Raises TypeError when text is not a str.

        One compiled pass over the code points (``fingerprint.compiled.letters.convert``).
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        codes, offsets, boundaries = convert(text, self.classes, BOUNDARY, LATIN)
        return Letters(codes, offsets, len(text), boundaries)


@lru_cache(maxsize=1)
def default_table() -> LetterTable:
    """The shipped letter table (loaded once from ``data/letter_table.json.gz``)."""
    with gzip.open(DATA_DIR / "letter_table.json.gz", "rt", encoding="utf-8") as f:
        record = json.load(f)
    return LetterTable(record["table"], record["version"])


def to_letters(text: str) -> Letters:
    """Convert ``text`` with the shipped table; see ``LetterTable.convert``."""
    return default_table().convert(text)
