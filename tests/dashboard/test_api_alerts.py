"""The alert endpoints of the REST API over real HTTP against the live server: webhook
endpoints scoped per rights holder (id guessing answers 404 and changes nothing), the SSRF guard
of the dashboard form, the secret answered once, the user's own e-mail preferences, and every
change in the audit trail."""

from __future__ import annotations

import pytest

from core.models import AuditEvent
from dashboard.alerts.models import AlertPreference, WebhookEndpoint

from . import test_api

api = test_api.api  # the fixtures of the API tests
_fresh_throttle_counts = test_api._fresh_throttle_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def loopback_allowed(settings):
    """Webhook URLs on 127.0.0.1 pass the SSRF guard (as in the alert tests)."""
    settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": "127.0.0.1"}


def test_webhook_secret_is_shown_once_and_changes_are_audited(scenario, api, loopback_allowed):
    """Create (secret in the answer only), list, update and delete an endpoint of the user's
    holder; each change is one audit event by the user."""
    a = api(scenario.users.holder_a)
    created = a.post("alerts/webhooks/", json={"name": "ops", "url": "http://127.0.0.1:9/h",
                                               "min_score": 0.5})
    assert created.status_code == 201, created.text
    body = created.json()
    endpoint = WebhookEndpoint.objects.get(pk=body["id"])
    assert body["secret"] == endpoint.secret and len(endpoint.secret) >= 32
    assert (endpoint.holder, endpoint.min_score) == (scenario.a, 0.5)
    listed = a.get("alerts/webhooks/").json()["results"]
    assert [row["id"] for row in listed] == [endpoint.pk]
    assert "secret" not in listed[0]
    assert "secret" not in a.get(f"alerts/webhooks/{endpoint.pk}/").json()
    changed = a.patch(f"alerts/webhooks/{endpoint.pk}/", json={"format": "wecom"})
    assert changed.status_code == 200 and "secret" not in changed.json()
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).format == "wecom"
    assert a.delete(f"alerts/webhooks/{endpoint.pk}/").status_code == 204
    assert not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
    trail = AuditEvent.objects.filter(kind="alert", target_id=endpoint.pk).order_by("sequence")
    assert [(e.new_state, e.username, e.holder_id) for e in trail] == [
        ("created", "holder_a", scenario.a.pk), ("changed", "holder_a", scenario.a.pk),
        ("deleted", "holder_a", scenario.a.pk)]
    assert trail[1].reason == "format"


@pytest.mark.parametrize("language, words", [("en", "may not be contacted"),
                                             ("zh-hans", "不允许连接")])
def test_webhook_url_must_pass_the_ssrf_guard(scenario, api, language, words):
    """A private address is refused with the dashboard form's message in the user's language;
    nothing is saved."""
    answer = api(scenario.users.holder_a, language).post(
        "alerts/webhooks/", json={"name": "inside", "url": "http://10.1.2.3/hook"})
    assert answer.status_code == 400, answer.text
    assert words in " ".join(answer.json()["fields"]["url"])
    assert not WebhookEndpoint.objects.exists()
    assert not AuditEvent.objects.filter(kind="alert").exists()


def test_another_holders_webhook_answers_404_and_stays(scenario, api, loopback_allowed):
    """Holder B guessing holder A's endpoint id: 404 on read, update and delete, nothing
    changed; B cannot create one for A; staff see it."""
    mine = WebhookEndpoint.objects.create(holder=scenario.a, name="ours",
                                          url="http://127.0.0.1:9/a")
    b = api(scenario.users.holder_b)
    for method, kwargs in (("get", {}), ("patch", {"json": {"enabled": False}}),
                           ("put", {"json": {"name": "x", "url": "http://127.0.0.1:9/b"}}),
                           ("delete", {})):
        answer = getattr(b, method)(f"alerts/webhooks/{mine.pk}/", **kwargs)
        assert answer.status_code == 404, (method, answer.text)
        assert answer.json()["code"] == "not_found"
    assert b.get("alerts/webhooks/").json()["count"] == 0
    theirs = b.post("alerts/webhooks/", json={"holder": scenario.a.pk, "name": "x",
                                              "url": "http://127.0.0.1:9/b"})
    assert theirs.status_code == 400 and "holder" in theirs.json()["fields"]
    moved = b.post("alerts/webhooks/", json={"name": "x", "url": "http://127.0.0.1:9/b"})
    assert moved.status_code == 201 and moved.json()["holder"] == scenario.b.pk
    moved_id = moved.json()["id"]
    away = b.patch(f"alerts/webhooks/{moved_id}/", json={"holder": scenario.a.pk})
    assert away.status_code == 400 and "holder" in away.json()["fields"]
    mine.refresh_from_db()
    assert (mine.name, mine.url, mine.enabled) == ("ours", "http://127.0.0.1:9/a", True)
    assert WebhookEndpoint.objects.get(pk=moved_id).holder == scenario.b
    assert not AuditEvent.objects.filter(kind="alert", target_id=mine.pk).exists()
    assert api(scenario.users.staff).get(f"alerts/webhooks/{mine.pk}/").status_code == 200


def test_alert_preferences_are_the_callers_own(scenario, api):
    """GET answers the defaults without saving; PATCH saves the caller's own preferences
    (audited); a bad score is refused in the user's language and saves nothing."""
    a = api(scenario.users.holder_a)
    assert a.get("alerts/preferences/").json() == {
        "email_enabled": True, "min_score": 0.0, "digest_enabled": True, "language": "zh-hans"}
    assert not AlertPreference.objects.exists()
    saved = a.patch("alerts/preferences/", json={"min_score": 0.7, "email_enabled": False})
    assert saved.status_code == 200 and saved.json()["min_score"] == 0.7
    pref = AlertPreference.objects.get(user=scenario.users.holder_a)
    assert (pref.min_score, pref.email_enabled, pref.digest_enabled) == (0.7, False, True)
    event = AuditEvent.objects.about(pref).get()
    assert (event.username, event.new_state) == ("holder_a", "created")
    assert event.reason == "email_enabled=False, min_score=0.7"
    bad = api(scenario.users.holder_a, "zh-hans").put(
        "alerts/preferences/", json={"email_enabled": True, "min_score": 2,
                                     "digest_enabled": False, "language": "en"})
    assert bad.status_code == 400 and "min_score" in bad.json()["fields"]
    assert "1" in bad.json()["fields"]["min_score"][0]
    assert AlertPreference.objects.get(pk=pref.pk).min_score == 0.7
    assert AuditEvent.objects.about(pref).count() == 1
    # another user's preferences are not reachable: B reads its own defaults
    assert api(scenario.users.holder_b).get("alerts/preferences/").json()["min_score"] == 0.0
