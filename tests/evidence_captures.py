"""Finished evidence captures for the dashboard tests: a real WACZ of a one-hop exchange of a
match's URL (its HTML, text and evidence files), stored through the capture actions as a
capture task stores it."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from core import notes
from crawler.evidence import actions
from crawler.evidence.models import Capture
from lib.crawl.exchange import Exchange, Hop
from lib.evidence.bundle import build_wacz
from lib.evidence.warc import exchange_warc
from tests.bundles import evidence_files


def page_wacz(match, files: dict | None = None, stamp=None, html: str | None = None):
    """A real WACZ (a Bundle) of a one-hop exchange of ``match``'s URL answering ``html``
    (default: a page holding the match's title), with its text, ``files`` ({path: bytes}) and
    the evidence/metadata.json naming their SHA-256, as a capture writes it; ``stamp``:
    build_wacz's."""
    body = (html or f"<html><body><p>{match.title}</p></body></html>").encode()
    hop = Hop(started=datetime.now(UTC), method="GET", url=match.url, target="/",
              request_headers=[["Host", match.domain], ["User-Agent", "CopyrightTrackerBot"]],
              status=200, reason="OK",
              response_headers=[["Content-Type", "text/html; charset=utf-8"]],
              body=body, body_complete=True, peer_ip="203.0.113.7", peer_port=80)
    warc = exchange_warc(Exchange([hop]), software="test")
    files = evidence_files(warc, {"evidence/text.txt": match.title.encode(), **(files or {})})
    return build_wacz(warc, files, main_url=match.url, captured_at=hop.started,
                      title=match.title, description="test", software="test", stamp=stamp)


def finished_capture(match, files: dict | None = None, version_id: str = "", stamper=None,
                     html: str | None = None) -> Capture:
    """A finished capture of ``match`` (of its matched version, or ``version_id``) with the
    WACZ of ``page_wacz``; with ``stamper`` (a crawler.evidence.trust.Stamper) the bundle is
    time-stamped and the capture records the stamp."""
    bundle = page_wacz(match, files, stamper, html)
    stamped = stamper.result if stamper is not None else None
    timestamp = ({"status": stamped.status, "token": stamped.token,
                  "authority": stamped.authority, "time": stamped.time}
                 if stamped is not None and stamped.status == "stamped" else None)
    # one transaction: the capture task its request queues on commit finds it done (a worker
    # left running by earlier tests would otherwise race to capture the page itself)
    with transaction.atomic():
        capture = actions.do_request_capture(match, version_id or match.version_id)
        capture = actions.do_start_capture(capture.pk)
        return actions.do_complete_capture(capture, bundle.data, bundle_sha256=bundle.sha256,
                                           datapackage_sha256=bundle.datapackage_sha256,
                                           outcome=notes.coded("captured", "captured"),
                                           timestamp=timestamp)
