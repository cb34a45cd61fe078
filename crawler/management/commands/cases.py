"""manage.py cases [--state STATE] [--since DATE] --format jsonl|csv (crawler.case_exports:
one line per case, i.e. per work and registered domain; CSV with the column keys as headings)"""

from django.core.management.base import BaseCommand

from crawler import case_exports, cases
from crawler.management.commands.matches import parse_since
from crawler.models import Case, CaseState


class Command(BaseCommand):
    help = "Print the cases (one per work and site), one per line (JSON Lines) or as CSV."

    def add_arguments(self, parser):
        parser.add_argument("--state", choices=CaseState.values, help="cases in this state")
        parser.add_argument("--since", help="cases opened since DATE (YYYY-MM-DD or ISO datetime)")
        parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")

    def handle(self, *args, **opts):
        found = cases.with_page_counts(Case.objects.select_related("work", "work__holder")
                                       .order_by("opened_at", "pk"))
        if opts["state"]:
            found = found.filter(state=opts["state"])
        if opts["since"]:
            found = found.filter(opened_at__gte=parse_since(opts["since"]))
        writer = case_exports.jsonl_lines if opts["format"] == "jsonl" else case_exports.csv_lines
        for line in writer(found.iterator()):
            self.stdout.write(line)
