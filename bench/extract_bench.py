"""Extraction benchmark: CPU time per page, body-text recall and match results of the ways to
get a page's text, on the real news pages of ``news_html_dev.tar.gz`` (``--data``), the demo
site's pages and the crawler's test pages.

    .venv/bin/python bench/extract_bench.py [--rounds 5] [--data ../shared/data]

Ways compared (all in this one process, interleaved round by round; time is this process's CPU
time, so that other processes on a shared machine distort it little; medians over the rounds):

- ``extract_document``: lib.text.extract_document as it is now (``with_author=False``, as
  the crawler calls it);
- ``trafilatura``: trafilatura ``bare_extraction`` in recall mode, text only (no metadata);
- ``trafilatura_precision``: the same in its default (precision) mode;
- ``html2txt``: trafilatura's whole visible text;
- ``resiliparse_main``: resiliparse (lexbor) ``extract_plain_text(main_content=True)``;
- ``resiliparse_all``: the same without the main-content heuristics (whole visible text);
- ``selectolax``: selectolax (lexbor) body text without script, style, noscript, template.

Recall: the share of the CJK letters of a reference text found in a way's text (letter
6-grams, both normalised by lib.text). Reference: the union of trafilatura's most inclusive
mode (favor_recall, fast=False) and resiliparse's main content, so no way is judged by its own
output alone. Match results: the fingerprint engine in memory (MemoryIndex, MemoryWorkStore)
with the demo works registered, plus each news page's reference text as a work of its own:
expected: the (page, work) pairs that the pages' reference texts match (the demo reprints and
the private draft of their demo work, each news page and its demo-site copy of its own
reference); ``other``: pairs a way's text matches beyond those.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
CJK = re.compile(r"[\u4e00-\u9fff]")
K = 6


def load_pages(data: Path) -> dict[str, str]:
    """Page name -> decoded HTML: news_html_dev, demo/site, tests/crawler/fixtures."""
    from lib.text import decode_bytes

    pages = {}
    with tarfile.open(data / "news_html_dev.tar.gz") as tar:
        for m in tar.getmembers():
            if m.name.endswith(".html"):
                pages[m.name] = tar.extractfile(m).read().decode("utf-8")
    for folder in (ROOT / "demo" / "site", ROOT / "tests" / "crawler" / "fixtures"):
        for path in sorted(folder.rglob("*.html")):
            pages[str(path.relative_to(ROOT))] = decode_bytes(path.read_bytes(), None).text
    return pages


def letters(text: str | None) -> str:
    """The CJK letters of ``text`` after lib.text's normalisation (as the engine sees them)."""
    from lib.text.normalize import normalize

    return "".join(CJK.findall(normalize(text or "")))


def covered(ref: str, got: str) -> int:
    """Letters of ``ref`` covered by a K-gram also found in ``got``."""
    grams = {got[i:i + K] for i in range(len(got) - K + 1)}
    hit = bytearray(len(ref))
    for i in range(len(ref) - K + 1):
        if ref[i:i + K] in grams:
            hit[i:i + K] = b"\1" * K
    return sum(hit)


def union_reference(*texts: str) -> str:
    """The first text followed by those paragraphs of the others that it mostly lacks."""
    out, seen = [texts[0] or ""], letters(texts[0])
    for text in texts[1:]:
        for para in (text or "").split("\n"):
            got = letters(para)
            if got and covered(got, seen) < len(got) // 2:
                out.append(para)
                seen += got
    return "\n".join(out)


def ways() -> dict:
    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text
    from selectolax.lexbor import LexborHTMLParser

    from lib.text import extract_document

    def selectolax_text(d: str) -> str:
        tree = LexborHTMLParser(d)
        tree.strip_tags(["script", "style", "noscript", "template"])
        return tree.body.text(separator="\n") if tree.body else ""

    url = "https://example.com/news/1.html"
    return {
        "extract_document": lambda d: extract_document(d, "html", url, with_author=False).text,
        "trafilatura": lambda d: trafilatura.bare_extraction(
            d, url=url, favor_recall=True, with_metadata=False, include_tables=True, fast=True).text,
        "trafilatura_precision": lambda d: trafilatura.bare_extraction(
            d, url=url, with_metadata=False, include_tables=True, fast=True).text,
        "html2txt": trafilatura.html2txt,
        "resiliparse_main": lambda d: extract_plain_text(d, main_content=True, list_bullets=False,
                                                         alt_texts=False),
        "resiliparse_all": lambda d: extract_plain_text(d, list_bullets=False, alt_texts=False),
        "selectolax": selectolax_text,
    }


def demo_works() -> dict[str, str]:
    works = ROOT / "demo" / "works"
    texts = {"XYJ": (works / "xiyouji-01-03.txt").read_text(encoding="utf-8"),
             "HLM": (works / "hongloumeng-01-02.txt").read_bytes().decode("gb18030")}
    for line in (works / "renmin-ribao-199801.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts[record["id"]] = record["text"]
    return texts


def match_results(refs: dict[str, str], texts: dict[str, str]) -> tuple[int, int, int]:
    """(expected pairs found, expected pairs, other pairs) of one way's ``texts``; ``refs``:
    page name -> reference text. Expected: the (page, work) pairs that the page's reference
    text matches."""
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    engine = Engine(MemoryIndex(), MemoryWorkStore())
    for work_id, text in demo_works().items():
        engine.add_work(work_id, text)
    for name, ref in refs.items():
        if name.startswith("news_html/") and len(letters(ref)) >= 200:
            engine.add_work("page:" + name, ref)

    def pairs(found: dict[str, str]) -> set[tuple[str, str]]:
        return {(name, m.work_id) for name, text in found.items() if text
                for m in engine.match(text[:engine.config.max_text_chars])}

    expected, found = pairs(refs), pairs(texts)
    return len(found & expected), len(expected), len(found - expected)


def main(argv=None) -> int:
    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of news_html_dev.tar.gz")
    args = parser.parse_args(argv)
    pages = load_pages(args.data)
    ref_texts = {n: union_reference(
        trafilatura.bare_extraction(d, favor_recall=True, include_tables=True, fast=False).text,
        extract_plain_text(d, main_content=True)) for n, d in pages.items()}
    refs = {n: letters(t) for n, t in ref_texts.items()}
    methods = ways()
    times: dict[str, list[float]] = {w: [] for w in methods}
    texts: dict[str, dict[str, str]] = {}
    for _ in range(args.rounds):
        for name, way in methods.items():
            started = time.process_time()
            texts[name] = {n: way(d) or "" for n, d in pages.items()}
            times[name].append((time.process_time() - started) / len(pages) * 1000)
    total = sum(map(len, refs.values()))
    news = [n for n in pages if n.startswith("news_html/")]
    print(f"{len(pages)} pages ({len(news)} of news_html_dev, the rest demo/site and "
          f"tests/crawler/fixtures), {args.rounds} interleaved rounds\n")
    print("| way | CPU ms/page (median) | recall (all letters) | recall (worst page) "
          "| characters | expected matches found | other matches |")
    print("|---|---|---|---|---|---|---|")
    for name in methods:
        got = {n: letters(t) for n, t in texts[name].items()}
        per_page = [covered(refs[n], got[n]) / len(refs[n]) for n in pages if len(refs[n]) >= 200]
        hit, want, extra = match_results(ref_texts, texts[name])
        print(f"| {name} | {statistics.median(times[name]):.2f} | "
              f"{sum(covered(refs[n], got[n]) for n in pages) / total:.4f} | {min(per_page):.3f} "
              f"| {sum(map(len, texts[name].values()))} | {hit}/{want} | {extra} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
