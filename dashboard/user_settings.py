"""The "My settings" page (``/settings/``): a signed-in person chooses the time zone every page,
report and mail shows times in (``core.timezones``), through
``core.user_actions.do_update_user_settings``."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core import timezones
from core.errors import ActionError
from core.user_actions import do_update_user_settings


class UserSettingsForm(forms.Form):
    """The time zone, from every IANA zone this machine knows, the common ones first."""

    time_zone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=timezones.choices,
                                  help_text=gettext_lazy(
                                      "Pages, reports and alert mails show times in this zone, "
                                      "with its offset from UTC."))


def user_settings_view(request):
    """GET: the form with the user's zone; POST: save it (audited) and come back with a
    message, or show the form again with the error."""
    if request.method == "POST":
        form = UserSettingsForm(request.POST)
        if form.is_valid():
            try:
                do_update_user_settings(request.user, request.user,
                                        time_zone=form.cleaned_data["time_zone"])
            except ActionError as exc:
                form.add_error("time_zone", str(exc))
            else:
                messages.success(request, _("Your settings were saved."))
                return redirect("user_settings")
    else:
        form = UserSettingsForm(initial={"time_zone": timezones.zone_name_of(request.user)})
    context = {**admin.site.each_context(request), "title": _("My settings"), "form": form,
               "now": timezone.localtime()}
    return TemplateResponse(request, "dashboard/user_settings.html", context)
