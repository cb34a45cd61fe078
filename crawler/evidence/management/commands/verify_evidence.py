"""``manage.py verify_evidence FILE.wacz``: check an evidence bundle from the file alone; exit
status 0 when everything holds, 1 otherwise (the first file that fails is named)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from crawler.evidence.trust import timestamp_check
from crawler.lib.evidence.verify import verify_bundle


class Command(BaseCommand):
    help = ("Verify a WACZ evidence bundle: every digest of datapackage.json, the WARC records' "
            "digests, metadata.json's digests and the RFC 3161 timestamp. Exit 0 when all hold.")

    def add_arguments(self, parser):
        parser.add_argument("bundle")
        parser.add_argument("--tsa-cert", action="append", default=[],
                            help="a PEM certificate the timestamp may chain to (besides "
                                 "TRACKER_TSA_TRUSTED_CERTS); may be repeated")

    def handle(self, *args, bundle: str, tsa_cert: list[str], **options):
        try:
            check = timestamp_check(tsa_cert)
        except OSError as exc:
            self.stderr.write(f"FAIL: cannot read a trusted certificate: {exc}")
            sys.exit(1)
        verdict = verify_bundle(bundle, check)
        for line in verdict.checked:
            self.stdout.write(f"ok: {line}")
        if not verdict.ok:
            self.stdout.write(f"FAIL: {verdict.failure.path}: {verdict.failure.reason}")
            sys.exit(1)
        if not verdict.timestamp:
            self.stdout.write("note: no trusted timestamp in this bundle")
        self.stdout.write(f"VALID: {bundle}")
