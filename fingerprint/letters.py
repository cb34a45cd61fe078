"""Text -> pinyin first-letter sequence, with an offset map back to the original characters.

Daguan's step 1 (InfoQ, 2016-08-18): each Chinese character becomes the first letter of its
pinyin, which makes the sequence blind to simplified/traditional script and to homophones.

Rules (one table lookup per original character, so offsets always refer to the text as given):
- each code point is NFKC-normalised on its own before classification (full-width Latin letters
  and punctuation, compatibility ideographs, half-width forms fold to their ordinary forms);
- a Han character gives its letter from the versioned table ``data/letter_table.json.gz`` built by
  ``fingerprint.build_data`` from pypinyin's data (one letter per character: the one pypinyin's
  phrase mode gives it most often in the corpus; see that module for the polyphone figures);
- a Latin-script word (a run of Latin letters, accents folded, case ignored) that is a pinyin
  syllable gives one letter, its first: "pin yin" -> "py" (so syllable-spaced pinyin matches
  the Han text it transcribes); any other Latin word gives min(its length,
  ``LATIN_WORD_LETTERS``) letters drawn from a hash of the word, with the frequencies of the
  reference distribution (since rules version r3; before, one letter per word, so that an
  English text of 250 words made 250 letters, too few windows, and one changed word changed
  a letter in windows of 32 words). The letters' offsets run from the word's first character
  to its last, so passages cover whole words;
- a digit (ASCII or full-width) gives one letter of its own, code 26 + d % 5 (since rules
  version r2: texts that differ in every date and case number are not the same letter
  sequence; five codes because the 5-bit k-gram codes leave room for no more);
- spaces and punctuation give nothing; sentence punctuation (。！？；… ! ? ; . and line
  breaks) marks a boundary, reported in letter coordinates.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from fingerprint.windows import mix

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
RULES_VERSION = "r3"
#: Letters at most per Latin word that is not a pinyin syllable (see the module docstring;
#: chosen on the English bench corpus, figures in bench/README.md).
LATIN_WORD_LETTERS = 3
_WORD_BASE = 0x100000001B3  # FNV-1a 64-bit prime (odd, so invertible modulo 2**64)
_WORD_INVERSE = pow(_WORD_BASE, -1, 1 << 64)
_HASH_BITS = 12  # bits of the word hash per drawn letter
_DIGITS = {"0123456789": 0x30, "０１２３４５６７８９": 0xFF10}
_UNICODE_SIZE = 0x110000


class EmptyTextError(ValueError):
    """Raised when a text yields no letters at all (empty, digits or punctuation only)."""


class TextTooLargeError(ValueError):
    """Raised when a text is longer than the engine accepts (``EngineConfig.max_text_chars``)."""


class Letters:
    """Letter sequence of one text.

    codes: np.uint8 array (n_letters,), letter codes 0..25 (a..z).
    offsets: np.int64 array (n_letters,), index (characters) of each letter's source character
        in the original text.
    text_length: length of the original text in characters.
    letters (computed on first use): str of a-z, one per Han character or Latin word.
    boundaries (computed on first use): np.int64 array, sorted unique letter positions where a
        sentence starts (letter index just after sentence punctuation), excluding 0 and
        n_letters.
    """

    def __init__(self, codes: np.ndarray, offsets: np.ndarray, text_length: int,
                 classes: np.ndarray | None = None):
        self.codes = codes
        self.offsets = offsets
        self.text_length = text_length
        self._classes = classes  # per-character classes, kept to find boundaries lazily

    def __len__(self) -> int:
        return len(self.codes)

    @cached_property
    def letters(self) -> str:
        return (self.codes + 97).tobytes().decode("ascii")  # digits: '{' to DEL

    @cached_property
    def boundaries(self) -> np.ndarray:
        if self._classes is None:
            return np.zeros(0, dtype=np.int64)
        bounds = np.searchsorted(self.offsets, np.flatnonzero(self._classes == BOUNDARY))
        keep = (bounds > 0) & (bounds < len(self.offsets))
        keep[1:] &= bounds[1:] != bounds[:-1]
        return bounds[keep].astype(np.int64)


class LetterTable:
    """A code point -> class table (see ``fingerprint.build_data``) and the conversion using it.

    table: str indexed by code point; 'a'-'z' Han letter, 'A'-'Z' Latin letter, '|' boundary,
    '.' nothing. version: the table's version string (part of FINGERPRINT_VERSION).
    """

    def __init__(self, table: str, version: str, frequencies: dict[str, float] | None = None,
                 syllables: Iterable[str] = ()):
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
        # Latin words: hashed letters drawn by the inverse CDF of the letter frequencies
        freq = np.array([(frequencies or {}).get(chr(97 + i), 1.0) for i in range(26)])
        self._cdf = np.round(np.cumsum(freq) / freq.sum() * (1 << _HASH_BITS)).astype(np.uint64)
        self._syllables = np.unique(np.array(
            [_word_hashes(np.frombuffer(w.encode("ascii"), np.uint8) - 96, np.array([0]),
                          np.array([len(w)]))[0] for w in syllables if w], dtype=np.uint64))

    def convert(self, text: str) -> Letters:
        """Letters of ``text`` (str). Never raises on content; returns an empty Letters if none.

        Speed: one numpy gather per character (tens of millions of characters per second,
        see the letter table's recorded measurement).
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        cls = self.classes.take(cp)
        letter = cls & 31
        if cls.max(initial=0) <= LATIN:
            offsets = letter.nonzero()[0]
            return Letters(letter.take(offsets) - 1, offsets, len(text), cls)
        latin = cls > LATIN
        offsets = (letter.astype(bool) & ~latin).nonzero()[0]
        codes, word_offsets = self._latin_words(letter, latin)
        merged = np.concatenate((offsets, word_offsets))
        order = np.argsort(merged, kind="stable")
        codes = np.concatenate((letter.take(offsets) - 1, codes))
        return Letters(codes[order].astype(np.uint8), merged[order], len(text), cls)

    def _latin_words(self, letter: np.ndarray, latin: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """(letter codes 0..25, character offsets) of the Latin words of a text, both (n,);
        ``letter``: each character's letter 1..26 (Latin ones), ``latin``: bool, which
        characters are Latin letters. See the module docstring for the rules."""
        where = latin.nonzero()[0]
        first = np.ones(len(where), dtype=bool)
        first[1:] = np.diff(where) != 1
        starts = first.nonzero()[0]  # in ``where``
        lengths = np.diff(np.append(starts, len(where)))
        hashes = _word_hashes(letter.take(where), starts, lengths)
        syllable = self._syllables.take(np.searchsorted(self._syllables, hashes),
                                        mode="clip") == hashes
        count = np.where(syllable, 1, np.minimum(lengths, LATIN_WORD_LETTERS))
        word = np.repeat(np.arange(len(starts)), count)
        j = np.arange(len(word)) - np.repeat(np.cumsum(count) - count, count)
        shift = (j * _HASH_BITS).astype(np.uint64)
        drawn = (mix(hashes)[word] >> shift) & np.uint64((1 << _HASH_BITS) - 1)
        codes = np.searchsorted(self._cdf, drawn, side="right")
        own = syllable[word]
        codes[own] = letter[where[starts[word[own]]]] - 1
        offsets = where[starts[word]] + j * (lengths[word] - 1) // np.maximum(count[word] - 1, 1)
        return codes, offsets


def _word_hashes(letters: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Polynomial hash (uint64, base ``_WORD_BASE``, modulo 2**64) of each word of consecutive
    letter values ``letters`` (1..26), words given by their ``starts`` and ``lengths`` in it."""
    n = len(letters)
    powers = np.full(n, _WORD_BASE, dtype=np.uint64)
    powers[0] = 1
    powers = np.cumprod(powers, dtype=np.uint64)
    sums = np.concatenate((np.zeros(1, dtype=np.uint64),
                           np.cumsum(letters.astype(np.uint64) * powers, dtype=np.uint64)))
    inverse = np.full(n, _WORD_INVERSE, dtype=np.uint64)
    inverse[0] = 1
    inverse = np.cumprod(inverse, dtype=np.uint64)
    return (sums[starts + lengths] - sums[starts]) * inverse[starts]


@lru_cache(maxsize=1)
def default_table() -> LetterTable:
    """The shipped letter table (loaded once from ``data/letter_table.json.gz``)."""
    with gzip.open(DATA_DIR / "letter_table.json.gz", "rt", encoding="utf-8") as f:
        record = json.load(f)
    reference = json.loads((DATA_DIR / "reference_distribution.json").read_text())
    syllables = (DATA_DIR / "pinyin_syllables.txt").read_text().split()
    return LetterTable(record["table"], record["version"], reference["frequency"], syllables)


def to_letters(text: str) -> Letters:
    """Convert ``text`` with the shipped table; see ``LetterTable.convert``."""
    return default_table().convert(text)
