"""manage.py matches [--scan ID] [--since DATE] --format jsonl|csv"""

import csv
import json

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from crawler.models import Match

COLUMNS = ["url", "domain", "title", "work_id", "work_reference", "work_title", "holder", "section",
           "score", "containment_page", "containment_work", "passages", "first_seen", "last_seen",
           "still_matching", "review_status", "page_id", "version_id"]


def match_record(m: Match) -> dict:
    """One match as a JSON-ready dict with COLUMNS keys (passages as a list of offset dicts,
    times in ISO 8601)."""
    return {"url": m.url, "domain": m.domain, "title": m.title, "work_id": m.work_id,
            "work_reference": m.work.reference, "work_title": m.work.title,
            "holder": m.work.holder.name, "section": m.section, "score": round(m.score, 4),
            "containment_page": round(m.containment_page, 4),
            "containment_work": round(m.containment_work, 4), "passages": m.passages,
            "first_seen": m.first_seen.isoformat(), "last_seen": m.last_seen.isoformat(),
            "still_matching": m.still_matching, "review_status": m.review_status,
            "page_id": m.page_id, "version_id": m.version_id}


def parse_since(value: str):
    """An aware datetime from 'YYYY-MM-DD' or an ISO 8601 datetime (current time zone when
    naive). Raises CommandError for anything else."""
    when = parse_datetime(value)
    if when is None:
        day = parse_date(value)
        if day is None:
            raise CommandError(f"--since {value!r} is not a date (YYYY-MM-DD) or ISO datetime")
        when = timezone.datetime(day.year, day.month, day.day)
    return timezone.make_aware(when) if timezone.is_naive(when) else when


class Command(BaseCommand):
    help = "Print recorded matches, one per line (JSON Lines) or as CSV with a header."

    def add_arguments(self, parser):
        parser.add_argument("--scan", type=int, help="matches found or seen again in this scan run")
        parser.add_argument("--since", help="matches seen since DATE (YYYY-MM-DD or ISO datetime)")
        parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")

    def handle(self, *args, **opts):
        matches = Match.objects.select_related("work", "work__holder").order_by("first_seen", "pk")
        if opts["scan"] is not None:
            matches = matches.filter(Q(first_scan_id=opts["scan"]) | Q(last_scan_id=opts["scan"]))
        if opts["since"]:
            matches = matches.filter(last_seen__gte=parse_since(opts["since"]))
        if opts["format"] == "jsonl":
            for m in matches.iterator():
                self.stdout.write(json.dumps(match_record(m), ensure_ascii=False))
            return
        writer = csv.DictWriter(self.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for m in matches.iterator():
            row = match_record(m)
            row["passages"] = json.dumps(row["passages"])
            writer.writerow(row)
