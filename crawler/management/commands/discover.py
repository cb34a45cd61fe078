"""manage.py discover --search [--work ID] [--wait]"""

import json
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core import notes
from core.models import Work
from crawler.models import SearchRun, SearchRunStatus
from crawler.search_discovery import do_start_search_run, provider_states


class Command(BaseCommand):
    help = ("Look for copies beyond the target sites. --search: ask the configured web search "
            "providers (TRACKER_SEARCH_PROVIDERS) for each work's distinctive phrases and read "
            "every result page like a scan's; the last line printed is the run's summary as JSON "
            "(queries, results, pages_fetched, pages_matched, new_cases).")

    def add_arguments(self, parser):
        parser.add_argument("--search", action="store_true", help="search-engine discovery")
        parser.add_argument("--work", type=int, default=None, help="only this work (id)")
        parser.add_argument("--wait", action="store_true", help="wait for the run to finish")
        parser.add_argument("--timeout", type=float, default=settings.SCAN_WAIT_TIMEOUT_SECONDS,
                            help="with --wait: give up waiting after this many seconds")

    def handle(self, *args, **opts):
        if not opts["search"]:
            raise CommandError("say which discovery to run: --search")
        work = None
        if opts["work"] is not None:
            work = Work.objects.filter(pk=opts["work"]).first()
            if work is None:
                raise CommandError(f"no work with id {opts['work']}")
        try:
            states = provider_states()
        except ValueError as exc:
            raise CommandError(f"TRACKER_SEARCH_PROVIDERS: {exc}") from exc
        for state in states:
            if state.disabled:
                self.stderr.write(f"{state.provider.name}: {notes.in_english(state.disabled)}")
        run = do_start_search_run(work, trigger="command")
        if opts["wait"]:
            run = self._wait(run, opts["timeout"])
        self.stdout.write(json.dumps(run.summary(), ensure_ascii=False))
        if run.status == SearchRunStatus.FAILED:
            raise CommandError(notes.in_english(run.note))

    def _wait(self, run: SearchRun, timeout: float) -> SearchRun:
        """Poll the run until it is closed, a bar of works searched on stderr."""
        deadline = time.monotonic() + timeout
        with tqdm(total=0, unit="work", file=sys.stderr, desc=f"web search #{run.pk}") as bar:
            while True:
                run.refresh_from_db()
                bar.total, bar.n = run.works_total, run.works_done
                bar.refresh()
                if run.status != SearchRunStatus.RUNNING:
                    return run
                if time.monotonic() > deadline:
                    raise CommandError(f"web search #{run.pk} still running after {timeout:.0f} s;"
                                       " it goes on in the workers")
                time.sleep(0.5)
