"""Seed data of the dashboard load test (bench/dashboard_load.py): rights holders with users,
works indexed by the platform's own import, and matches with their page versions.

Works are real text: chapters of classical Chinese novels (``novels_dev.jsonl.gz`` in
``../shared/data``, through ``bench.corpus.load_chapters``), exact duplicates dropped and the
novels of the demo works (西游记, 红楼梦) left out, so that the demo site's pages match only the
demo works. They are imported per holder by ``core.bulk_import.import_path`` with
``now=True`` (the path of ``manage.py import_works --now``: ``do_register_work`` and then
ingestion into MongoDB and the Redis index in this process).

Matches are made as a crawl would leave them, but without matching 20,000 pages one by one:
each page is a reprint portal's page (a navigation line, a People's Daily paragraph, an excerpt
of one work's stored text, a footer), stored through ``lib.crawl.pagestore.PageStore.save`` (the
crawler's page store: a ``pages`` document and an immutable ``page_versions`` document). Its
Match row is built with the passage known by construction (page offsets of the excerpt, work
offsets it came from), containments as characters of the excerpt over the page's and the
work's length, score = their maximum (``fingerprint.engine``'s definition), first seen spread
over the past year, and rows are written with ``bulk_create`` in batches. A share of them is
then reviewed through ``crawler.review_actions.do_review_matches`` (audit trail included).
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

DEMO_NOVELS = ("西游记", "红楼梦")  # the demo works' novels: their chapters stay out
CHAPTER_CHARS = (800, 4000)  # length of a seeded work, characters
EXCERPT_CHARS = (200, 2000)  # length of the excerpt a seeded page copies, characters
DOMAINS = 300  # distinct reprint sites
SPAN_DAYS = 365  # first_seen spread over this many days before now
MATCH_BATCH = 2000  # rows per bulk_create
REVIEWED = {"confirmed": 0.08, "false_positive": 0.04}  # share of matches reviewed so
PASSWORD = "load-test-password"  # every seeded user's password (loopback-only throwaway stack)
STAFF_USERNAME = "load-staff"


@dataclass
class Seeded:
    """What ``seed`` made: ``holders`` (RightsHolder ids), ``users`` ({username: holder id or
    None for staff}), ``works``, ``matches`` (counts), ``seconds`` ({step: seconds})."""

    holders: list[int]
    users: dict[str, int | None]
    works: int
    matches: int
    seconds: dict[str, float]


def work_texts(data_dir: Path, count: int, seed: int) -> list[dict]:
    """``count`` distinct novel chapters as import records ``{"id", "title", "text"}``.

    Raises:
        bench.corpus.CorpusError: the data file is missing or holds too few chapters.
    """
    from bench.corpus import CorpusError, load_chapters

    rng = random.Random(seed)
    seen: set[str] = set()
    records = []
    chapters = [d for d in load_chapters(data_dir, CHAPTER_CHARS)
                if not any(name in d.group for name in DEMO_NOVELS)]
    rng.shuffle(chapters)
    for doc in chapters:
        digest = hashlib.sha256(doc.text.encode()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        records.append({"id": doc.id, "title": f"{doc.group} {doc.id}", "text": doc.text})
        if len(records) == count:
            return records
    raise CorpusError(f"only {len(records)} distinct chapters of {CHAPTER_CHARS} characters")


def host_paragraphs(data_dir: Path) -> list[str]:
    """People's Daily paragraphs (str) of 60 to 400 characters: the unrelated text around a
    seeded page's excerpt."""
    from bench.corpus import load_news

    return [p.strip() for doc in load_news(data_dir) for p in doc.text.split("\n")
            if 60 <= len(p.strip()) <= 400]


