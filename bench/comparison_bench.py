"""Wall time of the evidence view's character comparison (dashboard.comparison.compare) on the
demo's Big5 reprint of 西遊記 第二回 and on made-up passages: the demo work's text repeated to
N characters, reprinted in traditional script with one character in 100 or in 20 changed,
and an unrelated text of the same length (the limit, not the alignment, answers).

    .venv/bin/python -m bench.comparison_bench [--sizes 10000,50000,200000]
"""

from __future__ import annotations

import argparse
import os
import random
import time


def timed(compare, page: str, work: str) -> tuple[float, object]:
    start = time.perf_counter()
    result = compare(page, work)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,200000")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.base")
    import django

    django.setup()
    import opencc

    from dashboard.comparison import compare
    from tests.dashboard.conftest import big5_demo_match

    page, work, match = big5_demo_match()
    p = match.passages[0]
    compare("預熱", "预热")  # loads OpenCC's and pypinyin's tables once
    seconds, result = timed(compare, page[p.page_start:p.page_end], work[p.work_start:p.work_end])
    print(f"| demo Big5 reprint, {p.page_end - p.page_start} characters | {seconds:.3f} s | "
          f"{result.similarity:.3f} (score {match.score:.3f}) | {result.counts()} |")
    s2t, rng = opencc.OpenCC("s2t"), random.Random(1)
    for size in (int(s) for s in args.sizes.split(",")):
        text = (work * (size // len(work) + 1))[:size]
        for every in (100, 20):
            copy = list(s2t.convert(text))
            for i in range(0, size, every):
                copy[i + rng.randrange(every) if i + every <= size else i] = "〇"
            seconds, result = timed(compare, "".join(copy), text)
            similarity = "not compared" if result.similarity is None else f"{result.similarity:.3f}"
            print(f"| {size} characters, 1 in {every} changed | {seconds:.3f} s | {similarity} | "
                  f"changed {result.counts().get('changed', 0)} |")
        other = "".join(rng.choice(text) for _ in range(size))
        seconds, result = timed(compare, other, text)
        similarity = "not compared" if result.similarity is None else f"{result.similarity:.3f}"
        print(f"| {size} characters, unrelated | {seconds:.3f} s | {similarity} | |")


if __name__ == "__main__":
    main()
