"""manage.py add_site NAME START_URL [START_URL ...] [--allow-domain D ...] [--delay SECONDS]
[--browser]"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from crawler.sites import register_site


class Command(BaseCommand):
    help = ("Register a target site and print its id. Allowed domains default to the start URLs' "
            "hosts; the site gets a daily scan schedule (django-celery-beat).")

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("start_urls", nargs="+", metavar="START_URL",
                            help="pages, sitemaps or RSS/Atom feeds where scans start")
        parser.add_argument("--allow-domain", action="append", default=[], dest="domains",
                            metavar="D", help="host the scan may visit (repeatable)")
        parser.add_argument("--delay", type=float, default=None, metavar="SECONDS",
                            help="politeness delay between fetches from one host")
        parser.add_argument("--max-pages", type=int, default=None)
        parser.add_argument("--max-depth", type=int, default=None)
        parser.add_argument("--path-pattern", action="append", default=[], dest="patterns",
                            metavar="REGEX", help="only visit URLs whose path matches (repeatable)")
        parser.add_argument("--browser", action="store_true", dest="needs_browser",
                            help="render its pages in headless Chromium (text delivered by JavaScript)")
        parser.add_argument("--update", action="store_true", help="update the site if the name exists")

    def handle(self, *args, **opts):
        if opts["delay"] is not None and opts["delay"] < 0:
            raise CommandError("--delay must be 0 or more seconds")
        extra = {k: opts[k] for k in ("max_pages", "max_depth") if opts[k] is not None}
        if opts["needs_browser"]:
            extra["needs_browser"] = True
        if opts["patterns"]:
            extra["path_patterns"] = opts["patterns"]
        try:
            site, _ = register_site(opts["name"], opts["start_urls"], allowed_domains=opts["domains"],
                                    delay_seconds=opts["delay"], update=opts["update"], **extra)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(str(site.pk))
