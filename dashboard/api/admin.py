"""The API tokens page of the dashboard: each user creates and revokes their own tokens (staff
see everyone's); the raw token is shown once, after creation, and only its SHA-256 is kept."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.scoping import sees_all
from dashboard.models import ApiToken
from dashboard.token_actions import do_delete_api_tokens, do_issue_api_token, do_revoke_api_tokens


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens: create (name only), see prefix and last use, revoke."""

    list_display = ["name", "prefix", "user", "created_at", "last_used_at", "revoked_at"]
    fields = ["name", "prefix", "user", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "user", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def get_queryset(self, request):
        """The user's own tokens; staff see every token."""
        queryset = super().get_queryset(request).select_related("user")
        return queryset if sees_all(request.user) else queryset.filter(user=request.user)

    def has_module_permission(self, request):
        """Every active dashboard user may manage their own tokens."""
        return bool(request.user.is_active and request.user.is_staff)

    def has_view_permission(self, request, obj=None):
        """As has_module_permission; objects outside get_queryset answer 404."""
        return self.has_module_permission(request)

    has_add_permission = has_view_permission

    def has_change_permission(self, request, obj=None):
        """Tokens are not edited, only created and revoked."""
        return False

    def has_delete_permission(self, request, obj=None):
        """Deleting a token revokes it for good."""
        return self.has_module_permission(request)

    def save_model(self, request, obj, form, change):
        """Create the token for the requesting user and show its secret once."""
        raw = do_issue_api_token(obj, request.user)
        messages.warning(request, _("Your new API token (copy it now, it is not shown again): "
                                    "%(token)s") % {"token": raw})

    def delete_model(self, request, obj):
        """Delete the token (``do_delete_api_tokens``, audited)."""
        do_delete_api_tokens(ApiToken.objects.filter(pk=obj.pk), request.user)

    def delete_queryset(self, request, queryset):
        """Delete the selected tokens (``do_delete_api_tokens``, audited)."""
        do_delete_api_tokens(queryset, request.user)

    @admin.action(description=gettext_lazy("Revoke the selected tokens"))
    def revoke(self, request, queryset):
        """Revoke the selected tokens still active (``do_revoke_api_tokens``)."""
        count = do_revoke_api_tokens(queryset, request.user)
        self.message_user(request, _("%(n)d tokens revoked.") % {"n": count}, messages.SUCCESS)
