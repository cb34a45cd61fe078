"""manage.py scan SITE [--max-pages N] [--wait]"""

import json
import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from crawler import scans
from crawler.sites import SiteNotFound, find_site
from crawler.tasks import launch
from tracker.core.models import ScanRun, ScanStatus


class Command(BaseCommand):
    help = ("Scan a registered target site (id, name or start URL) through the Celery workers and "
            "print the scan run's summary as JSON; --wait blocks with a progress bar until it ends.")

    def add_arguments(self, parser):
        parser.add_argument("site", help="id, name or start URL of a registered target site")
        parser.add_argument("--max-pages", type=int, default=None)
        parser.add_argument("--wait", action="store_true", help="wait for the scan to finish")
        parser.add_argument("--timeout", type=float, default=3600.0,
                            help="with --wait: give up waiting after this many seconds")

    def handle(self, *args, **opts):
        try:
            site = find_site(opts["site"])
        except SiteNotFound as exc:
            raise CommandError(str(exc)) from exc
        try:
            scan = launch(site, max_pages=opts["max_pages"], trigger="command")
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if opts["wait"] and scan.status == ScanStatus.RUNNING:
            try:
                scan = wait_for(scan.pk, opts["timeout"], sys.stderr)
            except KeyboardInterrupt:
                raise CommandError(f"stopped waiting: scan #{scan.pk} goes on in the workers "
                                   "(cancel it in the admin under Scan runs)") from None
        self.stdout.write(json.dumps(scan.summary(), ensure_ascii=False, indent=1))
        if scan.status == ScanStatus.SKIPPED:
            raise CommandError(scan.note)


def wait_for(scan_id: int, timeout: float, stream) -> ScanRun:
    """Poll scan ``scan_id`` until it is no longer running, drawing a tqdm bar of URLs done out of
    URLs admitted on ``stream`` (a text file such as sys.stderr, not Django's OutputWrapper, which
    would end every redraw with a newline). Returns the ScanRun. Raises CommandError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    with tqdm(total=0, unit="url", file=stream, desc=f"scan #{scan_id}") as bar:
        while True:
            scan = ScanRun.objects.get(pk=scan_id)
            if scan.status != ScanStatus.RUNNING:
                bar.total = bar.n = scan.urls_seen
                bar.refresh()
                return scan
            done, admitted = scans.progress(scan_id)
            bar.total, bar.n = admitted, done
            bar.refresh()
            if time.monotonic() > deadline:
                raise CommandError(f"scan #{scan_id} still running after {timeout:.0f} s; "
                                   "it goes on in the workers")
            time.sleep(0.5)
