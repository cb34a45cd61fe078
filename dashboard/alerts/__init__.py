"""Alerts: telling rights holders and staff about new and grown cases by e-mail and signed
webhooks (JSON or WeCom group-robot markdown), after each scan and each stored-page search,
about takedown changes, and in a daily digest, with a delivery log.

A small app between the dashboard and the crawler (dashboard -> alerts -> crawler ->
core): it reads the crawler's models and is notified through the crawler's signals
(``scan_closed``, ``search_closed``, ``takedown_changed``), so that the crawler needs no upward
import.
"""
