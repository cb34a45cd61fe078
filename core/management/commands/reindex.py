"""``python manage.py reindex``: rebuild the Redis fingerprint index from MongoDB."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, no_translations

from core import errors, reindexing
from core.engine import clear_outdated_index
from core.index_check import compare_with_rebuild

#: Engine ids listed per kind of difference in the --check summary (the counts are complete).
CHECK_LISTED = 20


class Command(BaseCommand):
    help = ("Rebuild the Redis fingerprint index from the works stored in MongoDB (after a "
            "Redis loss or a fingerprint version change), queue works still waiting for "
            "ingestion, and report works whose text is lost and stored works without a row. "
            "With --check, change nothing: compare the index with a rebuild and exit 1 when "
            "they differ.")

    def add_arguments(self, parser):
        parser.add_argument("--prune", action="store_true",
                            help="remove stored works that have no row in the database")
        parser.add_argument("--check", action="store_true",
                            help="only compare the Redis index with a rebuild from MongoDB "
                                 "(missing and extra works, posting differences); exit "
                                 "status 1 when they differ")

    @no_translations  # command-line output in English, as its summary labels
    def handle(self, *args, prune: bool, check: bool = False, **options):
        if check:
            return self.check()
        try:
            refused = clear_outdated_index()
        except ConnectionError as exc:  # IndexUnavailableError
            raise CommandError(f"storage unreachable: {exc}") from exc
        if refused:  # another fingerprint version or an older layout
            self.stdout.write(f"{refused}\ncleared the index; rebuilding it from MongoDB")
        try:
            report = reindexing.reindex(prune=prune)
        except errors.StorageUnavailable as exc:
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

    def check(self) -> None:
        """Print the comparison of the live index with a rebuild; CommandError (exit 1) when
        they differ or storage is unreachable."""
        try:
            diff = compare_with_rebuild()
        except errors.StorageUnavailable as exc:
            raise CommandError(f"storage unreachable: {exc}") from exc
        write = self.stdout.write

        def listed(ids) -> str:
            more = f" and {len(ids) - CHECK_LISTED} more" if len(ids) > CHECK_LISTED else ""
            return f" {', '.join(ids[:CHECK_LISTED])}{more}" if ids else ""

        write(f"works in the Redis index: {diff.indexed}; in a rebuild from MongoDB: "
              f"{diff.rebuilt}")
        write(f"postings in the Redis index: {diff.windows[0]}; in the rebuild: "
              f"{diff.windows[1]}")
        write(f"missing from the index: {len(diff.missing)}{listed(diff.missing)}")
        write(f"in the index but not in MongoDB: {len(diff.extra)}{listed(diff.extra)}")
        differing = sorted(diff.postings)
        write(f"works whose postings differ: {len(differing)}"
              + "".join(f"\n  {wid}: {missing} missing, {extra} extra" for wid, (missing, extra)
                        in ((w, diff.postings[w]) for w in differing[:CHECK_LISTED])))
        if not diff.equal:
            raise CommandError("the index differs from a rebuild from MongoDB; run "
                               "`manage.py reindex` to rebuild it", returncode=1)
        write("the index equals a rebuild from MongoDB")
