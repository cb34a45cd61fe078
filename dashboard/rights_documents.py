"""Rights documents (``dashboard.models.RightsDocument``): the upload action and its admin
page, where a holder's users upload their own documents and staff everyone's."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction
from django.utils.translation import gettext_noop

from core import notes
from core.admin import HolderScopedAdmin
from core.models import AuditEvent
from dashboard.models import RightsDocument


def do_upload_rights_document(document: RightsDocument, acting_user) -> RightsDocument:
    """Store ``document`` (unsaved, its file checked by the model's validator through the
    form) uploaded by ``acting_user`` and record it in the audit trail (kind "work").
    Returns the saved RightsDocument."""
    with transaction.atomic():
        document.uploaded_by = acting_user
        document.save()
        AuditEvent.record(kind=AuditEvent.Kind.WORK, user=acting_user, holder=document.holder,
                          target=document, subject=document.title, old_state="",
                          new_state="uploaded", reason=notes.coded(
                              "rights_document", gettext_noop("rights document %(name)s uploaded"),
                              name=document.file.name))
    return document


class RightsDocumentAdmin(HolderScopedAdmin):
    """Rights documents: upload (checked size and type), list, download."""

    list_display = ["title", "holder", "work", "file", "uploaded_by", "uploaded_at"]
    list_filter = [("holder", admin.RelatedOnlyFieldListFilter)]
    fields = ["holder", "work", "title", "file"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        do_upload_rights_document(obj, request.user)


admin.site.register(RightsDocument, RightsDocumentAdmin)
