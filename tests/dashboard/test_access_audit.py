"""Changes that grant or revoke access are in the audit trail: a holder's users changed on the
holder's page, API tokens issued, revoked and deleted, a user's alert e-mail address changed."""

from __future__ import annotations

import pytest

from core import notes
from core.models import AuditEvent, RightsHolder
from dashboard.models import ApiToken

pytestmark = pytest.mark.django_db


def _events(kind: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(kind=kind).order_by("sequence"))


def test_holder_users_added_and_removed_are_recorded(client, make_user):
    staff = make_user("staff", staff_role=True)
    ann, bob = make_user("ann"), make_user("bob")
    holder = RightsHolder.objects.create(name="甲出版社")
    holder.users.add(ann)
    client.force_login(staff)
    page = f"/core/rightsholder/{holder.pk}/change/"
    response = client.post(page, {"name": holder.name, "users": [bob.pk], "email": "",
                                  "contact_person": "", "phone": "", "website": "",
                                  "address": ""})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(holder.users.all()) == [bob]
    [event] = _events(AuditEvent.Kind.ACCESS)
    assert (event.username, event.holder_id) == ("staff", holder.pk)
    assert notes.in_english(event.reason) == "users added: bob; users removed: ann"
    client.post(page, {"name": "甲出版社 new name", "users": [bob.pk]})
    assert len(_events(AuditEvent.Kind.ACCESS)) == 1  # the same users: nothing recorded


def test_api_tokens_issued_revoked_and_deleted_are_recorded(client, make_user):
    ann = make_user("ann")
    client.force_login(ann)
    client.post("/dashboard/apitoken/add/", {"name": "ci"})
    token = ApiToken.objects.get(name="ci")
    client.post("/dashboard/apitoken/", {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.revoked_at is not None
    client.post(f"/dashboard/apitoken/{token.pk}/delete/", {"post": "yes"})
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    events = _events(AuditEvent.Kind.ACCESS)
    assert [(e.username, e.new_state, notes.in_english(e.reason)) for e in events] == [
        ("ann", "active", "API token issued"), ("ann", "revoked", "API token revoked"),
        ("ann", "deleted", "API token deleted")]


def test_a_changed_alert_address_is_recorded(client, make_user):
    ann = make_user("ann")
    ann.email = "old@example.org"
    ann.save()
    client.force_login(ann)
    page = client.get("/alerts/alertpreference/mine/", follow=True)
    change = page.redirect_chain[-1][0]
    client.post(change, {"email": "new@example.org", "email_enabled": "on", "min_score": "0.5",
                         "language": "zh-hans"})
    ann.refresh_from_db()
    assert ann.email == "new@example.org"
    [event] = _events(AuditEvent.Kind.USER_SETTINGS)
    assert notes.in_english(event.reason) == ("e-mail address changed from old@example.org to "
                                            "new@example.org")
