"""manage.py demo_site [--port P] [--host 127.0.0.1] [--directory DIR]"""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crawler.demo import DEFAULT_PORT, SITE_DIR, serve


class Command(BaseCommand):
    help = (f"Serve the bundled demo site ({SITE_DIR}) on loopback until interrupted, "
            "for `make run` and for trying the crawler: add it with add_site, then scan it.")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=DEFAULT_PORT)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--directory", type=Path, default=SITE_DIR,
                            help="the folder to serve (demo/platform_site for the demo platform)")

    def handle(self, *args, **opts):
        try:
            server = serve(opts["port"], opts["host"], opts["directory"])
        except OSError as exc:
            raise CommandError(f"cannot serve on {opts['host']}:{opts['port']}: {exc}") from exc
        self.stdout.write(f"Demo site on {server.url}/ (Ctrl-C to stop)")
        try:
            while server.thread.is_alive():
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
