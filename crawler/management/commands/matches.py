"""manage.py matches [--scan ID] [--since DATE] --format jsonl|csv (crawler.exports: the columns
and chapters of the dashboard's exports, column keys as CSV headings)"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from crawler import exports, provenance
from crawler.models import Match
from crawler.scans import scan_matches


def parse_since(value: str):
    """An aware datetime from 'YYYY-MM-DD' or an ISO 8601 datetime (current time zone when
    naive). Raises CommandError (exit status 2, a usage error) for anything else, a
    well-formed but impossible date such as 9999-99-99 included."""
    try:
        when = parse_datetime(value)
        day = parse_date(value) if when is None else None
    except ValueError:
        when = day = None
    if when is None:
        if day is None:
            raise CommandError(f"--since {value!r} is not a date (YYYY-MM-DD) or ISO datetime",
                               returncode=2)
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
            matches = scan_matches(matches, opts["scan"])
        if opts["since"]:
            matches = matches.filter(last_seen__gte=parse_since(opts["since"]))
        rows = provenance.loaded(matches).iterator(chunk_size=settings.EXPORT_CHUNK_ROWS)
        if opts["format"] == "jsonl":
            lines = exports.jsonl_lines(rows)
        else:
            lines = (line.rstrip("\r\n") for line in exports.csv_lines(rows, translated=False))
        for line in lines:
            self.stdout.write(line)
