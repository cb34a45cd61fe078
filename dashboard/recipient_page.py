"""The page a takedown notice's recipient opens from its link, with no account, in the notice's
language: the holder, the works, and for each infringing page its screenshot, the copied
passages side by side with the work, the capture and timestamp times with the authority, the
digests, downloads of the signed report and of the WACZ bundle, and the bundle replayed by
ReplayWeb.page (``dashboard.replay_assets``). A link that opens nothing answers a page that
says why and whom to ask (``recipient_links.LinkProblem``), never the dashboard.
"""

from __future__ import annotations

import zipfile

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.http import require_safe

from crawler.evidence.capture import SCREENSHOT
from crawler.evidence.trust import authority_label
from dashboard import evidence_reports, sources
from dashboard.byte_ranges import ranged_file_response
from dashboard.evidence import compared_passages, passage_pairs, rewrite_pairs, web_href
from dashboard.models import EvidenceReport
from dashboard.pdf import PdfUnavailableError
from dashboard.recipient_links import NO_BUNDLE, LinkProblem, Opened, read_link
from dashboard.replay_assets import REPLAY_BASE, UI_URL
from lib.evidence.signing import SigningError

REPORT_UNAVAILABLE = "report_unavailable"  # a problem page's kind beside LinkProblem's


def _problem(request, kind: str, status: int, holder=None, language: str | None = None):
    """The page saying why a link opens nothing (``kind``) and whom to contact: the holder,
    else the platform's operator (settings.RECIPIENT_CONTACT_EMAIL); in ``language``, else the
    request's."""
    with translation.override(language or translation.get_language()):
        response = render(request, "dashboard/recipient/problem.html", {
            "kind": kind, "holder": holder, "operator": settings.RECIPIENT_CONTACT_EMAIL,
            "days": settings.NOTICE_BUNDLE_LINK_DAYS}, status=status)
    response["X-Robots-Tag"] = "noindex"
    return response


def _opened(request, token: str) -> Opened | HttpResponse:
    """What ``token`` opens, or the problem page to answer instead."""
    try:
        return read_link(token)
    except LinkProblem as problem:
        return _problem(request, problem.kind, problem.status, problem.holder, problem.language)


def _stored_capture(request, token: str, capture_id: int):
    """The stored Capture ``capture_id`` of one of the pages ``token`` opens, or the problem
    page to answer instead (the link's, or NO_BUNDLE: not one of them, or its file is gone)."""
    opened = _opened(request, token)
    if isinstance(opened, HttpResponse):
        return opened
    capture = opened.capture(capture_id)
    if capture is None:
        return _problem(request, NO_BUNDLE, 404, opened.holder, opened.language)
    return capture


def _sender(opened: Opened):
    """The user a report made for the recipient is made by: who sent the notice's latest mail,
    else who drafted it; None when neither is known."""
    if opened.notice is None:
        return None
    mail = opened.notice.mails.exclude(asked_by=None).order_by("-pk").first()
    return mail.asked_by if mail else opened.notice.created_by


def _screenshot(capture, read: bool = True) -> bytes | None:
    """The PNG screenshot in ``capture``'s bundle (b"" when not ``read``: it has one); None
    when it has none or is no ZIP."""
    try:
        with capture.bundle.open("rb") as handle, zipfile.ZipFile(handle) as wacz:
            if SCREENSHOT not in wacz.namelist():
                return None
            return wacz.read(SCREENSHOT) if read else b""
    except zipfile.BadZipFile:
        return None


def _page(token: str, match, capture, language: str, can_make_report: bool) -> dict:
    """The template's view of one infringing page (see ``recipient_page_view``)."""
    evidence = sources.load(match)
    kept = EvidenceReport.objects.filter(match=match, capture=capture, language=language).first()
    return {
        "match": match, "href": web_href(match.url), "capture": capture,
        "title": (evidence.version.title if evidence.version else "") or match.title,
        "fetched_at": evidence.version.fetched_at if evidence.version else None,
        "chapters": [chapter.title for chapter in evidence.chapters],
        "pairs": passage_pairs(evidence, compared_passages(evidence)),
        "rewrite_pairs": rewrite_pairs(match, evidence),
        "text_lang": match.work.lang_tag,
        "text_sha256": evidence.text_sha256, "problems": evidence.problems,
        "authority": authority_label(capture) if capture else None,
        "report": kept,
        "report_url": reverse("recipient_report", args=[token, match.pk])
        if kept or (capture and can_make_report) else "",
        "bundle_url": reverse("recipient_bundle", args=[token, capture.pk]) if capture else "",
        "screenshot_url": reverse("recipient_screenshot", args=[token, capture.pk])
        if capture and _screenshot(capture, read=False) is not None else "",
    }


