"""``python manage.py import_works PATH --holder NAME``: bulk registration of works."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, no_translations

from core import notes
from core.bulk_import import import_path
from core.holder_actions import do_create_holder
from core.models import RightsHolder, Work, WorkKind, WorkStatus
from core.text_extraction import UploadError


class Command(BaseCommand):
    help = ("Register works from a folder, a .zip archive or a JSON Lines file (records "
            '{"id", "title", "text"}, "author" optional) for one rights holder. The id (or the '
            "file's path without suffix) is the work's reference: importing it again updates "
            "the work. Prints registered / updated / skipped / failed with reasons; exits 1 "
            "when any failed or could not be queued.")

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="folder, .zip, .jsonl or one work file")
        parser.add_argument("--holder", required=True, help="rights holder's name")
        parser.add_argument("--create-holder", action="store_true",
                            help="create the holder when it does not exist (default: refuse "
                                 "an unknown holder and list the known ones)")
        parser.add_argument("--kind", choices=WorkKind.values,
                            help="kind of every work (default: the record's, else detected)")
        parser.add_argument("--now", action="store_true",
                            help="fingerprint in this process instead of queueing Celery tasks")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument("--allow-duplicates", action="store_true",
                            help="register a text even when the holder already registered it "
                                 "as another work (at least 90%% the same); default: report it "
                                 "and skip it")

    @no_translations  # command-line output in English, as its summary labels
    def handle(self, *args, path: Path, holder: str, kind, now: bool, no_progress: bool,
               allow_duplicates: bool, create_holder: bool, **options):
        name = holder.strip()
        owner = RightsHolder.objects.filter(name=name).first() if name else None
        if owner is None and name and create_holder:
            owner, _created = do_create_holder(name)
            self.stdout.write(f"Created rights holder {owner.name!r} (id {owner.pk}).")
        elif owner is None:
            known = ", ".join(repr(known_name) for known_name in
                              RightsHolder.objects.order_by("name").values_list("name", flat=True))
            raise CommandError(f"no rights holder {name!r}; known holders: "
                               f"{known or '(none)'}; --create-holder creates it", returncode=2)
        try:
            summary = import_path(path, owner, kind=kind, now=now, progress=not no_progress,
                                  allow_duplicates=allow_duplicates)
        except (FileNotFoundError, UploadError) as exc:
            raise CommandError(str(exc)) from exc
        write = self.stdout.write
        write(f"registered: {len(summary.registered)}")
        write(f"updated:    {len(summary.updated)}")
        write(f"skipped:    {len(summary.skipped)}")
        for ref, reason in summary.skipped:
            write(f"  {ref}: {reason}")
        write(f"duplicates: {len(summary.duplicates)}"
              + (" (not registered; --allow-duplicates registers them)"
                 if summary.duplicates else ""))
        for ref, existing in summary.duplicates:
            write(f"  {ref}: same text as your work {existing}")
        write(f"failed:     {len(summary.failed)}")
        for ref, reason in summary.failed:
            write(f"  {ref}: {reason}")
        if summary.queued:
            write(f"{len(summary.queued)} works " + ("fingerprinted." if now else
                  "queued for fingerprinting (Celery queue 'ingest')."))
        # Registered but not handed to Celery (the broker went away): the import failed too.
        unqueued = Work.objects.filter(pk__in=summary.queued, status=WorkStatus.PENDING,
                                       error__startswith=notes.stored_prefix("not_queued")).count()
        if unqueued:
            write(f"not queued: {unqueued} (task queue unreachable; once Redis answers, "
                  "import the same file again or run `manage.py reindex` to queue them; "
                  "while Celery beat runs, its sweeper queues them once they have waited "
                  f"{settings.WORK_PENDING_REQUEUE_SECONDS} s)")
        if summary.failed or unqueued:
            raise CommandError(f"{len(summary.failed)} item(s) failed, {unqueued} not queued")
