"""The registration certificate of a work: a signed PDF that states the SHA-256 of the work's
text and the RFC 3161 time at which a time-stamping authority saw it (crawler.evidence's
RegistrationProof), with how anyone checks it with openssl. The holder's proof that the
original existed then, beside the capture of a copy."""

from __future__ import annotations

import base64

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from core.models import Work
from core.scoping import scope
from crawler.evidence.models import RegistrationProof, TimestampStatus
from crawler.evidence.trust import (
    signing_identity,
    token_authority_label,
    trusted_certs,
    tsa_config,
)
from dashboard.pdf import html_pdf
from lib.evidence.signing import sign_pdf


def current_proof(work: Work) -> RegistrationProof | None:
    """The proof of ``work``'s current text (its ``sha256``), or None before one is asked."""
    return work.registration_proofs.filter(text_sha256=work.sha256).first()


def render_certificate(work: Work, proof: RegistrationProof) -> bytes:
    """The certificate of a stamped ``proof`` as signed PDF bytes (A4, zh-hans and English side
    by side). Raises PdfUnavailableError without WeasyPrint, SigningError without the key."""
    html = render_to_string("dashboard/registration_certificate.html", {
        "work": work, "proof": proof,
        "authority": token_authority_label(proof.token, proof.text_sha256, proof.authority),
        "token_b64": base64.b64encode(bytes(proof.token)).decode("ascii")})
    pdf = html_pdf(html)
    return sign_pdf(pdf, signing_identity(), tsa_config(), trusted_tsa_certs=trusted_certs(),
                    reason=f"registration certificate, work {work.reference}",
                    location=settings.SITE_URL).data


def registration_certificate_view(request, work_id: int):
    """GET: the certificate of a work the user may see (404 otherwise, or while its text has no
    trusted timestamp yet)."""
    work = get_object_or_404(scope(Work.objects.select_related("holder"), request.user), pk=work_id)
    proof = current_proof(work)
    if proof is None or proof.status != TimestampStatus.STAMPED:
        raise Http404(_("This work's text has no trusted timestamp yet."))
    response = HttpResponse(render_certificate(work, proof), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="registration-{work.pk}.pdf"'
    return response
