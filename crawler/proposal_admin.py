"""Admin pages of site proposals: a rights holder proposes a site to scan (URL and why) and
sees its own proposals and staff's answers; staff approve (which creates the target site) or
reject them with a reason. Every step is a ``crawler.proposal_actions`` action, kept in the audit trail.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from core.admin import HolderScopedAdmin
from core.errors import ActionError
from core.scoping import sees_all
from crawler import proposal_actions
from crawler.models import ProposalStatus, SiteProposal

_PROPOSED = ["url", "holder", "proposed_by", "reason", "status", "created_at"]
_DECIDED = ["decided_by", "decided_at", "decision_reason", "site"]


class ProposeForm(forms.ModelForm):
    """A holder's proposal: its holder, the URL and why; the URL is checked by the action."""

    url = forms.URLField(label=_("URL"), max_length=2048, assume_scheme="https")

    class Meta:
        model = SiteProposal
        fields = ["holder", "url", "reason"]

    def clean(self):
        data = super().clean()
        if data.get("url") and data.get("reason") and data.get("holder"):
            try:  # checked here too, so that a refused URL is shown in the form
                proposal_actions.check_site_url(data["url"])
            except ActionError as exc:
                raise ValidationError({"url": str(exc)}) from exc
        return data


class DecideForm(forms.ModelForm):
    """Staff's decision on a proposal: approve or reject, with a reason (needed to reject)."""

    decision = forms.ChoiceField(label=capfirst(_("decision")), widget=forms.RadioSelect, choices=[
        (ProposalStatus.APPROVED, _("approve: create the target site")),
        (ProposalStatus.REJECTED, _("reject"))])

    class Meta:
        model = SiteProposal
        fields = ["decision_reason"]

    def clean(self):
        data = super().clean()
        if data.get("decision") == ProposalStatus.REJECTED and not data.get(
                "decision_reason", "").strip():
            raise ValidationError({"decision_reason": _("Say why the proposal is rejected.")})
        return data


@admin.register(SiteProposal)
class SiteProposalAdmin(HolderScopedAdmin):
    """Holders add and read their own proposals; staff decide the open ones."""

    list_display = ["url", "holder", "status", "created_at", "decision_reason", "site"]
    list_filter = ["status"]
    search_fields = ["url", "reason"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = DecideForm if obj is not None else ProposeForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["holder", "url", "reason"]
        if self.has_change_permission(request, obj):
            return [*_PROPOSED, "decision", "decision_reason"]
        return [*_PROPOSED, *_DECIDED]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        if self.has_change_permission(request, obj):
            return _PROPOSED
        return [*_PROPOSED, *_DECIDED]

    def has_change_permission(self, request, obj=None) -> bool:
        return sees_all(request.user) and super().has_change_permission(request, obj) and (
            obj is None or obj.status == ProposalStatus.PROPOSED)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        try:
            if not change:
                saved = proposal_actions.do_propose_site(obj.holder, obj.url, obj.reason, request.user)
                obj.pk = saved.pk
            elif form.cleaned_data["decision"] == ProposalStatus.APPROVED:
                done = proposal_actions.do_approve_site_proposal(obj, request.user,
                                                                 form.cleaned_data["decision_reason"])
                self.message_user(request, _("Target site “%(name)s” created; it is scanned "
                                             "daily.") % {"name": done.site.name},
                                  messages.SUCCESS)
            else:
                proposal_actions.do_reject_site_proposal(obj, request.user,
                                                         form.cleaned_data["decision_reason"])
        except ActionError as exc:
            self.message_user(request, str(exc), messages.ERROR)