@require_safe
def recipient_page_view(request, token: str) -> HttpResponse:
    """GET: the evidence page of a notice link (or of a capture link mailed before), in the
    notice's language; the problem page (404/410) for a link that opens nothing. To a browser
    signed in to the dashboard it offers no replay (the copying site's recorded scripts would
    run with that session) and says to open the link in a private window."""
    opened = _opened(request, token)
    if isinstance(opened, HttpResponse):
        return opened
    can_make = _sender(opened) is not None
    with translation.override(opened.language):
        pages = [_page(token, match, capture, opened.language, can_make)
                 for match, capture in opened.pages]
        works = list({m.work_id: m.work for m, _c in opened.pages}.values())
        response = render(request, "dashboard/recipient/page.html", {
            "opened": opened, "holder": opened.holder, "notice": opened.notice,
            "works": works, "pages": pages, "replay_base": REPLAY_BASE, "replay_ui": UI_URL,
            "days": settings.NOTICE_BUNDLE_LINK_DAYS,
            # the replayed page's scripts run in this origin: never with a dashboard session
            "signed_in": request.user.is_authenticated})
    response["X-Robots-Tag"] = "noindex"
    return response


@require_safe
def recipient_bundle_view(request, token: str, capture_id: int) -> HttpResponse:
    """GET/HEAD: the WACZ bundle of one of the link's pages, with range requests (the replay
    reads it by ranges) and its SHA-256 in X-Evidence-SHA256; the problem page otherwise."""
    capture = _stored_capture(request, token, capture_id)
    if isinstance(capture, HttpResponse):
        return capture
    response = ranged_file_response(request, capture.bundle.open("rb"), capture.bundle.size,
                                    content_type="application/wacz",
                                    filename=f"evidence-capture-{capture.pk}.wacz")
    response["X-Evidence-SHA256"] = capture.bundle_sha256
    return response


@require_safe
def recipient_screenshot_view(request, token: str, capture_id: int) -> HttpResponse:
    """GET: the screenshot (PNG) in the bundle of one of the link's pages; 404 without one."""
    capture = _stored_capture(request, token, capture_id)
    if isinstance(capture, HttpResponse):
        return capture
    picture = _screenshot(capture)
    if picture is None:
        raise Http404("no screenshot")
    response = HttpResponse(picture, content_type="image/png")
    response["Cache-Control"] = "private, max-age=86400"
    return response


@require_safe
def recipient_report_view(request, token: str, match_id: int) -> HttpResponse:
    """GET: the signed evidence report (PDF) of one of the link's pages in the notice's
    language: the kept one (``evidence_reports``), made by the notice's sender on its first
    request. 503 page while it cannot be made (WeasyPrint, signing key); 404 page without a
    bundle or anyone to make it."""
    opened = _opened(request, token)
    if isinstance(opened, HttpResponse):
        return opened
    match = opened.match(match_id)
    capture = dict(opened.pages).get(match) if match else None
    kept = EvidenceReport.objects.filter(match=match, capture=capture,
                                         language=opened.language).first() if match else None
    sender = _sender(opened)
    if match is None or (kept is None and (capture is None or sender is None)):
        return _problem(request, NO_BUNDLE, 404, opened.holder, opened.language)
    try:
        with translation.override(opened.language):
            pdf = bytes(kept.pdf) if kept else evidence_reports.kept_report_pdf(match, sender)
    except (PdfUnavailableError, SigningError):
        return _problem(request, REPORT_UNAVAILABLE, 503, opened.holder, opened.language)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="evidence-report-{match.pk}.pdf"'
    return response