def seed_holders(count: int):
    """``count`` rights holders, one holder user each (password PASSWORD), and the staff user
    STAFF_USERNAME. Returns (holders, {username: holder id or None})."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from core.models import RightsHolder
    from core.roles import HOLDER_GROUP, STAFF_GROUP, ensure_groups

    ensure_groups()
    users = get_user_model().objects
    staff = users.create_user(STAFF_USERNAME, password=PASSWORD, is_staff=True)
    staff.groups.add(Group.objects.get(name=STAFF_GROUP))
    holders, logins = [], {STAFF_USERNAME: None}
    for k in range(count):
        holder = RightsHolder.objects.create(name=f"负载测试出版社 {k:02d} Load Press {k:02d}",
                                             email=f"rights{k:02d}@load-press.example")
        user = users.create_user(f"load-holder-{k:02d}", password=PASSWORD, is_staff=True)
        user.groups.add(Group.objects.get(name=HOLDER_GROUP))
        holder.users.add(user)
        holders.append(holder)
        logins[user.username] = holder.pk
    return holders, logins


def seed_works(holders, records: list[dict], tmp: Path) -> int:
    """Import ``records`` spread evenly over ``holders`` (one JSONL file per holder, through
    ``import_path(..., now=True)``), plus the demo works (demo/works) for the first holder.
    Returns the number of works indexed.

    Raises:
        RuntimeError: a work failed to import or to be indexed.
    """
    from django.conf import settings

    from core.bulk_import import import_path
    from core.models import Work, WorkStatus

    for k, holder in enumerate(holders):
        path = tmp / f"works-{k:02d}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                for r in records[k::len(holders)]), encoding="utf-8")
        summary = import_path(path, holder, now=True, progress=False, allow_duplicates=True)
        if summary.failed:
            raise RuntimeError(f"works of {holder} failed: {summary.failed[:3]}")
    summary = import_path(settings.DEMO_WORKS_DIR, holders[0], now=True, progress=False,
                          allow_duplicates=True)
    if summary.failed:
        raise RuntimeError(f"demo works failed: {summary.failed[:3]}")
    not_indexed = Work.objects.exclude(status=WorkStatus.INDEXED).count()
    if not_indexed:
        raise RuntimeError(f"{not_indexed} works are not indexed")
    return Work.objects.count()


def _page(rng: random.Random, work, text: str, hosts: list[str], domain: str, number: int):
    """One reprint page of ``work`` (its stored ``text``): (fields for PageStore.save, passage,
    excerpt length)."""
    length = rng.randint(min(EXCERPT_CHARS[0], len(text)), min(EXCERPT_CHARS[1], len(text)))
    start = rng.randint(0, len(text) - length)
    title = f"{work.title} 第{number}页 - {domain}"
    head = f"{domain} 首页 > 小说 > {work.title}\n{rng.choice(hosts)}\n"
    page_text = head + text[start:start + length] + f"\n{rng.choice(hosts)}\n版权所有 {domain}"
    passage = {"page_start": len(head), "page_end": len(head) + length,
               "work_start": start, "work_end": start + length}
    url = f"https://{domain}/book/{work.pk}/{number}.html"
    fields = dict(canonical_url=url, url=url, final_url=url, domain=domain, site_id=None,
                  scan_id=None, status=200, outcome="ok", reason="", headers={}, validators={},
                  body=page_text.encode(), text=page_text, title=title, published=None,
                  encoding="utf-8", extraction={"method": "trafilatura", "error": None}, links=[])
    return fields, passage, len(page_text)


def seed_matches(count: int, hosts: list[str], seed: int) -> int:
    """``count`` matches of the registered works, each with its page and page version stored
    in MongoDB. Works get matches in skewed numbers (weight 1/rank), domains likewise.
    Returns the number of Match rows made."""
    from django.utils import timezone

    from core.connections import get_mongo_db
    from core.ingestion import work_text
    from core.models import Work
    from crawler.models import Match
    from lib.crawl.pagestore import PageStore

    rng = random.Random(seed)
    works = list(Work.objects.order_by("pk"))
    texts = {w.pk: work_text(w) for w in works}
    weights = [1 / (rank + 1) ** 0.5 for rank in range(len(works))]
    rng.shuffle(weights)
    domains = [f"www.reprint{k:03d}.example.com" for k in range(DOMAINS)]
    domain_weights = [1 / (k + 1) for k in range(DOMAINS)]
    store = PageStore(get_mongo_db())
    store.ensure_indexes()
    now, batch, made, numbers = timezone.now(), [], 0, {}
    for work in rng.choices(works, weights, k=count):
        text = texts[work.pk]
        domain = rng.choices(domains, domain_weights)[0]
        numbers[work.pk] = numbers.get(work.pk, 0) + 1
        fields, passage, page_length = _page(rng, work, text, hosts, domain, numbers[work.pk])
        saved = store.save(**fields)
        store.mark_matched(saved.page_id, saved.version_id)
        copied = passage["page_end"] - passage["page_start"]
        cp, cw = round(copied / page_length, 4), round(copied / len(text), 4)
        first = now - timedelta(seconds=rng.uniform(0, SPAN_DAYS * 86400))
        batch.append(Match(
            work=work, page_id=saved.page_id, version_id=saved.version_id, url=fields["url"],
            domain=domain, title=fields["title"], score=max(cp, cw), containment_page=cp,
            containment_work=cw, passages=[passage], first_seen=first,
            last_seen=first + (now - first) * rng.random()))
        if len(batch) == MATCH_BATCH:
            made += len(Match.objects.bulk_create(batch))
            batch = []
    if batch:
        made += len(Match.objects.bulk_create(batch))
    return made


def review_some(seed: int) -> dict[str, int]:
    """Review shares REVIEWED of the matches as the staff user would (``do_review_matches``).
    Returns {decision: matches changed}."""
    from django.contrib.auth import get_user_model

    from crawler.models import Match
    from crawler.review_actions import do_review_matches

    staff = get_user_model().objects.get(username=STAFF_USERNAME)
    ids = list(Match.objects.values_list("pk", flat=True))
    random.Random(seed).shuffle(ids)
    done, offset = {}, 0
    for decision, share in REVIEWED.items():
        picked = ids[offset:offset + int(share * len(ids))]
        offset += len(picked)
        queryset = Match.objects.filter(pk__in=picked).select_related("work__holder")
        done[decision] = do_review_matches(queryset, decision, "load test seed", staff)[0]
    return done


def seed(data_dir: Path, works: int, matches: int, holders: int, rng_seed: int = 0) -> Seeded:
    """Seed holders with their users, ``works`` works (plus the demo works) and ``matches``
    matches, timing each step. Returns a Seeded."""
    from core.connections import get_mongo_db
    from core.engine import get_engine
    from crawler import rematch
    from lib.crawl.pagestore import PageStore

    seconds = {}
    started = time.monotonic()
    records = work_texts(data_dir, works, rng_seed)
    hosts = host_paragraphs(data_dir)
    seconds["read texts"] = time.monotonic() - started
    mark = time.monotonic()
    holder_rows, users = seed_holders(holders)
    with tempfile.TemporaryDirectory(prefix="load-works-") as tmp:
        n_works = seed_works(holder_rows, records, Path(tmp))
    # The search of stored pages that indexing schedules runs now, on the still empty library,
    # instead of in the worker during the load.
    rematch.run(rematch.take_pending(), get_engine(), PageStore(get_mongo_db()))
    seconds["works"] = time.monotonic() - mark
    mark = time.monotonic()
    n_matches = seed_matches(matches, hosts, rng_seed)
    seconds["matches"] = time.monotonic() - mark
    mark = time.monotonic()
    review_some(rng_seed)
    seconds["reviews"] = time.monotonic() - mark
    return Seeded([h.pk for h in holder_rows], users, n_works, n_matches,
                  {k: round(v, 1) for k, v in seconds.items()})
