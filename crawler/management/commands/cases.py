"""manage.py cases [--state STATE] [--since DATE] [--language LANG] --format jsonl|csv
(crawler.case_exports: one line per case, i.e. per work and registered domain; JSON Lines with
raw values, CSV as the dashboard writes it, in LANG, default settings.LANGUAGE_CODE)"""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import translation

from crawler import case_exports, cases
from crawler.management.commands.matches import parse_since
from crawler.models import Case, CaseState


class Command(BaseCommand):
    help = "Print the cases (one per work and site), one per line (JSON Lines) or as CSV."

    def add_arguments(self, parser):
        parser.add_argument("--state", choices=CaseState.values, help="cases in this state")
        parser.add_argument("--since", help="cases opened since DATE (YYYY-MM-DD or ISO datetime)")
        parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
        parser.add_argument("--language", choices=[code for code, _name in settings.LANGUAGES],
                            default=settings.LANGUAGE_CODE,
                            help="language of the CSV's headings and states")

    def handle(self, *args, **opts):
        found = cases.with_page_counts(Case.objects.select_related("work", "work__holder")
                                       .order_by("opened_at", "pk"))
        if opts["state"]:
            found = found.filter(state=opts["state"])
        if opts["since"]:
            found = found.filter(opened_at__gte=parse_since(opts["since"]))
        if opts["format"] == "jsonl":
            for line in case_exports.jsonl_lines(found.iterator()):
                self.stdout.write(line)
            return
        with translation.override(opts["language"]):
            for line in case_exports.csv_lines(found.iterator()):
                self.stdout.write(line, ending="")
