"""``python manage.py demo``: demo accounts, then the main job (settings.DEMO_STEPS), then a
summary. Run by `make run`; safe to run again (it continues where the last run stopped)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, no_translations
from django.utils.module_loading import import_string

from core import reindexing
from core.demo import ensure_demo_accounts


class Command(BaseCommand):
    help = ("Create the demo accounts (once), rebuild the Redis index if it lost works, run "
            "the demo's main job (settings.DEMO_STEPS: "
            "ingestion of the demo works, then the crawler's scan when installed) and print a "
            "summary. Needs a running Celery worker.")

    @no_translations  # command-line output in English, as its summary labels
    def handle(self, *args, **options):
        figures = ensure_demo_accounts(self.stdout)
        gaps = reindexing.index_gaps()
        if gaps:  # e.g. Redis lost its data since the last run: rebuild from MongoDB
            self.stdout.write(f"{len(gaps)} indexed works are missing from the Redis index: "
                              "rebuilding it from MongoDB (manage.py reindex)")
            report = reindexing.reindex()
            figures["index rebuilt (works)"] = report["stored"]
        for path in settings.DEMO_STEPS:
            self.stdout.write(f"== {path}")
            figures.update(import_string(path)(self.stdout))
        self.stdout.write("== summary")
        for key, value in figures.items():
            self.stdout.write(f"  {key}: {value}")
