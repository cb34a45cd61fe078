"""Evidence captures (app label ``evidence``): each page version that first matches a work is
fixed as a WACZ bundle (the WARC of the HTTP exchange that found it, a screenshot and a PDF
print in headless Chromium, the extracted text, the match's passages, metadata and a
provenance page), stored through Django's storage API and chained into the audit trail.

Told by the crawler through the signal ``crawler.matching.matches_recorded`` (a sub-app that
the crawler never imports); captures run on the Celery queue ``settings.QUEUE_CAPTURE``.
The Django-free parts are in ``lib.evidence``. docs/evidence.md says what a holder gets
and how a third party verifies a bundle.
"""
