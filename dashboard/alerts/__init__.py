"""Alerts: telling rights holders and staff about new matches by e-mail and signed webhooks
(JSON or WeCom group-robot markdown), immediately and in a daily digest, with a delivery log.

A small app between the dashboard and the crawler (dashboard -> alerts -> crawler ->
tracker.core): it reads crawler.models.Match and is notified of new matches through Django's
``post_save`` signal, so that the crawler needs no upward import.
"""
