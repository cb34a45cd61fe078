"""Tune the fingerprint engine's parameters on real text (run by hand, needs ../shared/data).

    .venv/bin/python bench/tune_engine.py                 # default EngineConfig, full table
    .venv/bin/python bench/tune_engine.py --sweep window  # one sweep (see SWEEPS)

Data: chapters of the novels in novels_dev.jsonl.gz (works: the first chapters of each chosen
novel; negatives: other, unindexed chapters of the same novels) and People's Daily paragraphs
grouped into ~1,500-character news documents and 150-500-character short texts.
Each positive query is an indexed document after one edit (EDITS); recall = share of queries
whose source work is among the matches. Precision = correct matches / all matches, where a match
to a work whose original text shares no real passage with the query's original text (see
shares_text) is wrong. Also prints candidates verified per query and speed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from fingerprint import EmptyTextError, Engine, EngineConfig  # noqa: E402
from fingerprint.index import MemoryIndex  # noqa: E402
from fingerprint.store import MemoryWorkStore  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SENT = re.compile(r"(?<=[。！？；!?])")


def read_jsonl(name):
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


class Editor:
    """The edits reprints make, seeded (random.Random)."""

    def __init__(self, seed: int, filler: list[str]):
        from opencc import OpenCC
        from pypinyin import lazy_pinyin, pinyin_dict

        self.rng = random.Random(seed)
        self.filler = filler
        self.s2t = OpenCC("s2t")
        by_sound = defaultdict(list)
        common = set("".join(filler))
        for cp in pinyin_dict.pinyin_dict:
            ch = chr(cp)
            if ch in common:
                by_sound[lazy_pinyin(ch)[0]].append(ch)
        self.sound = {ch: s for s, chars in by_sound.items() for ch in chars if len(chars) > 1}
        self.by_sound = by_sound
        self.common = sorted(common - set("，。！？；：、“”‘’（）《》 \n\u3000"))

    def _han_positions(self, text):
        return [i for i, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"]

    def substitute(self, text, rate):
        chars = list(text)
        pos = self._han_positions(text)
        for i in self.rng.sample(pos, int(len(pos) * rate)):
            chars[i] = self.rng.choice(self.common)
        return "".join(chars)

    def homophones(self, text, rate):
        chars = list(text)
        pos = [i for i in self._han_positions(text) if text[i] in self.sound]
        for i in self.rng.sample(pos, min(len(pos), int(len(self._han_positions(text)) * rate))):
            others = [c for c in self.by_sound[self.sound[text[i]]] if c != text[i]]
            chars[i] = self.rng.choice(others)
        return "".join(chars)

    def traditional(self, text):
        return self.s2t.convert(text)

    def paragraphs(self, text):
        paras = [p for p in text.split("\n") if p.strip()]
        if len(paras) < 4:  # group sentences into pseudo-paragraphs
            sents = [s for s in SENT.split(text) if s]
            size = max(1, len(sents) // 6)
            paras = ["".join(sents[i:i + size]) for i in range(0, len(sents), size)]
        return paras

    def reorder(self, text):
        paras = self.paragraphs(text)
        self.rng.shuffle(paras)
        return "\n".join(paras)

    def delete_sentences(self, text, rate):
        sents = [s for s in SENT.split(text) if s]
        drop = set(self.rng.sample(range(len(sents)), int(len(sents) * rate)))
        return "".join(s for i, s in enumerate(sents) if i not in drop)

    def noise(self, n_chars):
        out = ""
        while len(out) < n_chars:
            out += self.rng.choice(self.filler) + "\n"
        return out[:n_chars]

    def site(self, text):
        header = "首页 | 新闻 | 小说 | 排行榜 | 登录 注册\n" + self.noise(len(text) // 10)
        footer = "\n上一章 目录 下一章\n" + self.noise(len(text) // 10) + "\n© 2024 版权所有 京ICP备"
        paras = self.paragraphs(text)
        mid = len(paras) // 2
        ad = "【广告】" + self.noise(60)
        return header + "\n".join(paras[:mid] + [ad] + paras[mid:]) + footer

    def excerpt(self, text, n=300):
        start = self.rng.randrange(0, max(1, len(text) - n))
        return self.noise(600) + "\n" + text[start:start + n] + "\n" + self.noise(600)

    def combo(self, text):
        t = self.delete_sentences(self.reorder(text), 0.05)
        t = self.homophones(self.substitute(t, 0.01), 0.03)
        return self.site(self.traditional(t))


EDITS = {
    "exact": lambda e, t: t,
    "site": lambda e, t: e.site(t),
    "sub1": lambda e, t: e.substitute(t, 0.01),
    "sub3": lambda e, t: e.substitute(t, 0.03),
    "homo5": lambda e, t: e.homophones(t, 0.05),
    "trad": lambda e, t: e.traditional(t),
    "reorder": lambda e, t: e.reorder(t),
    "del10": lambda e, t: e.delete_sentences(t, 0.10),
    "excerpt": lambda e, t: e.excerpt(t),
    "combo": lambda e, t: e.combo(t),
    # harder than the benchmark's list, to separate parameter choices
    "excerpt+sub3": lambda e, t: e.excerpt(e.substitute(t, 0.03)),
    "excerpt+mix": lambda e, t: e.excerpt(e.homophones(e.substitute(e.traditional(t), 0.02),
                                                       0.05)),
}


def group(paras: list[str], min_chars: int, max_chars: int) -> list[str]:
    """Consecutive paragraphs joined into documents of min_chars..max_chars characters."""
    docs, cur = [], ""
    for p in paras:
        cur += p + "\n"
        if len(cur) >= min_chars:
            if len(cur) <= max_chars:
                docs.append(cur)
            cur = ""
    return docs


def _han(text: str) -> str:
    return "".join(ch for ch in text if "\u4e00" <= ch <= "\u9fff")


def shares_text(a: str, b: str, n: int = 12, min_shared: int = 8) -> bool:
    """Ground truth for precision: True when the original texts a and b really share a passage
    (at least min_shared common n-grams of Han characters, i.e. an identical run of about
    n + min_shared characters). The corpus has real reuse (stock passages in novels, the same
    speech in several People's Daily reports); a match there is not an engine error."""
    ha, hb = _han(a), _han(b)
    grams = {ha[i:i + n] for i in range(len(ha) - n + 1)}
    return sum(hb[i:i + n] in grams for i in range(len(hb) - n + 1)) >= min_shared


def load(n_novels: int, per_novel: int, n_news: int, n_short: int, seed: int = 7):
    """Works, negatives and filler text.

    Returns dict with "novel_works" [(id, text)], "novel_negatives" [text], "news_works",
    "news_negatives", "short_works", "short_negatives", "filler" [str].
    """
    rng = random.Random(seed)
    by_novel = defaultdict(list)
    for rec in read_jsonl("novels_dev.jsonl.gz"):
        if len(rec["text"]) >= 1500:
            by_novel[rec["novel"]].append(rec)
    novels = sorted(n for n, chs in by_novel.items() if len(chs) >= per_novel + 4)
    novels = rng.sample(novels, n_novels)
    works, neg_ids = [], []
    seen_texts = set()
    for name in novels:
        chs = by_novel[name]
        for rec in chs[:per_novel]:
            works.append((rec["id"], rec["text"][:8000]))
            seen_texts.add(rec["text"][:200])
        neg_ids += [(r["id"].rsplit("/", 1)[0], r["text"][:8000])
                    for r in chs[per_novel:per_novel + 2] if r["text"][:200] not in seen_texts]
    paras = [r["text"] for r in read_jsonl("peoples_daily_199801_dev.jsonl.gz")]
    n = len(paras)
    # disjoint slices: news works, news negatives, short works, short negatives, filler
    cut = [0, int(n * 0.4), int(n * 0.55), int(n * 0.8), int(n * 0.9), n]
    news, news_neg, shorts, short_neg = (group(paras[cut[i]:cut[i + 1]], *size) for i, size in
                                         enumerate([(1500, 10**9)] * 2 + [(150, 500)] * 2))
    filler = paras[cut[4]:]
    return {
        "novel_works": works,
        "novel_negatives": [t for _, t in neg_ids],
        "novel_negative_ids": neg_ids,
        "news_works": [(f"news-{i}", t) for i, t in enumerate(news[:n_news])],
        "news_negatives": news_neg[: n_news // 2],
        "short_works": [(f"short-{i}", t) for i, t in enumerate(shorts[:n_short])],
        "short_negatives": short_neg[: n_short // 2],
        "filler": filler,
    }


def evaluate(config: EngineConfig, data: dict, n_queries: int, edits=EDITS, seed: int = 11):
    """Index every work, run the queries; returns a result dict (recall per set and edit,
    precision, candidates per query, speeds)."""
    engine = Engine(MemoryIndex(), MemoryWorkStore(), config)
    all_works = data["novel_works"] + data["news_works"] + data["short_works"]
    t0 = time.perf_counter()
    for wid, text in all_works:
        engine.add_work(wid, text)
    t_index = time.perf_counter() - t0
    index_chars = sum(len(t) for _, t in all_works)
    editor = Editor(seed, data["filler"])
    rng = random.Random(seed)
    result = {"recall": {}, "key_hits": {}, "index_chars_per_s": index_chars / t_index,
              "windows": engine.index.stats()["windows"]}
    tp = fp = n_keys = 0
    false_by: Counter = Counter()
    n_q = cand = 0
    q_time = q_chars = 0.0
    texts = dict(all_works)
    for kind in ("novel", "news", "short"):
        works = data[f"{kind}_works"]
        sample = rng.sample(works, min(n_queries, len(works)))
        for edit, fn in edits.items():
            if kind == "short" and edit.startswith("excerpt"):
                continue
            found = 0
            hits = []
            for wid, text in sample:
                q = fn(editor, text)
                t = time.perf_counter()
                matches = engine.match(q)
                q_time += time.perf_counter() - t
                letters = engine.letters(q)
                n_keys += len(engine.query_keys(letters))
                cands = dict(engine.candidates(letters)) if len(letters) >= 40 else {}
                cand += len(cands)
                hits.append(cands.get(wid, 0))
                q_chars += len(q)
                n_q += 1
                ids = [m.work_id for m in matches]
                found += wid in ids
                tp += wid in ids
                # a match to another work is wrong unless that work shares the source text
                wrong = sum(1 for i in ids if i != wid and not shares_text(text, texts[i]))
                fp += wrong
                false_by[f"{kind}:{edit}"] += wrong
            result["recall"][f"{kind}:{edit}"] = found / len(sample)
            hits.sort()
            result["key_hits"][f"{kind}:{edit}"] = (hits[len(hits) // 10], hits[len(hits) // 2])
        for text in data[f"{kind}_negatives"][:n_queries]:
            t = time.perf_counter()
            matches = engine.match(text)
            q_time += time.perf_counter() - t
            q_chars += len(text)
            n_q += 1
            wrong = sum(1 for m in matches if not shares_text(text, texts[m.work_id]))
            fp += wrong
            false_by[f"{kind}:negative"] += wrong
    result["precision"] = tp / max(tp + fp, 1)
    result["false_matches"] = fp
    result["false_by"] = {k: v for k, v in false_by.items() if v}
    result["candidates_per_query"] = cand / n_q
    result["keys_per_kchar"] = n_keys / q_chars * 1000
    result["query_docs_per_s"] = n_q / q_time
    result["query_chars_per_s"] = q_chars / q_time
    return result


def speed(config: EngineConfig, data: dict) -> dict:
    """Letters/s (conversion) and windows/s (starts + keys) on the novel works."""
    engine = Engine(MemoryIndex(), MemoryWorkStore(), config)
    texts = [t for _, t in data["novel_works"]]
    chars = sum(map(len, texts))
    t = time.perf_counter()
    letters = [engine.letters(x) for x in texts]
    t_letters = time.perf_counter() - t
    n_letters = sum(map(len, letters))
    t = time.perf_counter()
    n_windows = sum(len(engine.postings(x)) for x in letters)
    t_windows = time.perf_counter() - t
    return {"chars_per_s": chars / t_letters, "letters_per_s": n_letters / t_letters,
            "windows_per_s": n_windows / t_windows,
            "fingerprint_chars_per_s": chars / (t_letters + t_windows)}


SWEEPS = {
    "budget": [{"probe": p, "window_letters": w, "overlap": o, "query_sparsity": q}
               for p, w, o, q in ((1, 48, 0.5, 2), (0, 32, 0.5, 1), (0, 32, 0.5, 2),
                                  (0, 32, 0.75, 2), (0, 48, 0.5, 1), (0, 48, 0.75, 2),
                                  (0, 48, 0.75, 1), (0, 64, 0.75, 2), (0, 40, 0.5, 1))],
    "window": [{"window_letters": w} for w in (24, 28, 32, 40, 48, 64)],
    "levels": [{"levels": v} for v in (2, 3, 4)],
    "letters": [{"letters": s} for s in ("bcdfghjklmnqrstwxyz", "bcdfghjlmqstwxyz",
                                          "bcdghjlsxyz", "abcdefghjklmnopqrstwxyz")],
    "probe": [{"probe": p} for p in (0, 1, 2)],
    "anchor_bits": [{"anchor_bits": b} for b in (0, 8, 16)],
    "overlap": [{"overlap": o} for o in (0.25, 0.5, 0.75)],
    "mode": [{"window_mode": m} for m in ("fixed", "content")],
    "query_sparsity": [{"query_sparsity": q} for q in (1, 2, 3, 4)],
    "short_radius": [{"short_radius": r} for r in (2, 3, 5)],
    "seed_k": [{"seed_k": k} for k in (6, 8, 10)],
    "min_matched": [{"min_matched_letters": k} for k in (32, 48, 64, 96)],
}


def precision_grid(data: dict, n_queries: int, seed: int = 5) -> None:
    """Matches as a function of the verification thresholds (min_passage_letters,
    min_matched_letters), verification alone: every negative (other chapters of the indexed
    novels, unindexed news and short texts) is aligned against every work of its novel, or 40
    random works of its kind, bypassing the candidate search; hard positives (300-character
    excerpts with 2% substitutions, 5% homophones, traditional script) against their candidates.
    Alignment uses the lowest thresholds, then each threshold pair is applied as Engine.verify
    does. Prints false matches (no real
    shared passage, see shares_text) and positives lost."""
    from fingerprint.verify import align

    engine = Engine(MemoryIndex(), MemoryWorkStore(), EngineConfig())
    c = engine.config
    all_works = data["novel_works"] + data["news_works"] + data["short_works"]
    for wid, text in all_works:
        engine.add_work(wid, text)
    texts = dict(all_works)
    editor = Editor(seed, data["filler"])
    rng = random.Random(seed)
    rows = []  # (false match?, the positive's source?, passage matched letters, work letters)

    # Works are added once here and never replaced: one cache label serves every lookup.
    tuning_revision = ("tuning", "as added")

    def collect(page: str, source: str, truth: str | None, against: list[str]) -> None:
        letters = engine.letters(page)
        for wid in against:
            ((_, prep),) = engine._prepared([(wid, tuning_revision)])
            aln = align(letters.codes, prep.seeds, c.max_gap, c.max_shift, 1, c.max_seed_repeats)
            if aln.matched:
                rows.append((wid != truth and not shares_text(source, texts[wid]), wid == truth,
                             aln.matched, prep.seeds.n_letters))

    by_novel = defaultdict(list)
    for wid, _ in data["novel_works"]:
        by_novel[wid.rsplit("/", 1)[0]].append(wid)
    negatives = data["novel_negatives"] + data["news_negatives"] + data["short_negatives"]
    for novel, text in data["novel_negative_ids"]:
        collect(text, text, None, by_novel[novel])
    for kind in ("news", "short"):
        ids = [w for w, _ in data[f"{kind}_works"]]
        for text in data[f"{kind}_negatives"]:
            collect(text, text, None, rng.sample(ids, 40))
    for wid, text in rng.sample(data["novel_works"] + data["news_works"], n_queries):
        page = EDITS["excerpt+mix"](editor, text)
        collect(page, text, wid, [w for w, _ in engine.candidates(engine.letters(page))])
    print(f"{len(negatives)} negatives, {n_queries} hard excerpt positives, {len(rows)} alignments "
          "with a passage")
    false_sizes = sorted(sum(r[2]) for r in rows if r[0])
    true_sizes = sorted(sum(r[2]) for r in rows if r[1])
    print(f"  matched letters, false pairs: max {false_sizes[-1] if false_sizes else 0}, top 5 "
          f"{false_sizes[-5:]}; true excerpt pairs: min {true_sizes[:5]}")
    for min_passage in (16, 24, 32):
        for min_matched in (24, 32, 48, 64):
            false = found = 0
            for is_false, is_source, matched, n_work in rows:
                total = sum(x for x in matched if x >= min_passage)
                ok = total >= max(c.min_text_letters, min(min_matched, int(0.8 * n_work)))
                false += ok and is_false
                found += ok and is_source
            print(f"  min_passage {min_passage:3d}  min_matched {min_matched:3d}:  false matches "
                  f"{false:3d}  excerpt positives lost {n_queries - found:3d}")


def length_grid(data: dict, n_queries: int, config: EngineConfig, seed: int = 9) -> None:
    """Recall and false matches of short works by length: for each length L (characters),
    n_queries People's Daily texts cut to L characters are indexed next to the usual works;
    queries are each copied inside a portal page (site edit), with 3% substitutions, and with
    5% homophones + traditional script; negatives are other texts of length L in a portal
    page. Works the engine refuses (too few letters) count as not found. Prints one line per
    L."""
    half = len(data["filler"]) // 2
    texts = group(data["filler"][half:], 320, 10**9)  # disjoint from the editor's page noise
    rng = random.Random(seed)
    rng.shuffle(texts)
    editor = Editor(seed, data["filler"][:half])
    for length in (30, 50, 80, 120, 150, 200, 300):
        engine = Engine(MemoryIndex(), MemoryWorkStore(), config)
        for wid, text in data["novel_works"] + data["news_works"]:
            engine.add_work(wid, text)
        works = [(f"L{length}-{i}", t[:length]) for i, t in enumerate(texts[:n_queries])]
        negs = [t[:length] for t in texts[n_queries:2 * n_queries]]
        for wid, text in works:
            with contextlib.suppress(EmptyTextError):
                engine.add_work(wid, text)
        recall = {}
        for edit in ("site", "sub3", "homo5+trad"):
            found = 0
            for wid, text in works:
                q = {"site": lambda t: editor.site(t),
                     "sub3": lambda t: editor.site(editor.substitute(t, 0.03)),
                     "homo5+trad": lambda t: editor.site(editor.traditional(
                         editor.homophones(t, 0.05)))}[edit](text)
                found += wid in {m.work_id for m in engine.match(q)}
            recall[edit] = found / len(works)
        false = sum(len(engine.match(editor.site(t))) for t in negs)
        letters = sum(len(engine.letters(t)) for _, t in works) / len(works)
        print(f"  {length:4d} chars ({letters:5.1f} letters): recall " +
              "  ".join(f"{k} {v:.2f}" for k, v in recall.items()) +
              f"   false matches {false} / {len(negs)} negatives", flush=True)


def summary(name: str, r: dict) -> str:
    rec = r["recall"]
    worst = min(rec, key=rec.get)
    mean = sum(rec.values()) / len(rec)
    low = sum(v[0] for v in r["key_hits"].values()) / len(r["key_hits"])
    return (f"{name:40s} mean recall {mean:.3f}  worst {worst}={rec[worst]:.2f}  mean p10 hits "
            f"{low:.1f}  precision "
            f"{r['precision']:.4f} (false {r['false_matches']})  cand/q "
            f"{r['candidates_per_query']:.1f}  keys/1000 chars {r['keys_per_kchar']:.0f}  query {r['query_docs_per_s']:.0f} docs/s")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Tune the fingerprint engine")
    ap.add_argument("--sweep", choices=sorted(SWEEPS))
    ap.add_argument("--novels", type=int, default=20)
    ap.add_argument("--per-novel", type=int, default=15)
    ap.add_argument("--news", type=int, default=150)
    ap.add_argument("--short", type=int, default=150)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--set", action="append", default=[], help="override: name=value")
    ap.add_argument("--precision", action="store_true", help="threshold grid (precision_grid)")
    ap.add_argument("--lengths", action="store_true", help="short works by length (length_grid)")
    args = ap.parse_args(argv)
    data = load(args.novels, args.per_novel, args.news, args.short)
    base = EngineConfig()
    for item in args.set:
        k, v = item.split("=", 1)
        base = replace(base, **{k: type(getattr(base, k))(v)})
    print(f"works: {len(data['novel_works'])} chapters, {len(data['news_works'])} news, "
          f"{len(data['short_works'])} short; negatives: {len(data['novel_negatives'])} "
          f"same-novel chapters, {len(data['news_negatives'])} news, "
          f"{len(data['short_negatives'])} short", flush=True)
    if args.precision:
        precision_grid(data, args.queries)
        return
    if args.lengths:
        length_grid(data, args.queries, base)
        return
    if args.sweep:
        for override in SWEEPS[args.sweep]:
            r = evaluate(replace(base, **override), data, args.queries)
            print(summary(str(override), r), flush=True)
        return
    r = evaluate(base, data, args.queries)
    for k, v in r["recall"].items():
        print(f"  recall {k:20s} {v:.3f}   key hits of the source work: 10th percentile "
              f"{r['key_hits'][k][0]}, median {r['key_hits'][k][1]}")
    print(summary("default", r))
    print("  false matches by query set:", r["false_by"])
    print(json.dumps({k: round(v) for k, v in speed(base, data).items()}))
    print(f"  index {r['index_chars_per_s']:.0f} chars/s, {r['windows']} windows")


if __name__ == "__main__":
    main()
