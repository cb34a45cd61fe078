"""Search discovery on a simulated web: recall, precision of proposed sites, queries per copy.

Builds a simulated web (``bench.simweb``) whose copying sites copy works of a corpus (the
shared data's novels and news, ``bench.corpus``; ``--demo`` takes the repository's demo works
instead), serves it on loopback with its SearXNG-format search service, and runs search
discovery the platform's way for each phrase strategy: the work's query phrases
(``lib.crawl.search.phrases.choose``, or the naive ``first_sentences``) asked through the
``searxng`` provider, each result page fetched and matched with the engine (in memory), a site
proposed when one of its pages copies a work. Prints one JSON line per strategy and query
budget: copies planted and found (recall, and found of planted by kind of copy), sites
proposed and of those really copying (precision), queries spent and queries per copy found.

    .venv/bin/python -m bench.search_discovery --works 30 --sites 200 --queries 1,2,3,5
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import requests

from bench.simweb import SimulatedWeb, plan_web
from fingerprint import Engine
from fingerprint.index import MemoryIndex
from fingerprint.store import MemoryWorkStore
from lib.crawl.search import phrases
from lib.crawl.search.providers import Provider
from lib.text import decode_bytes, extract_document


def corpus(works: int, demo: bool, seed: int, data_dir=None) -> tuple[dict[str, str], list[str]]:
    """({work id: text}, filler texts) from the shared data (half novels, half news) or the
    repository's demo works (their chapters and articles as works, the rest as fillers)."""
    if demo:
        return demo_corpus()
    from bench.corpus import DATA_DIR, build_news, build_novels

    folder = data_dir or DATA_DIR
    novels = build_novels(works - works // 2, 0, works, seed=seed, data_dir=folder)
    news = build_news(works // 2, 0, works, seed=seed, data_dir=folder)
    texts = {d.id: d.text for d in novels.works + news.works}
    return texts, [d.text for d in novels.hosts + news.hosts]


def demo_corpus() -> tuple[dict[str, str], list[str]]:
    """The demo works as a small corpus: the People's Daily articles and the 西游记 chapters
    are the works; the 红楼梦 chapters (unregistered) are the fillers."""
    root = Path(__file__).resolve().parents[1] / "demo" / "works"
    works = {}
    for line in (root / "renmin-ribao-199801.jsonl").read_text().splitlines():
        record = json.loads(line)
        works[record["id"]] = record["text"]
    text = (root / "xiyouji-01-03.txt").read_text()
    for n, chapter in enumerate(re.split(r"\n(?=第[一二三]回)", text)[1:]):
        works[f"xiyouji-{n + 1}"] = chapter
    fillers = (root / "hongloumeng-01-02.txt").read_bytes().decode("gb18030")
    return works, [fillers[i:i + 3000] for i in range(0, len(fillers), 3000)]


def run(web: SimulatedWeb, works: dict[str, str], engine: Engine, strategy: str,
        per_work: int, session: requests.Session) -> dict:
    """Search discovery over ``web`` with ``per_work`` queries a work chosen by ``strategy``
    ('distinctive'; 'spread_only': its filters and spread without the rarity ranking; or
    'first_sentences'). Returns the figures (module docstring)."""
    rarity = phrases.Rarity.from_texts(works.values())
    provider = Provider("searxng", web.search_url)
    copies = web.copies()
    seen: set[str] = set()
    queries = 0
    found_sites: set[str] = set()
    proposed: set[str] = set()
    for text in works.values():
        if strategy == "distinctive":
            chosen = phrases.choose(text, per_work, rarity)
        elif strategy == "spread_only":  # the same filters and spread, every clause equal
            chosen = phrases.choose(text, per_work, phrases.Rarity(Counter(), 0))
        else:
            chosen = phrases.first_sentences(text, per_work)
        for phrase in chosen:
            queries += 1
            for result in provider.search(phrase.text, 10, session):
                site = "{0.scheme}://{0.netloc}".format(urlsplit(result.url))
                if result.url in seen:
                    continue
                seen.add(result.url)
                if _copies_a_work(result.url, engine, session):
                    proposed.add(site)
                    if site in copies:
                        found_sites.add(site)
    planted = len(copies)
    kinds = {site.base: site.kind for site in web.sites if site.work}
    by_kind = {kind: f"{sum(kinds[b] == kind for b in found_sites)}/"
                     f"{sum(k == kind for k in kinds.values())}" for kind in sorted(set(kinds.values()))}
    return {"strategy": strategy, "queries_per_work": per_work, "works": len(works),
            "copies_planted": planted, "copies_found": len(found_sites),
            "recall": round(len(found_sites) / planted, 3) if planted else None,
            "sites_proposed": len(proposed),
            "precision": round(len(found_sites) / len(proposed), 3) if proposed else None,
            "queries": queries, "pages_fetched": len(seen),
            "queries_per_copy_found": round(queries / len(found_sites), 2) if found_sites else None,
            "found_by_kind": by_kind}


def _copies_a_work(url: str, engine: Engine, session: requests.Session) -> bool:
    answer = session.get(url, timeout=10)
    decoded = decode_bytes(answer.content, answer.headers.get("content-type"))
    extracted = extract_document(decoded.text, "html", url, with_author=False)
    return bool(extracted.ok and engine.match(extracted.text))


def main(argv: list[str] | None = None) -> int:
    """Run the bench; prints one JSON line per strategy and query budget. Returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--works", type=int, default=30)
    parser.add_argument("--sites", type=int, default=200)
    parser.add_argument("--queries", default="1,2,3,5", help="queries per work, comma-separated")
    parser.add_argument("--demo", action="store_true", help="the demo works, not the shared data")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=None, help="the shared data folder")
    args = parser.parse_args(argv)
    works, fillers = corpus(args.works, args.demo, args.seed, args.data)
    n = len(works)
    each = min(n, args.sites // 5)  # copies of each kind; at least a fifth of the sites unrelated
    plan = plan_web(works, fillers, args.sites, verbatim=each, edited=each, paginated=each,
                    excerpt=each, seed=args.seed)
    engine = Engine(MemoryIndex(), MemoryWorkStore())
    engine.add_works(works.items())
    started = time.perf_counter()
    with SimulatedWeb(plan) as web, requests.Session() as session:
        for per_work in (int(q) for q in args.queries.split(",")):
            for strategy in ("first_sentences", "spread_only", "distinctive"):
                figures = run(web, works, engine, strategy, per_work, session)
                figures["sites"] = args.sites
                figures["seconds"] = round(time.perf_counter() - started, 1)
                print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
