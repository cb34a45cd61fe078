"""Admin pages of the alerts: each user's own preferences ("My alert preferences"), the
webhook endpoints of a holder (a holder's users see only their holder's), and the read-only
delivery log (scoped the same way) and log of takedown summaries (a user sees its own)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from core.admin import HolderScopedAdmin, RecordAdminMixin
from core.scoping import holders_for, sees_all
from core.user_actions import do_change_email
from dashboard.alerts.actions import (
    do_delete_webhook,
    do_rotate_webhook_secret,
    do_save_webhook,
    do_update_alert_preferences,
)
from dashboard.alerts.models import AlertPreference, Delivery, SummaryMail, WebhookEndpoint
from dashboard.alerts.validators import check_webhook_url


class AlertPreferenceForm(forms.ModelForm):
    """The preferences with the user's e-mail address, checked by Django's EmailField (a
    malformed address is refused with the field's error)."""

    email = forms.EmailField(label=_("e-mail address"), required=True)

    class Meta:
        model = AlertPreference
        fields = ["email", "email_enabled", "min_score", "digest_enabled", "summary", "language"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["summary"].required = False  # a form without it keeps the saved choice

    def clean_summary(self):
        return self.cleaned_data.get("summary") or self.instance.summary


@admin.register(AlertPreference)
class AlertPreferenceAdmin(admin.ModelAdmin):
    """A user sees and changes only its own preferences; staff (sees_all) see everyone's.
    ``alerts/preferences/mine/`` opens the user's own, creating them on first use."""

    form = AlertPreferenceForm
    list_display = ["user", "email_enabled", "min_score", "digest_enabled", "summary",
                    "language", "last_digest_at"]

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("user")
        return qs if sees_all(request.user) else qs.filter(user=request.user)

    def has_add_permission(self, request):
        return False  # created by "mine" for the user itself

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None:
            form.base_fields["email"].initial = obj.user.email
        return form

    def save_model(self, request, obj, form, change):
        data = {k: form.cleaned_data[k] for k in ("email_enabled", "min_score",
                                                  "digest_enabled", "summary", "language")}
        do_change_email(obj.user, form.cleaned_data["email"], acting_user=request.user)
        do_update_alert_preferences(obj.user, acting_user=request.user, **data)

    def get_urls(self):
        mine = path("mine/", self.admin_site.admin_view(self.mine_view),
                    name="alerts_alertpreference_mine")
        return [mine, *super().get_urls()]

    def mine_view(self, request):
        """Redirect to the change page of the user's own preferences (created if missing)."""
        pref = (AlertPreference.objects.filter(user=request.user).first()
                or do_update_alert_preferences(request.user))
        return HttpResponseRedirect(reverse("admin:alerts_alertpreference_change", args=[pref.pk]))


class WebhookEndpointForm(forms.ModelForm):
    """The endpoint's URL must pass the crawler's SSRF guard when saved (it is checked again
    before every delivery, since DNS answers change)."""

    url = forms.URLField(label=_("URL"), max_length=2048, assume_scheme="https")

    class Meta:
        model = WebhookEndpoint
        # The secret is never shown again after creation: rotate it to get a new one.
        fields = ["holder", "name", "url", "format", "language", "min_score", "enabled"]

    def clean_url(self):
        return check_webhook_url(self.cleaned_data["url"])


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(HolderScopedAdmin):
    """Webhook endpoints of the user's holders; saving one with enabled on resets its failures."""

    form = WebhookEndpointForm
    list_display = ["name", "holder", "url", "format", "enabled", "consecutive_failures"]
    list_filter = ["format", "enabled"]
    actions = ["rotate_secret"]

    def save_model(self, request, obj, form, change):
        """Save through do_save_webhook; a new endpoint's signing secret is shown this once."""
        do_save_webhook(obj, request.user, form.changed_data if change else ["created"])
        if not change:
            messages.warning(request, _("Signing secret of %(name)s (copy it now, it is not "
                                        "shown again): %(secret)s") % {
                "name": obj.name, "secret": obj.secret})

    @admin.action(description=_("Rotate the signing secret of the selected endpoints"))
    def rotate_secret(self, request, queryset):
        """A new secret per selected endpoint (do_rotate_webhook_secret), each shown once."""
        for endpoint in queryset:
            secret = do_rotate_webhook_secret(endpoint, request.user)
            messages.warning(request, _("New signing secret of %(name)s (copy it now, it is "
                                        "not shown again; the old one no longer signs): "
                                        "%(secret)s") % {"name": endpoint.name, "secret": secret})

    def delete_model(self, request, obj):
        do_delete_webhook(obj, request.user)

    def delete_queryset(self, request, queryset):
        for endpoint in queryset:
            do_delete_webhook(endpoint, request.user)


@admin.register(Delivery)
class DeliveryAdmin(RecordAdminMixin, HolderScopedAdmin):
    """The delivery log, read only."""

    deletable = False

    holder_path = "match__work__holder"
    list_display = ["created_at", "kind", "channel", "recipient", "about", "status",
                    "attempts", "http_status", "last_error", "sent_at"]
    list_filter = ["kind", "channel", "status"]
    search_fields = ["recipient", "last_error", "match__url", "case__domain",
                     "cases__domain", "case__work__title", "cases__work__title"]
    list_select_related = ["match__work", "case__work"]

    def get_queryset(self, request):
        # a scan's case alerts have no match: scoped by their case(s), or as the user's own mail
        queryset = admin.ModelAdmin.get_queryset(self, request).prefetch_related("cases__work")
        if sees_all(request.user):
            return queryset
        mine = holders_for(request.user).values("pk")
        return queryset.filter(Q(match__work__holder__in=mine) | Q(case__work__holder__in=mine)
                               | Q(user=request.user))

    @admin.display(description=_("about"))
    def about(self, obj):
        """The case(s), work(s) and site(s) of a delivery, or its match's case, work and host."""
        if obj.case_id:
            named = [obj.case]
        elif obj.kind == Delivery.Kind.CASES:
            named = list(obj.cases.all())
        else:
            if not obj.match_id:
                return "—"
            case = f"#{obj.match.case_id} " if obj.match.case_id else ""
            return f"{case}{obj.match.work.title} @ {obj.match.domain}"
        return "; ".join(f"#{c.pk} {c.work.title} @ {c.domain}" for c in named)


@admin.register(SummaryMail)
class SummaryMailAdmin(RecordAdminMixin, admin.ModelAdmin):
    """The takedown summaries sent or being sent, read only; a user sees its own."""

    deletable = False
    list_display = ["period_start", "period_end", "cadence", "user", "recipient", "status",
                    "attempts", "last_error", "sent_at"]
    list_filter = ["cadence", "status"]

    def get_queryset(self, request):
        queryset = super().get_queryset(request).select_related("user")
        return queryset if sees_all(request.user) else queryset.filter(user=request.user)
