"""Regenerate the engine's data files: the letter table and the reference distribution.

Run by hand (needs pypinyin, opencc-python-reimplemented and the development corpus):

    .venv/bin/python -m fingerprint.build_data --data ../shared/data

Writes ``fingerprint/data/letter_table.json.gz`` and ``fingerprint/data/reference_distribution.json``
and prints the measurements recorded in them (polyphone disagreement, speed, traditional
agreement). Bump ``LETTER_TABLE_VERSION`` whenever the table's content changes.

Letter table. One class per code point (0 .. max code point of pypinyin's ``pinyin_dict``):
``a``-``z`` a Han character with that pinyin first letter, ``A``-``Z`` a Latin letter, ``|`` a
sentence boundary, ``.`` nothing. Each code point is NFKC-normalised on its own first (so
full-width letters, compatibility ideographs and the half-width ideographic full stop fold to
their ordinary forms), then classified.

Polyphones. pypinyin's phrase mode picks a reading from context; the table must pick one letter
per character. Each character gets the letter that phrase mode gives it most often in a training
sample of the corpus (novels and People's Daily), with traditional forms counted through an
OpenCC simplified-to-traditional conversion of the same sample, so that a traditional character
gets the letter of the simplified characters it stands for. Characters never seen take the
letter of the first reading in ``pinyin_dict`` (pypinyin lists the most common reading first).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import time
import unicodedata
from pathlib import Path
from typing import Any

import pypinyin
from opencc import OpenCC
from pypinyin import Style, lazy_pinyin, pinyin_dict

from fingerprint.letters import LetterTable

LETTER_TABLE_VERSION = "lt1"
DATA_DIR = Path(__file__).with_name("data")
BOUNDARY_CHARS = "。！？；…!?;.\n\r\u2028\u2029"


def _first_letter(reading: str) -> str:
    """First ASCII letter of a tone-marked pinyin reading ('zhǎng' -> 'z', 'ń' -> 'n')."""
    for ch in unicodedata.normalize("NFD", reading):
        if "a" <= ch <= "z":
            return ch
    raise ValueError(f"reading without a letter: {reading!r}")


def _read_jsonl(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def corpus_split(data: Path, train_chars: int, test_chars: int) -> tuple[list[str], list[str]]:
    """Deterministic training and held-out text samples from novels and People's Daily.

    Takes every 20th novel chapter (offset 0 for training, 10 for held-out) and alternate
    People's Daily paragraphs, half of each budget (characters) from each corpus.
    """
    train: list[str] = []
    test: list[str] = []
    # part -> [characters still wanted, its texts]
    budgets: dict[str, list[Any]] = {"train": [train_chars // 2, train],
                                     "test": [test_chars // 2, test]}
    for i, rec in enumerate(_read_jsonl(data / "novels_dev.jsonl.gz")):
        part = {0: "train", 10: "test"}.get(i % 20)
        if part and budgets[part][0] > 0:
            budgets[part][1].append(rec["text"])
            budgets[part][0] -= len(rec["text"])
    budgets["train"][0] += train_chars // 2
    budgets["test"][0] += test_chars // 2
    for i, rec in enumerate(_read_jsonl(data / "peoples_daily_199801_dev.jsonl.gz")):
        part = "train" if i % 2 == 0 else "test"
        if budgets[part][0] > 0:
            budgets[part][1].append(rec["text"])
            budgets[part][0] -= len(rec["text"])
    return train, test


def phrase_letters(text: str, han: dict[int, str]) -> list[tuple[str, str]]:
    """(character, letter) pairs given by pypinyin's phrase mode for the Han characters of text."""
    pairs: list[tuple[str, str]] = []
    run: list[str] = []
    for ch in text + "\0":
        if ord(ch) in han:
            run.append(ch)
            continue
        if run:
            s = "".join(run)
            letters = lazy_pinyin(s, style=Style.FIRST_LETTER, strict=False)
            if len(letters) == len(s):
                pairs.extend(zip(s, (x[0].lower() for x in letters), strict=True))
            run = []
    return pairs


def build_han_letters(train: list[str]) -> tuple[dict[int, str], dict]:
    """Letter per Han code point by majority of phrase-mode letters (simplified + traditional)."""
    readings = pinyin_dict.pinyin_dict
    first = {cp: _first_letter(r.split(",")[0]) for cp, r in readings.items()}
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    s2t = OpenCC("s2t")
    n_trad = 0
    for text in train:
        pairs = phrase_letters(text, readings)
        for ch, letter in pairs:
            counts[ch][letter] += 1
        if n_trad < sum(map(len, train)) // 4:
            simp = "".join(ch for ch, _ in pairs)
            trad = s2t.convert(simp)
            if len(trad) == len(simp):
                n_trad += len(trad)
                for t, (ch, letter) in zip(trad, pairs, strict=True):
                    if t != ch:
                        counts[t][letter] += 1
    han = dict(first)
    changed = 0
    for ch, c in counts.items():
        best = c.most_common(1)[0][0]
        if ord(ch) in han and han[ord(ch)] != best:
            changed += 1
        han[ord(ch)] = best
    meta = {
        "characters_in_pinyin_dict": len(first),
        "characters_seen_in_training": len(counts),
        "characters_whose_letter_differs_from_first_reading": changed,
        "traditional_training_characters": n_trad,
    }
    return han, meta


