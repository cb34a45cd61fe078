"""The evidence report of one match: a self-contained HTML file (styles inline, no scripts, no
external resources) to archive or attach, in the language of the request; the same as PDF
through WeasyPrint (which needs the Pango library and a CJK font, e.g. Debian's fonts-noto-cjk).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone

from core import notes
from core.models import AuditEvent
from crawler.evidence.models import Capture
from crawler.evidence.trust import authority_label, signing_identity, trusted_certs, tsa_config
from dashboard import report_parts, wording
from dashboard.evidence import evidence_context, passage_pairs
from dashboard.pdf import html_pdf
from lib.evidence.signing import sign_pdf


def render(match, user) -> str:
    """The report of ``match`` (a core Match the user may see) made for ``user``.

    Returns:
        The whole HTML document as a str, sized for A4 (``edits.css`` and ``report.css``,
        inlined): a cover block (work, holder, chapters, page URL, capture time with its UTC
        offset, HTTP status, SHA-256 of the stored text and whether it still equals the hash
        taken at capture, kind of match, scores in words and percent, the other registered
        works the page copies too: ``_related_works.html``), each passage side by side, the audit
        trail of the decision, then the page's versions. The captured text is quoted passage
        by passage, not whole: the SHA-256 identifies the full capture kept in the page store.
    """
    context = evidence_context(match)
    css = ""
    for name in ("dashboard/edits.css", "dashboard/report.css"):  # the marks, then A4's layout
        with open(finders.find(name), encoding="utf-8") as handle:
            css += handle.read()
    capture = Capture.objects.bundle_of(match.pk)
    context.update({
        "capture": capture,
        "capture_outcome": notes.in_words(capture.outcome) if capture else "",
        "authority": authority_label(capture) if capture else None,
        "screenshot": report_parts.screenshot_tiles(capture),
        "verification": report_parts.verification(capture),
        "css": css,
        "generated_at": timezone.localtime(),
        "generated_by": user.get_username(),
        "pairs": passage_pairs(context["evidence"], context["comparisons"]),
        "score_text": wording.percent(match.score),
        "trail": AuditEvent.objects.about(match).order_by("sequence"),
    })
    return render_to_string("dashboard/report.html", context)


def render_pdf(match, user) -> bytes:
    """The report of ``match`` as PDF bytes (A4), laid out by WeasyPrint from ``render`` and
    signed with the platform's key as PAdES B-LTA (``lib.evidence.signing``: the
    signature timestamped by the first TSA of settings.TSA_URLS that answers; without one,
    signed without a timestamp), so that a PDF reader shows who signed it and when.

    Raises:
        PdfUnavailableError: WeasyPrint cannot be imported (missing package or Pango).
        SigningError: the platform's signing key cannot be read or made.
    """
    pdf = html_pdf(render(match, user))
    return sign_pdf(pdf, signing_identity(), tsa_config(), trusted_tsa_certs=trusted_certs(),
                    reason=f"evidence report, match #{match.pk}", location=settings.SITE_URL).data

