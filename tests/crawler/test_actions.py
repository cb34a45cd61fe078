"""The crawler's actions record the acting user: whitelisting, site changes, scan cancelling."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from core.models import AuditEvent, RightsHolder
from crawler import review_actions, scan_actions
from crawler.models import ScanRun, TargetSite

pytestmark = pytest.mark.django_db


def test_whitelisting_records_the_acting_user_once():
    user = get_user_model().objects.create_user("reviewer")
    holder = RightsHolder.objects.create(name="Press A")
    entry = review_actions.do_whitelist_domain(holder, " Partner.Example.com. ", user, "licensed partner")
    again = review_actions.do_whitelist_domain(holder, "partner.example.com", user, "again")
    assert again.pk == entry.pk and entry.domain == "partner.example.com"
    event = AuditEvent.objects.about(entry).get()
    assert (event.kind, event.username, event.holder_id, event.new_state) == (
        "whitelist", "reviewer", holder.pk, "whitelisted")


def test_site_changes_and_cancelled_scans_are_recorded(client):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(boss)
    client.post("/crawler/targetsite/add/", {
        "name": "Reprints", "start_urls": "https://reprints.example/", "allowed_domains": "",
        "path_patterns": "", "max_depth": 2, "max_pages": 50, "delay_seconds": 1.0,
        "enabled": "on", "notes": ""})
    site = TargetSite.objects.get(name="Reprints")
    client.post("/crawler/targetsite/", {"action": "disable", "_selected_action": [site.pk]})
    assert not TargetSite.objects.get(pk=site.pk).enabled
    assert [(e.username, e.new_state) for e in
            AuditEvent.objects.about(site).order_by("sequence")] == [
        ("boss", "created"), ("boss", "changed")]
    finished = ScanRun.objects.create(site=site, status="finished")
    assert scan_actions.do_cancel_scan(finished, boss) is False  # only running scans are cancelled
    assert not AuditEvent.objects.about(finished).exists()
