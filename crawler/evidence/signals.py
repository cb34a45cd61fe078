"""The receiver that turns newly matched page versions into capture requests."""

from __future__ import annotations

from django.conf import settings

from crawler import matching
from crawler.models import Match

DISPATCH_UID = "evidence.capture_matched_versions"


def capture_matched_versions(sender, page, version, match_ids, **kwargs) -> None:
    """Keep the version's stashed exchange for good and request one detection capture per
    match of ``match_ids`` whose score is at least settings.CAPTURE_MIN_SCORE."""
    from crawler import scans
    from crawler.evidence.actions import do_request_capture

    matches = list(Match.objects.filter(pk__in=match_ids, score__gte=settings.CAPTURE_MIN_SCORE)
                   .exclude(captures__version_id=version.id, captures__kind="detection"))
    if not matches:
        return
    scans.get_crawler().exchanges.keep(version.id)
    for match in matches:
        do_request_capture(match, version.id)


def connect() -> None:
    """Connect the receiver to ``crawler.matching.matches_recorded`` (once)."""
    matching.matches_recorded.connect(capture_matched_versions, dispatch_uid=DISPATCH_UID)
