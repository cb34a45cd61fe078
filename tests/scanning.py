"""A scan run as staff run one, ``manage.py scan --wait`` (the session's Celery worker crawls),
for the tests that scan a loopback site: ``from tests.scanning import scan``."""

import io
import json

from django.core.management import call_command


def scan(site, *options: str) -> dict:
    """Scan ``site`` (a TargetSite id or name) with ``manage.py scan --wait --timeout 120`` and
    ``options``; returns the command's JSON summary (scan, status, matches_new, matches_found,
    stage_seconds, ...). Raises CommandError as the command does."""
    out = io.StringIO()
    call_command("scan", str(site), "--wait", "--timeout", "120", *options, stdout=out,
                 stderr=io.StringIO())
    return json.loads(out.getvalue())
