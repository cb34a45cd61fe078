"""The signed evidence report of a match, made once per capture and language and kept.

A court expert compares copies of an exhibit byte for byte: the report is laid out and signed
(``dashboard.report.render_pdf``) the first time it is asked for, for the match's latest
evidence capture and the reader's language, stored with its SHA-256, and that SHA-256 written
to the audit trail; every later download, notice mail and complaint package gives those bytes.
A new capture of the page makes a new report on its next request.
"""

from __future__ import annotations

import hashlib

from django.db import IntegrityError, transaction
from django.utils.translation import get_language

from core.models import AuditEvent
from crawler.evidence.models import Capture
from dashboard import report
from dashboard.models import EvidenceReport


def kept_report_pdf(match, user) -> bytes:
    """The signed report of ``match`` (a crawler Match) for its latest evidence capture in the
    active language, made (``do_make_evidence_report``) on its first request.

    Raises:
        PdfUnavailableError, SigningError: as ``report.render_pdf``, when it must be made.
    """
    capture = Capture.objects.bundle_of(match.pk)
    language = get_language() or "en"
    kept = EvidenceReport.objects.filter(match=match, capture=capture, language=language).first()
    return bytes((kept or do_make_evidence_report(match, capture, language, user)).pdf)


def do_make_evidence_report(match, capture, language: str, acting_user) -> EvidenceReport:
    """Lay out and sign the report of ``match`` for ``capture`` (a Capture or None) in
    ``language`` and keep it, recording its SHA-256 in the audit trail. Two first requests at
    once: the report kept first wins and both get it.

    Returns:
        The EvidenceReport kept.

    Raises:
        PdfUnavailableError, SigningError: as ``report.render_pdf``.
    """
    pdf = report.render_pdf(match, acting_user)  # outside the transaction: the TSA may be slow
    digest = hashlib.sha256(pdf).hexdigest()
    try:
        with transaction.atomic():
            kept = EvidenceReport.objects.create(
                match=match, capture=capture, language=language, pdf=pdf, sha256=digest,
                made_by=acting_user.get_username() if acting_user else "")
            AuditEvent.record(
                kind=AuditEvent.Kind.EVIDENCE, user=acting_user, holder=match.work.holder,
                subject=f"{match.work.title} <- {match.url}", old_state="",
                new_state="report made", target=match,
                reason=f"evidence report ({language}) SHA-256 {digest}"
                       + (f", capture #{capture.pk}" if capture else ""))
    except IntegrityError:
        return EvidenceReport.objects.get(match=match, capture=capture, language=language)
    return kept
