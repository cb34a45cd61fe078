"""The alert pages in real Chromium at 1366x768, in zh-hans and English, as a rights holder's
user sees them: the own preference form, the holder's webhook endpoints and one
endpoint's form, the delivery log and the takedown checks, each with what the user came for and
no horizontal scrolling. Screenshots go to test-artifacts/alert-*.png.

(In tests/dashboard, beside tests/dashboard/alerts: the Playwright fixtures live in this folder's conftest.)
"""

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = pytest.mark.browser


def _alert_data(scenario):
    """Holder A's webhook endpoint, three deliveries (mail sent, webhook failed with an error,
    webhook retrying) and two takedown checks; holder B's delivery, which A must not see."""
    from crawler.models import CheckOutcome, TakedownCheck
    from dashboard.alerts.models import AlertPreference, Delivery, WebhookEndpoint

    now = timezone.now()
    first, _, news = scenario.matches
    endpoint = WebhookEndpoint.objects.create(
        holder=scenario.a, name="运营群机器人 WeCom", format="wecom", language="zh-hans",
        url="https://qyapi.weixin.example/cgi-bin/webhook/send?key=0f1e2d3c-4b5a-6978",
        secret="s3cret", consecutive_failures=1)
    user = scenario.users.holder_a
    user.email = "editor@xinghe.example"
    user.save(update_fields=["email"])
    AlertPreference.objects.create(user=user, min_score=0.6, language="zh-hans")
    Delivery.objects.create(kind="immediate", channel="email", match=first, user=user,
                            recipient=user.email, status="sent", attempts=1, sent_at=now)
    Delivery.objects.create(
        kind="immediate", channel="webhook", match=first, endpoint=endpoint,
        recipient=endpoint.url, status="failed", attempts=5, http_status=500,
        last_error="HTTP 500 Internal Server Error after 5 attempts (retried with backoff)")
    removed = TakedownCheck.objects.create(match=first, outcome=CheckOutcome.REMOVED,
                                           http_status=404, note="HTTP 404",
                                           checked_at=now - timedelta(hours=1))
    TakedownCheck.objects.create(match=first, outcome=CheckOutcome.PRESENT, http_status=200,
                                 text_sha256="ab" * 32, checked_at=now - timedelta(days=1))
    Delivery.objects.create(kind="removed", channel="webhook", match=first, endpoint=endpoint,
                            takedown_check=removed, recipient=endpoint.url, status="retrying",
                            attempts=2, last_error="timeout after 10 s")
    Delivery.objects.create(kind="immediate", channel="email", match=news,
                            user=scenario.users.holder_b, recipient="b@chenguang.example",
                            status="sent", attempts=1, sent_at=now)
    return endpoint


def _fits(page) -> bool:
    """No horizontal scrolling: neither the page nor a list's table (the admin scrolls a table
    wider than its box inside it, hiding the last columns); 1 px is left for rounding."""
    return page.evaluate("""() => {
        const boxes = [document.scrollingElement, ...document.querySelectorAll('.results')];
        return boxes.every(b => b.scrollWidth <= b.clientWidth + 1);
    }""")


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_alert_pages_show_their_content_and_fit_1366(scenario, open_page, browser_login,
                                                     screenshot, language):
    endpoint = _alert_data(scenario)
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, "holder_a")
    overflowing = []

    page.goto("/alerts/alertpreference/mine/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"alert-preferences-{language}-1366")
    assert page.input_value("#id_email") == "editor@xinghe.example"
    assert page.input_value("#id_min_score") == "0.6"
    assert page.is_checked("#id_email_enabled") and page.is_visible("input[name=_save]")
    overflowing += [] if _fits(page) else ["preferences"]

    page.goto("/alerts/webhookendpoint/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"alert-webhooks-{language}-1366")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1 and "运营群机器人 WeCom" in rows.first.inner_text()
    overflowing += [] if _fits(page) else ["webhooks"]

    page.goto(f"/alerts/webhookendpoint/{endpoint.pk}/change/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"alert-webhook-form-{language}-1366")
    assert page.input_value("#id_url") == endpoint.url
    assert page.input_value("#id_format") == "wecom"
    overflowing += [] if _fits(page) else ["webhook form"]

    page.goto("/alerts/delivery/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"alert-deliveries-{language}-1366")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3  # holder B's delivery is not listed
    text = page.locator("#result_list").inner_text()
    assert "editor@xinghe.example" in text and "HTTP 500 Internal Server Error" in text
    assert "b@chenguang.example" not in text
    overflowing += [] if _fits(page) else ["deliveries"]

    page.goto("/crawler/takedowncheck/")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"alert-takedown-checks-{language}-1366")
    assert page.locator("#result_list tbody tr").count() == 2
    assert "HTTP 404" in page.locator("#result_list").inner_text()
    overflowing += [] if _fits(page) else ["takedown checks"]

    assert not overflowing, overflowing


@pytest.mark.django_db
def test_webhook_secret_is_shown_once_on_creation_and_on_rotation(scenario, client):
    """The dashboard never shows an endpoint's signing secret again: once in the message after
    creating it, once after rotating it (audited); the edit page has no secret field."""
    from core.models import AuditEvent
    from dashboard.alerts.models import WebhookEndpoint

    client.force_login(scenario.users.holder_a)
    added = client.post("/alerts/webhookendpoint/add/", {
        "holder": scenario.a.pk, "name": "CMS", "url": "http://93.184.216.34/hook",
        "format": "json", "language": "en", "min_score": "0.5", "enabled": "on"},
        headers={"accept-language": "en"}, follow=True)
    endpoint = WebhookEndpoint.objects.get(name="CMS")
    assert f"it is not shown again): {endpoint.secret}" in added.text
    edit = client.get(f"/alerts/webhookendpoint/{endpoint.pk}/change/")
    assert endpoint.secret not in edit.text and 'name="secret"' not in edit.text
    old = endpoint.secret
    rotated = client.post("/alerts/webhookendpoint/", {
        "action": "rotate_secret", "_selected_action": [endpoint.pk]},
        headers={"accept-language": "zh-hans"}, follow=True)
    endpoint.refresh_from_db()
    assert endpoint.secret != old and endpoint.secret in rotated.text
    assert endpoint.secret not in client.get(f"/alerts/webhookendpoint/{endpoint.pk}/change/").text
    event = AuditEvent.objects.about(endpoint).order_by("-sequence").first()
    assert (event.reason, event.username) == ("secret rotated", "holder_a")
    assert endpoint.secret not in event.reason
