"""``manage.py verify_evidence FILE.wacz``: check an evidence bundle from the file alone. The
last line is the verdict: ``VALID: FILE`` (exit 0), ``FAIL: PATH: why`` (exit 1, the first
file that fails) or ``UNVERIFIED: FILE: why`` (exit 3: the digests hold, but no timestamp
chains to a trusted root)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from crawler.evidence.verdicts import EXIT_STATUS, verify_file
from lib.evidence.verify import FAIL, UNVERIFIED


class Command(BaseCommand):
    help = ("Verify a WACZ evidence bundle: the ZIP's names, every digest of datapackage.json, "
            "the WARC records' digests, metadata.json's digests and the RFC 3161 timestamp. "
            "Exit 0 VALID, 1 FAIL, 3 UNVERIFIED (no timestamp chaining to a trusted root).")

    def add_arguments(self, parser):
        parser.add_argument("bundle")
        parser.add_argument("--tsa-cert", action="append", default=[],
                            help="a PEM certificate the timestamp may chain to (besides "
                                 "TRACKER_TSA_TRUSTED_CERTS); may be repeated")
        parser.add_argument("--signer-cert", action="append", default=[],
                            help="a PEM certificate of an operator whose signature (signedData) "
                                 "you trust, besides this platform's own; may be repeated")

    def handle(self, *args, bundle: str, tsa_cert: list[str], signer_cert: list[str], **options):
        try:
            verdict = verify_file(bundle, extra_certs=tsa_cert, extra_signers=signer_cert)
        except OSError as exc:
            self.stderr.write(f"FAIL: cannot read a trusted certificate: {exc}")
            sys.exit(EXIT_STATUS[FAIL])
        for line in verdict.checked:
            self.stdout.write(f"ok: {line}")
        if verdict.status == FAIL:
            self.stdout.write(f"FAIL: {verdict.failure.path}: {verdict.failure.reason}")
        elif verdict.status == UNVERIFIED:
            self.stdout.write(f"UNVERIFIED: {bundle}: {verdict.unverified}")
        else:
            self.stdout.write(f"VALID: {bundle}")
        if EXIT_STATUS[verdict.status]:
            sys.exit(EXIT_STATUS[verdict.status])
