"""The staff-only admin page of rights conflicts: both works side by side, the shared passages
quoted from each, and a note to resolve it (``conflict_actions.do_resolve_rights_conflict``).

Rights holders' users never see these pages (``sees_all``), so a holder never learns from the
platform which other holder registered its text.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from . import conflict_actions
from .connections import storage_errors
from .errors import ActionError
from .ingestion import work_text
from .localtime import shown
from .models import ConflictStatus, RightsConflict, Work
from .scoping import sees_all


def _quote(text: str | None, start: int, end: int) -> str:
    """The passage text[start:end] cut to settings.CONFLICT_QUOTE_CHARS characters."""
    if text is None:
        return "…"
    passage = text[start:end]
    limit = settings.CONFLICT_QUOTE_CHARS
    return passage if len(passage) <= limit else passage[:limit] + "…"


def _text(work: Work) -> str | None:
    try:
        return work_text(work)
    except storage_errors():
        return None


class ResolveForm(forms.ModelForm):
    """The note that resolves a conflict (required)."""

    class Meta:
        model = RightsConflict
        fields = ["note"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["note"].required = True
        self.fields["note"].help_text = _("What was decided (which holder keeps the work, "
                                          "what was asked of the other); saving resolves the "
                                          "conflict.")


@admin.register(RightsConflict)
class RightsConflictAdmin(admin.ModelAdmin):
    """Rights conflicts, for platform staff only; flagged by the platform, resolved with a note."""

    form = ResolveForm
    list_display = ["__str__", "existing_holder", "claimed_holder", "share", "status",
                    "created_at"]
    list_filter = ["status"]
    readonly_fields = ["side_by_side", "share", "status", "resolved_by", "resolved_at",
                       "created_at"]
    fields = ["side_by_side", "share", "status", "created_at", "note", "resolved_by",
              "resolved_at"]

    def has_module_permission(self, request) -> bool:
        return sees_all(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return sees_all(request.user)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return sees_all(request.user) and (obj is None or obj.status == ConflictStatus.OPEN)

    @admin.display(description=_("holder of the registered work"))
    def existing_holder(self, obj: RightsConflict) -> str:
        return obj.existing.holder.name

    @admin.display(description=_("holder of the new work"))
    def claimed_holder(self, obj: RightsConflict) -> str:
        return obj.claimed.holder.name

    @admin.display(description=_("shared text"))
    def share(self, obj: RightsConflict) -> str:
        return f"{obj.containment:.0%}"

    @admin.display(description=_("the two works"))
    def side_by_side(self, obj: RightsConflict) -> str:
        existing, claimed = obj.existing, obj.claimed
        existing_text, claimed_text = _text(existing), _text(claimed)
        head = format_html(
            "<tr><th>{}</th><th>{}</th></tr><tr><td>{}<br>{}: {}<br>{}: {}</td>"
            "<td>{}<br>{}: {}<br>{}: {}</td></tr>",
            _("registered work"), _("new work"),
            existing.title, _("rights holder"), existing.holder.name, _("registered on"),
            shown(existing.created_at), claimed.title, _("rights holder"), claimed.holder.name,
            _("registered on"), shown(claimed.created_at))
        rows = format_html_join("", "<tr><td><mark>{}</mark></td><td><mark>{}</mark></td></tr>", (
            (_quote(existing_text, p["work_start"], p["work_end"]),
             _quote(claimed_text, p["page_start"], p["page_end"])) for p in obj.passages))
        return format_html('<table class="conflict-pair" style="table-layout:fixed;width:100%">'
                           "{}{}</table>", head, rows)

    def save_model(self, request, obj, form, change):
        try:
            conflict_actions.do_resolve_rights_conflict(obj, request.user, form.cleaned_data["note"])
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
