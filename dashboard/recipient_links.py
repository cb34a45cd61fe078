"""Signed links for the recipient of a takedown notice, who has no account.

``notice_link`` makes the link of a notice's evidence page (django.core.signing, valid
settings.NOTICE_BUNDLE_LINK_DAYS days): ``{"n": notice, "h": holder, "l": language, "k": the
cases of its pages}``, so that a link whose notice or cases were deleted still says whose it was
and in which language. Links mailed before the page existed name one capture (``{"c": id}``,
path ``/evidence/bundle/<token>/``) and open the page of that capture's page.
``read_link`` tells what a link opens, or raises LinkProblem saying why it opens nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.core import signing
from django.urls import reverse

from core.models import RightsHolder
from crawler.evidence.models import Capture
from crawler.models import Case, Match
from dashboard.models import TakedownNotice

SALT = "dashboard.notice-bundle"  # the salt of the links mailed before the page: they still open

ALTERED, EXPIRED, WITHDRAWN, NO_BUNDLE = "altered", "expired", "withdrawn", "no_bundle"


class LinkProblem(Exception):
    """Why a link opens nothing: ``kind`` (ALTERED: not signed by the platform, cut or changed;
    EXPIRED: older than NOTICE_BUNDLE_LINK_DAYS; WITHDRAWN: its notice or every case of its
    pages was deleted; NO_BUNDLE: the one bundle it names is no longer stored), ``status`` (the
    HTTP status to answer: 404 or 410), ``holder`` (the RightsHolder to contact, or None) and
    ``language`` (its notice's, or None when unknown)."""

    STATUS = {ALTERED: 404, EXPIRED: 410, WITHDRAWN: 410, NO_BUNDLE: 404}

    def __init__(self, kind: str, holder: RightsHolder | None = None,
                 language: str | None = None):
        super().__init__(kind)
        self.kind, self.holder, self.language = kind, holder, language
        self.status = self.STATUS[kind]


@dataclass
class Opened:
    """What a valid link opens: ``holder``, ``language`` (the notice's), ``notice`` (the
    TakedownNotice, None for a capture link whose page is cited by none), ``pages``
    ([(Match, Capture or None)]: each page with the bundle a download gives, None when its
    bundle is not stored), in the notice's order."""

    holder: RightsHolder
    language: str
    notice: TakedownNotice | None
    pages: list[tuple[Match, Capture | None]] = field(default_factory=list)

    def capture(self, capture_id: int) -> Capture | None:
        """The stored capture ``capture_id`` of one of the pages, else None."""
        return next((c for _m, c in self.pages if c is not None and c.pk == capture_id), None)

    def match(self, match_id: int) -> Match | None:
        """The page (Match) ``match_id`` among the pages, else None."""
        return next((m for m, _c in self.pages if m.pk == match_id), None)


def notice_link(notice: TakedownNotice) -> str:
    """Absolute URL (under settings.SITE_URL) of the evidence page of ``notice`` for its
    recipient, valid settings.NOTICE_BUNDLE_LINK_DAYS days from now."""
    cases = sorted({case for case in notice.matches.values_list("case_id", flat=True) if case})
    token = signing.dumps({"n": notice.pk, "h": notice.holder_id, "l": notice.language,
                           "k": cases}, salt=SALT)
    return settings.SITE_URL + reverse("recipient_page", args=[token])


def _stored(capture: Capture | None) -> Capture | None:
    """``capture`` when its bundle file is still in the evidence storage, else None."""
    if capture is None or not capture.bundle or not capture.bundle.storage.exists(
            capture.bundle.name):
        return None
    return capture


def _payload(token: str) -> dict:
    """The signed data of ``token``. Raises LinkProblem ALTERED (bad signature, not a dict)
    or EXPIRED (older than NOTICE_BUNDLE_LINK_DAYS, with its holder and language)."""
    try:
        data = signing.loads(token, salt=SALT,
                             max_age=settings.NOTICE_BUNDLE_LINK_DAYS * 24 * 3600)
    except signing.SignatureExpired as exc:
        data = signing.loads(token, salt=SALT)  # authentic but old: say whose it was
        raise LinkProblem(EXPIRED, *_whose(data)) from exc
    except signing.BadSignature as exc:
        raise LinkProblem(ALTERED) from exc
    if not isinstance(data, dict):
        raise LinkProblem(ALTERED)
    return data


def _whose(data) -> tuple[RightsHolder | None, str | None]:
    """The holder and language a link's data names (its notice's, its capture's work's)."""
    if not isinstance(data, dict):
        return None, None
    if "n" in data:
        return RightsHolder.objects.filter(pk=data.get("h")).first(), data.get("l")
    capture = Capture.objects.filter(pk=data.get("c")).select_related("match__work").first()
    if capture is None or capture.match is None:
        return None, None
    notice = capture.match.takedown_notices.order_by("-pk").first()
    return capture.match.work.holder, notice.language if notice else None


def read_link(token: str) -> Opened:
    """What ``token`` (from ``notice_link``, or a capture link mailed before) opens.

    Raises:
        LinkProblem: ALTERED, EXPIRED; WITHDRAWN when the notice is deleted, or none of its
            pages is left in a case it was sent for (the cases were deleted), or the capture's
            page is deleted; NO_BUNDLE when the one capture a capture link names is gone.
    """
    data = _payload(token)
    if "n" not in data:
        return _capture_link(data)
    holder = RightsHolder.objects.filter(pk=data.get("h")).first()
    notice = TakedownNotice.objects.filter(pk=data.get("n")).select_related("holder").first()
    if notice is None:
        raise LinkProblem(WITHDRAWN, holder, data.get("l"))
    matches = list(notice.matches.select_related("work__holder", "case").order_by("pk"))
    cases = set(data.get("k") or [])
    if cases:
        alive = set(Case.objects.filter(pk__in=cases).values_list("pk", flat=True))
        matches = [m for m in matches if m.case_id in alive]
    if not matches:
        raise LinkProblem(WITHDRAWN, notice.holder, notice.language)
    return Opened(notice.holder, notice.language, notice,
                  [(m, _stored(Capture.objects.bundle_of(m.pk))) for m in matches])


def _capture_link(data: dict) -> Opened:
    """What a capture link (``{"c": id}``) opens: the page of its capture, with that capture."""
    capture = Capture.objects.filter(pk=data.get("c")).select_related("match__work__holder").first()
    if capture is not None and capture.match is None:
        raise LinkProblem(WITHDRAWN)
    holder, language = _whose(data)
    if _stored(capture) is None:
        raise LinkProblem(NO_BUNDLE, holder, language)
    match = capture.match
    notice = match.takedown_notices.order_by("-pk").first()
    return Opened(match.work.holder, language or settings.LANGUAGE_CODE, notice,
                  [(match, capture)])
