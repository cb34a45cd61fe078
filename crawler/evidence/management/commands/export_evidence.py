"""``manage.py export_evidence MATCH_ID -o FILE.wacz``: write a match's evidence bundle."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crawler.evidence.models import Capture


class Command(BaseCommand):
    help = ("Write the evidence bundle (WACZ) of a match: its newest finished detection capture, "
            "or the capture named by --capture.")

    def add_arguments(self, parser):
        parser.add_argument("match_id", type=int)
        parser.add_argument("-o", "--output", required=True, help="the .wacz file to write")
        parser.add_argument("--capture", type=int, help="a capture id of that match")

    def handle(self, *args, match_id: int, output: str, capture: int | None, **options):
        record = Capture.objects.bundle_of(match_id, capture)
        if record is None:
            states = list(Capture.objects.filter(match_id=match_id).values_list("state", flat=True))
            raise CommandError(f"match {match_id} has no finished capture"
                               + (f" (captures: {', '.join(states)})" if states else ""))
        data = record.bundle.read()
        record.bundle.close()
        Path(output).write_bytes(data)
        self.stdout.write(f"wrote {output}: capture {record.pk} ({record.kind}), {len(data)} bytes, "
                          f"SHA-256 {record.bundle_sha256}")
