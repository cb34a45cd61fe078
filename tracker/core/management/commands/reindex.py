"""``python manage.py reindex``: rebuild the Redis fingerprint index from MongoDB."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, no_translations

from tracker.core import services
from tracker.core.engine import clear_outdated_index


class Command(BaseCommand):
    help = ("Rebuild the Redis fingerprint index from the works stored in MongoDB (after a "
            "Redis loss or a fingerprint version change), queue works still waiting for "
            "ingestion, and report works whose text is lost and stored works without a row.")

    def add_arguments(self, parser):
        parser.add_argument("--prune", action="store_true",
                            help="remove stored works that have no row in the database")

    @no_translations  # command-line output in English, as its summary labels
    def handle(self, *args, prune: bool, **options):
        try:
            refused = clear_outdated_index()
        except ConnectionError as exc:  # IndexUnavailableError
            raise CommandError(f"storage unreachable: {exc}") from exc
        if refused:  # another fingerprint version or an older layout
            self.stdout.write(f"{refused}\ncleared the index; rebuilding it from MongoDB")
        try:
            report = services.reindex(prune=prune)
        except services.StorageUnavailable as exc:
            raise CommandError(f"storage unreachable: {exc}") from exc
        write = self.stdout.write
        write(f"fingerprint version: {report['version']}")
        write(f"works stored in MongoDB: {report['stored']}")
        write(f"re-indexed by the engine: {report['rebuilt']}")
        write(f"queued again for ingestion: {len(report['requeued'])}")
        write(f"lost (text missing, marked failed): {len(report['lost'])} "
              f"{report['lost'] or ''}".rstrip())
        write(f"stored without a database row: {len(report['orphans'])}"
              + (f", removed {report['pruned']}" if prune else
                 (" (run with --prune to remove)" if report["orphans"] else "")))
