"""The dashboard: the Django admin as the daily tool of staff and rights holders.

Overview with charts, match list, evidence view, review workflow with an append-only audit trail,
takedown notices, CSV/XLSX exports and per-match evidence reports.
"""
