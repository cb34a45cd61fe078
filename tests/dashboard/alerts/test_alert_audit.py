"""Alert settings changed in the dashboard admin go through dashboard.alerts.actions and land in
the audit trail (kind "alert"): webhook endpoints added, changed and deleted, and a user's own
preferences."""

from __future__ import annotations

from core.models import AuditEvent
from dashboard.alerts.models import AlertPreference, WebhookEndpoint


def _webhook_form(holder, **fields) -> dict:
    return {"holder": holder.pk, "name": "ops", "url": "http://127.0.0.1:9/hook", "secret": "s",
            "format": "json", "language": "en", "min_score": "0", "enabled": "on", **fields}


def test_webhook_changes_in_the_admin_are_audited(holder_with_user, client):
    ns = holder_with_user
    client.force_login(ns.user)
    ns.user.is_superuser = True
    ns.user.save()
    assert client.post("/alerts/webhookendpoint/add/", _webhook_form(ns.holder)).status_code == 302
    endpoint = WebhookEndpoint.objects.get(holder=ns.holder)
    changed = client.post(f"/alerts/webhookendpoint/{endpoint.pk}/change/",
                          _webhook_form(ns.holder, name="ops-2"))
    assert changed.status_code == 302
    deleted = client.post(f"/alerts/webhookendpoint/{endpoint.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not WebhookEndpoint.objects.exists()
    trail = AuditEvent.objects.filter(kind="alert", target_id=endpoint.pk).order_by("sequence")
    assert [(e.new_state, e.username, e.holder_id) for e in trail] == [
        ("created", "editor", ns.holder.pk), ("changed", "editor", ns.holder.pk),
        ("deleted", "editor", ns.holder.pk)]
    assert "name" in trail[1].reason.split(", ")


def test_preferences_saved_in_the_admin_are_audited(holder_with_user, client):
    ns = holder_with_user
    ns.user.is_superuser = True
    ns.user.save()
    client.force_login(ns.user)
    mine = client.get("/alerts/alertpreference/mine/")
    pref = AlertPreference.objects.get(user=ns.user)
    saved = client.post(mine.url, {"email": "editor@holder.test", "min_score": "0.4",
                                   "language": "en", "digest_enabled": "on"})
    assert saved.status_code == 302
    trail = AuditEvent.objects.about(pref).order_by("sequence")
    assert [e.new_state for e in trail] == ["created", "changed"]
    assert trail[1].username == "editor" and "min_score=0.4" in trail[1].reason
