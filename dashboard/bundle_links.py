"""Signed download links of evidence bundles, for the recipient of a takedown notice, who has
no account: ``bundle_link`` makes one (django.core.signing, valid
settings.NOTICE_BUNDLE_LINK_DAYS days), ``bundle_view`` answers it with the WACZ file."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.http import FileResponse, Http404
from django.urls import reverse

from crawler.evidence.models import Capture

SALT = "dashboard.notice-bundle"


def bundle_link(capture_id: int) -> str:
    """Absolute URL (under settings.SITE_URL) of a signed download of capture ``capture_id``'s
    evidence bundle, for a recipient without an account."""
    token = signing.dumps({"c": capture_id}, salt=SALT)
    return settings.SITE_URL + reverse("notice_bundle", args=[token])


def capture_of_link(token: str) -> Capture:
    """The finished Capture a ``bundle_link`` token names. Raises Http404: a forged, altered
    or expired token, or a capture without a bundle."""
    try:
        data = signing.loads(token, salt=SALT,
                             max_age=settings.NOTICE_BUNDLE_LINK_DAYS * 24 * 3600)
    except signing.BadSignature as exc:
        raise Http404("unknown or expired link") from exc
    capture = (Capture.objects.filter(pk=data.get("c") if isinstance(data, dict) else None)
               .exclude(bundle="").first())
    if capture is None:
        raise Http404("no bundle")
    return capture


def bundle_view(request, token: str) -> FileResponse:
    """The WACZ bundle a ``bundle_link`` names, as a download with its SHA-256 in the
    X-Evidence-SHA256 header; 404 for a bad or expired link."""
    capture = capture_of_link(token)
    response = FileResponse(capture.bundle.open("rb"), as_attachment=True,
                            filename=f"evidence-capture-{capture.pk}.wacz",
                            content_type="application/wacz")
    response["X-Evidence-SHA256"] = capture.bundle_sha256
    return response
