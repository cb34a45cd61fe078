"""Extraction benchmark: time per page and body-text recall of the ways to get a page's text,
on the real news pages of ``../shared/data/news_html_dev.tar.gz`` and the demo site's pages.

    .venv/bin/python bench/extract_bench.py [--rounds 5]

Ways compared (all in this one process, interleaved round by round; time is this process's CPU
time, so that other processes on a shared machine distort it little; medians over the rounds
and the ratio to ``full_metadata``):

- ``full_metadata``: trafilatura ``bare_extraction`` with ``with_metadata=True`` (what
  tracker.text did before: site name, categories, tags, license and author heuristics too);
- ``extract_document``: tracker.text.extract_document as it is (text without trafilatura's
  metadata pass, then title, author and date by ``_metadata``);
- ``crawler``: the same with ``with_author=False``, as the crawler calls it;
- ``no_recall``: trafilatura in its default (precision) mode, no metadata;
- ``html2txt``: the whole visible text (trafilatura.html2txt).

Recall: the share of the CJK letters of a reference text found in a way's text (letter
6-grams, both normalised by tracker.text; the reference is trafilatura's slowest, most
inclusive mode: favor_recall, fast=False).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "news_html_dev.tar.gz"
CJK = re.compile(r"[\u4e00-\u9fff]")
K = 6


def load_pages() -> list[str]:
    with tarfile.open(DATA) as tar:
        pages = [tar.extractfile(m).read().decode("utf-8") for m in tar.getmembers()
                 if m.name.endswith(".html")]
    return pages + [p.read_text(encoding="utf-8", errors="replace")
                    for p in sorted((ROOT / "demo" / "site").rglob("*.html"))]


def letters(text: str | None) -> str:
    """The CJK letters of ``text`` after tracker.text's normalisation (as the engine sees them)."""
    from tracker.text.normalize import normalize

    return "".join(CJK.findall(normalize(text or "")))


def recall(ref: str, got: str) -> int:
    """Letters of ``ref`` covered by a K-gram also found in ``got``."""
    grams = {got[i:i + K] for i in range(len(got) - K + 1)}
    hit = bytearray(len(ref))
    for i in range(len(ref) - K + 1):
        if ref[i:i + K] in grams:
            hit[i:i + K] = b"\1" * K
    return sum(hit)


def main(argv=None) -> int:
    import trafilatura
    from trafilatura.settings import set_date_params

    from tracker.text import extract_document

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    pages, url = load_pages(), "https://example.com/news/1.html"
    dates = set_date_params(extensive=False)
    ways = {
        "full_metadata": lambda d: trafilatura.bare_extraction(
            d, url=url, favor_recall=True, with_metadata=True, include_tables=True, fast=True,
            date_extraction_params=dates).text,
        "extract_document": lambda d: extract_document(d, "html", url).text,
        "crawler": lambda d: extract_document(d, "html", url, with_author=False).text,
        "no_recall": lambda d: trafilatura.bare_extraction(d, url=url, include_tables=True,
                                                           fast=True).text,
        "html2txt": trafilatura.html2txt,
    }
    refs = [letters(trafilatura.bare_extraction(d, favor_recall=True, include_tables=True,
                                                fast=False).text) for d in pages]
    times: dict[str, list[float]] = {w: [] for w in ways}
    found: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, way in ways.items():
            started = time.process_time()
            texts = [way(d) for d in pages]
            times[name].append((time.process_time() - started) / len(pages) * 1000)
            found[name] = sum(recall(r, letters(t)) for r, t in zip(refs, texts, strict=True))
    base = statistics.median(times["full_metadata"])
    total = sum(map(len, refs))
    print(f"{len(pages)} pages ({DATA.name} + demo/site), {args.rounds} interleaved rounds\n")
    print("| way | CPU ms/page (median) | ratio to full_metadata | recall |")
    print("|---|---|---|---|")
    for name in ways:
        ms = statistics.median(times[name])
        print(f"| {name} | {ms:.1f} | {ms / base:.2f} | {found[name] / total:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
