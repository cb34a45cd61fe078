"""manage.py scan_archive [PATH_OR_URL ...] [--crawl ID --domain D ...] [--wet-paths FILE] [--wait]"""

import gzip
import json
import os
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from crawler import archives
from lib.crawl.archive.sources import SourceError, is_url


class Command(BaseCommand):
    help = ("Scan WARC or WET files (paths or HTTP(S) URLs, plain or gzip) for copies of the "
            "registered works through the Celery workers (queue 'archive'), or the captures of "
            "domains in a Common Crawl crawl (--crawl with --domain), or the WET files of a path "
            "list (--wet-paths); the last line printed is a JSON summary.")

    def add_arguments(self, parser):
        parser.add_argument("sources", nargs="*", help="WARC or WET files: paths or URLs")
        parser.add_argument("--crawl", help="Common Crawl crawl id, e.g. CC-MAIN-2024-10")
        parser.add_argument("--domain", action="append", default=[],
                            help="with --crawl: a domain or URL prefix whose captures to scan "
                                 "(repeatable)")
        parser.add_argument("--wet-paths", help="a file (or .gz) listing WET paths, one a line, "
                                                "relative to the data server or absolute URLs")
        parser.add_argument("--wait", action="store_true", help="wait until every file is done")
        parser.add_argument("--timeout", type=float, default=settings.ARCHIVE_WAIT_TIMEOUT_SECONDS,
                            help="with --wait: give up waiting after this many seconds")

    def handle(self, *args, **opts):
        missing = [s for s in opts["sources"] if not is_url(s) and not os.path.isfile(s)]
        if missing:
            raise CommandError(f"no such file: {', '.join(missing)}")
        parts = [archives.Part(s) for s in opts["sources"]]
        try:
            if opts["crawl"] or opts["domain"]:
                if not (opts["crawl"] and opts["domain"]):
                    raise CommandError("--crawl and --domain go together")
                parts += archives.common_crawl_parts(opts["crawl"], opts["domain"])
            if opts["wet_paths"]:
                parts += [archives.Part(archives.data_url(p)) for p in _lines(opts["wet_paths"])]
            if not parts:
                if opts["crawl"]:
                    self.stdout.write(json.dumps({"records": 0, "pages_matched": 0, "matches": 0,
                                                  "files": 0, "status": "finished", "failed": []}))
                    return
                raise CommandError("nothing to scan: name files, --crawl with --domain, or "
                                   "--wet-paths")
            rows = archives.do_start_archive_scans(parts)
        except (ValueError, SourceError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        batch = rows[0].batch
        if opts["wait"]:
            self._wait(batch, opts["timeout"])
        self.stdout.write(json.dumps(archives.batch_summary(batch), ensure_ascii=False))

    def _wait(self, batch: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        try:
            while (summary := archives.batch_summary(batch))["status"] == "running":
                if time.monotonic() > deadline:
                    raise CommandError(f"still running after {timeout:.0f} s: batch {batch} goes "
                                       "on in the workers (see Archive scans in the admin)")
                sys.stderr.write(f"\r{summary['records']} records, {summary['matches']} matches")
                time.sleep(1.0)
        except KeyboardInterrupt:
            raise CommandError(f"stopped waiting: batch {batch} goes on in the workers") from None
        sys.stderr.write("\n")


def _lines(path: str) -> list[str]:
    """The non-empty lines of the local file ``path`` (gzip when it ends in .gz)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]
