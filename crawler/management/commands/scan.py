"""manage.py scan SITE [--max-pages N] [--wait]"""

import json
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core import notes
from crawler import scans
from crawler.models import ScanStatus
from crawler.scan_actions import do_start_scan
from crawler.sites import SiteNotFound, find_site


class Command(BaseCommand):
    help = ("Scan a registered target site (id, name or start URL) through the Celery workers and "
            "print the scan run's summary as JSON; --wait blocks with a progress bar until it ends.")

    def add_arguments(self, parser):
        parser.add_argument("site", help="id, name or start URL of a registered target site")
        parser.add_argument("--max-pages", type=int, default=None)
        parser.add_argument("--wait", action="store_true", help="wait for the scan to finish")
        parser.add_argument("--timeout", type=float, default=settings.SCAN_WAIT_TIMEOUT_SECONDS,
                            help="with --wait: give up waiting after this many seconds")

    def handle(self, *args, **opts):
        try:
            site = find_site(opts["site"])
        except SiteNotFound as exc:
            raise CommandError(str(exc)) from exc
        try:
            scan = do_start_scan(site, max_pages=opts["max_pages"], trigger="command")
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if opts["wait"] and scan.status == ScanStatus.RUNNING:
            try:
                scan = scans.wait_for(scan.pk, opts["timeout"], sys.stderr)
            except TimeoutError as exc:
                raise CommandError(str(exc)) from exc
            except KeyboardInterrupt:
                raise CommandError(f"stopped waiting: scan #{scan.pk} goes on in the workers "
                                   "(cancel it in the admin under Scan runs)") from None
        self.stdout.write(json.dumps(scan.summary(), ensure_ascii=False, indent=1))
        if scan.status == ScanStatus.SKIPPED:
            raise CommandError(notes.in_english(scan.note))

