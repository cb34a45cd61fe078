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
- digits, spaces and punctuation give nothing; sentence punctuation (。！？；… ! ? ; . and line
  breaks) marks a boundary, reported in letter coordinates.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).with_name("data")
BOUNDARY = 64
LATIN = 32


class EmptyTextError(ValueError):
    """Raised when a text yields no letters at all (empty, digits or punctuation only)."""


@dataclass(frozen=True)
class Letters:
    """Letter sequence of one text.

    letters: str of a-z, one per Han character or Latin word.
    codes: np.uint8 array (n_letters,), letter codes 0..25 (a..z).
    offsets: np.int64 array (n_letters,), index (characters) of each letter's source character in
        the original text.
    boundaries: np.int64 array, sorted unique letter positions where a sentence starts (letter
        index just after sentence punctuation), excluding 0 and n_letters.
    text_length: length of the original text in characters.
    """

    letters: str
    codes: np.ndarray
    offsets: np.ndarray
    boundaries: np.ndarray
    text_length: int

    def __len__(self) -> int:
        return len(self.letters)


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
        cls = bytearray(table.encode("ascii").translate(bytes(tr)))
        cls[-1] = 0
        self.classes = np.frombuffer(bytes(cls), dtype=np.uint8)
        self.version = version

    def convert(self, text: str) -> Letters:
        """Letters of ``text`` (str). Never raises on content; returns an empty Letters if none.

        Speed: one numpy gather per character (tens of millions of characters per second,
        see the letter table's recorded measurement).
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        cls = self.classes[np.minimum(cp, len(self.classes) - 1)]
        han = (cls >= 1) & (cls <= 26)
        latin = (cls > LATIN) & (cls < BOUNDARY)
        emit = han.copy()
        if latin.any():
            start = latin.copy()
            start[1:] &= ~latin[:-1]
            emit |= start
        offsets = np.flatnonzero(emit)
        codes = (cls[offsets] & 31) - 1
        bpos = np.flatnonzero(cls == BOUNDARY)
        bounds = np.unique(np.searchsorted(offsets, bpos))
        bounds = bounds[(bounds > 0) & (bounds < len(offsets))]
        letters = (codes + 97).tobytes().decode("ascii")
        return Letters(letters, codes, offsets.astype(np.int64), bounds.astype(np.int64), len(text))


@lru_cache(maxsize=1)
def default_table() -> LetterTable:
    """The shipped letter table (loaded once from ``data/letter_table.json.gz``)."""
    with gzip.open(DATA_DIR / "letter_table.json.gz", "rt", encoding="utf-8") as f:
        record = json.load(f)
    return LetterTable(record["table"], record["version"])


def to_letters(text: str) -> Letters:
    """Convert ``text`` with the shipped table; see ``LetterTable.convert``."""
    return default_table().convert(text)
