"""The receiver that turns newly matched page versions into capture requests."""

from __future__ import annotations

from django.conf import settings

from core.ingestion import work_indexed
from crawler import matching, scans, takedown
from crawler.evidence import registrations
from crawler.evidence.actions import captures_sent_together, do_request_capture
from crawler.evidence.models import Capture, CaptureKind
from crawler.models import CheckOutcome

DISPATCH_UID = "evidence.capture_matched_versions"
REMOVAL_DISPATCH_UID = "evidence.capture_removal"
REGISTRATION_DISPATCH_UID = "evidence.stamp_registration"
BATCH_UID = "evidence.captures_sent_together"


def capture_matched_versions(sender, page, version, matches, created, **kwargs) -> None:
    """Keep the version's stashed exchange for good and request one detection capture per
    match of ``matches`` (Match rows with work and holder) whose score is at least
    settings.CAPTURE_MIN_SCORE and that has none of this version yet; only the rows not in
    ``created`` (ids of rows first recorded now) can have one, so only they are read."""
    wanted = [m for m in matches if m.score >= settings.CAPTURE_MIN_SCORE]
    earlier = [m.pk for m in wanted if m.pk not in created]
    captured = set(Capture.objects.filter(match_id__in=earlier, version_id=version.id,
                                          kind=CaptureKind.DETECTION)
                   .values_list("match_id", flat=True)) if earlier else set()
    matches = [m for m in wanted if m.pk not in captured]
    if not matches:
        return
    scans.get_crawler().exchanges.keep(version.id)
    for match in matches:
        do_request_capture(match, version.id)


def capture_removal(sender, match, check, exchange, **kwargs) -> None:
    """A takedown check found ``match``'s page gone or changed: keep the check's own exchange
    for good and request a removal capture of it (proof of removal, with its own time)."""
    if check.outcome not in (CheckOutcome.REMOVED, CheckOutcome.CHANGED):
        return
    key = f"check-{check.pk}"
    stash = scans.get_crawler().exchanges
    stash.put(key, exchange)
    stash.keep(key)
    do_request_capture(match, match.version_id, check=check, exchange_key=key,
                       url=exchange.hops[0].url)


def connect() -> None:
    """Connect the receivers to ``crawler.matching.matches_recorded``,
    ``crawler.takedown.takedown_checked`` and ``core.ingestion.work_indexed``, and
    send the captures of a crawl task's batch of pages together
    (``crawler.matching.around_batches``; once each)."""
    work_indexed.connect(registrations.work_indexed, dispatch_uid=REGISTRATION_DISPATCH_UID)
    matching.matches_recorded.connect(capture_matched_versions, dispatch_uid=DISPATCH_UID)
    takedown.takedown_checked.connect(capture_removal, dispatch_uid=REMOVAL_DISPATCH_UID)
    matching.around_batches(BATCH_UID, captures_sent_together)
