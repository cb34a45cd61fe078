"""Takedown contacts of sites (registered domains), for platform staff: the list, filtered by
default to the sites that need one (open cases, no confirmed address), the form that sets an
address, the found suggestions, and the search for addresses. Changes go through
``crawler.contacts``' actions (audited)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import ActionError
from core.scoping import sees_all
from crawler import contacts
from crawler.models import OPEN_STATES, Case, ContactSuggestion, SiteContact


class NeedsContactFilter(admin.SimpleListFilter):
    """Sites with open cases and no confirmed address (``needs=yes``), or the others."""

    title = gettext_lazy("takedown contact")
    parameter_name = "needs"

    def lookups(self, request, model_admin):
        return [("yes", gettext_lazy("needed: open cases, no contact")),
                ("no", gettext_lazy("set"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(address="", has_open_cases=True)
        if self.value() == "no":
            return queryset.exclude(address="")
        return queryset


class SuggestionInline(admin.TabularInline):
    """The addresses the search found, read only (confirm one by typing it as the contact)."""

    model = ContactSuggestion
    fields = ["address", "source", "found_on", "found_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class SiteContactAdmin(admin.ModelAdmin):
    """Takedown contacts: platform staff only."""

    list_display = ["domain", "address", "open_cases", "search", "confirmed_by", "confirmed_at"]
    list_filter = [NeedsContactFilter, "search"]
    search_fields = ["domain", "address", "suggestions__address"]
    fields = ["domain", "address", "confirmed_by", "confirmed_at", "search", "search_note_words",
              "rdap", "rdap_note_words", "refused"]
    readonly_fields = ["domain", "confirmed_by", "confirmed_at", "search", "search_note_words",
                       "rdap", "rdap_note_words", "refused"]
    inlines = [SuggestionInline]
    actions = ["search_addresses"]

    def has_module_permission(self, request):
        return sees_all(request.user)

    def has_view_permission(self, request, obj=None):
        return sees_all(request.user)

    def has_change_permission(self, request, obj=None):
        return sees_all(request.user)

    def has_add_permission(self, request):
        return False  # one per site with cases, made when its first case opens

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        open_cases = Case.objects.filter(domain=OuterRef("domain"), state__in=OPEN_STATES)
        return super().get_queryset(request).annotate(has_open_cases=Exists(open_cases))

    @admin.display(description=gettext_lazy("open cases"), boolean=True,
                   ordering="has_open_cases")
    def open_cases(self, obj):
        return obj.has_open_cases

    @admin.display(description=gettext_lazy("search result"))
    def search_note_words(self, obj):
        return obj.search_note_words or "—"

    @admin.display(description=gettext_lazy("RDAP result"))
    def rdap_note_words(self, obj):
        return obj.rdap_note_words or "—"

    def save_model(self, request, obj, form, change):
        if "address" in form.changed_data:
            contacts.do_set_contact(obj.domain, obj.address, request.user)

    def save_related(self, request, form, formsets, change):
        pass  # the suggestions are read only

    @admin.action(description=gettext_lazy("Search the sites for addresses"))
    def search_addresses(self, request, queryset):
        for contact in queryset:
            try:
                contacts.do_search_contacts(contact.domain, request.user)
            except ActionError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, _("Searching the addresses of %(domain)s.") % {
                    "domain": contact.domain}, messages.SUCCESS)


admin.site.register(SiteContact, SiteContactAdmin)
