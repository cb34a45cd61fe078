"""The unsubscribe page of the alert mails: no login, a signed token names the user and the
channel. GET shows a confirmation button (mail scanners that prefetch links change nothing);
POST turns the channel off. The page is in the language of the user's alert mails."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core import signing
from django.http import Http404
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_http_methods

from dashboard.alerts.actions import do_update_alert_preferences
from dashboard.alerts.messages import read_unsubscribe_token
from dashboard.alerts.models import AlertPreference

FIELDS = {"email": "email_enabled", "digest": "digest_enabled"}


@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """Confirm (GET) or apply (POST) the unsubscribe of ``token``; a bad token answers 404."""
    try:
        user_id, channel = read_unsubscribe_token(token)
        user = get_user_model().objects.get(pk=user_id)
    except (signing.BadSignature, get_user_model().DoesNotExist) as exc:
        raise Http404("unknown unsubscribe link") from exc
    done = request.method == "POST"
    if done:
        do_update_alert_preferences(user, **{FIELDS[channel]: False})
    pref = AlertPreference.objects.filter(user=user).first()
    with translation.override(pref.language if pref else None):  # the mails' language
        return render(request, "alerts/unsubscribe.html", {"channel": channel, "done": done,
                                                           "email": user.email})
