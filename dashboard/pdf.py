"""HTML laid out as PDF by WeasyPrint: the one place the dashboard's reports, certificates and
summaries become PDF (below the alerts, which mail summaries with it)."""

from __future__ import annotations

from dashboard.errors import DashboardError


class PdfUnavailableError(DashboardError, RuntimeError):
    """WeasyPrint or the system libraries it needs (Pango) are not installed here."""


def html_pdf(html: str) -> bytes:
    """``html`` (a self-contained document: inline styles, data: images) laid out as PDF
    bytes by WeasyPrint, unsigned.

    Raises:
        PdfUnavailableError: WeasyPrint cannot be imported (missing package or Pango).
    """
    try:
        import weasyprint  # late: importing it loads Pango, which a web worker may never need
    except (ImportError, OSError) as exc:
        raise PdfUnavailableError(f"PDF output needs WeasyPrint and Pango: {exc}") from exc
    return weasyprint.HTML(string=html).write_pdf()