def classify(cp: int, han: dict[int, str]) -> str:
    """Class of one code point after NFKC: Han letter, Latin letter (upper case), '|' or '.'."""
    if cp in han:
        return han[cp]
    s = unicodedata.normalize("NFKC", chr(cp))
    for ch in s:
        if ord(ch) in han:
            return han[ord(ch)]
        base = unicodedata.normalize("NFD", ch)[:1].lower()
        if "a" <= base <= "z" and unicodedata.category(ch).startswith("L"):
            return base.upper()
        if ch in BOUNDARY_CHARS:
            return "|"
    return "."


def build_table(han: dict[int, str]) -> str:
    """Class string indexed by code point, covering 0 .. max Han code point + 1."""
    size = max(max(han) + 2, 0x10000)
    chars = []
    for cp in range(size):
        if 0xD800 <= cp <= 0xDFFF:
            chars.append(".")
        else:
            chars.append(classify(cp, han))
    chars[-1] = "."
    return "".join(chars)


def measure(table: str, test: list[str], readings) -> dict:
    """Disagreement of the table with phrase mode, speeds, and simplified/traditional agreement."""
    lt = LetterTable(table, LETTER_TABLE_VERSION)
    han_map = {cp: table[cp] for cp in readings if table[cp].islower()}
    total = diff = 0
    for text in test:
        for ch, letter in phrase_letters(text, readings):
            total += 1
            diff += han_map[ord(ch)] != letter
    joined = "\n".join(test)
    t0 = time.perf_counter()
    lt.convert(joined)
    t_table = time.perf_counter() - t0
    sample = joined[:200_000]
    t0 = time.perf_counter()
    lazy_pinyin(sample, style=Style.FIRST_LETTER)
    t_phrase = time.perf_counter() - t0
    s2t = OpenCC("s2t")
    trad_total = trad_diff = 0
    for text in test[:400]:
        trad = s2t.convert(text)
        a, b = lt.convert(text).letters, lt.convert(trad).letters
        if len(a) == len(b):
            trad_total += len(a)
            trad_diff += sum(x != y for x, y in zip(a, b, strict=True))
    return {
        "held_out_han_characters": total,
        "disagreement_with_phrase_mode": round(diff / total, 5),
        "table_chars_per_second": round(len(joined) / t_table),
        "phrase_mode_chars_per_second": round(len(sample) / t_phrase),
        "traditional_letters_compared": trad_total,
        "traditional_disagreement": round(trad_diff / max(trad_total, 1), 5),
    }


def reference_distribution(table: str, data: Path) -> dict:
    """Letter frequencies over all novels and People's Daily converted with the table."""
    lt = LetterTable(table, LETTER_TABLE_VERSION)
    counts: collections.Counter[str] = collections.Counter()
    n_chars = 0
    for name in ("novels_dev.jsonl.gz", "peoples_daily_199801_dev.jsonl.gz"):
        for rec in _read_jsonl(data / name):
            n_chars += len(rec["text"])
            counts.update(lt.convert(rec["text"]).letters)
    total = sum(counts.values())
    return {
        "letter_table_version": LETTER_TABLE_VERSION,
        "corpus": "novels_dev.jsonl.gz (220 classical novels, luoxuhai/chinese-novel) + "
        "peoples_daily_199801_dev.jsonl.gz (PKU 1998 People's Daily, January)",
        "method": "every record converted with the letter table; frequency = letter count / "
        "all letters",
        "characters": n_chars,
        "letters": total,
        "frequency": {ch: round(counts[ch] / total, 6) for ch in "abcdefghijklmnopqrstuvwxyz"},
    }


def main(argv: list[str] | None = None) -> None:
    """Build and write both data files; print the measurements."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--train-chars", type=int, default=2_000_000)
    ap.add_argument("--test-chars", type=int, default=300_000)
    args = ap.parse_args(argv)

    train, test = corpus_split(args.data, args.train_chars, args.test_chars)
    han, meta = build_han_letters(train)
    table = build_table(han)
    first = {cp: _first_letter(r.split(",")[0]) for cp, r in pinyin_dict.pinyin_dict.items()}
    first_table = build_table(first)
    meta["measured"] = measure(table, test, pinyin_dict.pinyin_dict)
    meta["measured_first_reading_table"] = measure(first_table, test, pinyin_dict.pinyin_dict)
    record = {
        "version": LETTER_TABLE_VERSION,
        "pypinyin_version": pypinyin.__version__,
        "classes": "a-z Han letter, A-Z Latin letter, '|' sentence boundary, '.' nothing",
        "training_characters": sum(map(len, train)),
        **meta,
        "table": table,
    }
    DATA_DIR.mkdir(exist_ok=True)
    raw = json.dumps(record, ensure_ascii=False).encode("utf-8")
    (DATA_DIR / "letter_table.json.gz").write_bytes(gzip.compress(raw, mtime=0))
    ref = reference_distribution(table, args.data)
    (DATA_DIR / "reference_distribution.json").write_text(json.dumps(ref, indent=1) + "\n")
    print(json.dumps({k: v for k, v in record.items() if k != "table"}, indent=1))
    print(json.dumps({k: v for k, v in ref.items()}, indent=1))


if __name__ == "__main__":
    main()
