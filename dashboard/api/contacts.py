"""API of takedown contacts (/api/v1/contacts/, platform staff only): one per site
(registered domain) with cases; its confirmed address, the addresses a search found, and the
search itself. Changes go through ``crawler.contacts``' actions (audited)."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from crawler import contacts
from crawler.models import ContactSuggestion, SiteContact

from .views import ERRORS, IsPlatformStaff


class SuggestionSerializer(serializers.ModelSerializer):
    """An address found on the site, waiting for staff to confirm it."""

    class Meta:
        model = ContactSuggestion
        fields = ["address", "source", "found_on", "found_at"]
        read_only_fields = fields
        extra_kwargs = {"source": {"help_text": "security_txt, mailto or contact_page."},
                        "found_on": {"help_text": "The URL it was found on."}}


class ContactSerializer(serializers.ModelSerializer):
    """A site's takedown contact; only ``address`` can be written ("" clears it)."""

    suggestions = SuggestionSerializer(many=True, read_only=True)
    search_note = serializers.CharField(source="search_note_words", read_only=True,
                                        help_text="The search's result in words.")

    class Meta:
        model = SiteContact
        fields = ["domain", "address", "confirmed_at", "search", "search_note", "suggestions"]
        read_only_fields = ["domain", "confirmed_at", "search", "search_note", "suggestions"]
        extra_kwargs = {
            "domain": {"help_text": "The site's registered domain."},
            "address": {"help_text": "The confirmed address notices go to; \"\" when none."},
            "search": {"help_text": "\"\" (never), searching, done or failed."},
        }


class ContactFilter(django_filters.FilterSet):
    """Filters of the contact list."""

    missing = django_filters.BooleanFilter(method="filter_missing", help_text=(
        "true: the sites with open cases and no confirmed address."))

    class Meta:
        model = SiteContact
        fields = ["missing"]

    def filter_missing(self, queryset, name, value):
        """Sites needing a contact (value true) or the others."""
        needing = contacts.missing_contacts()
        return queryset.filter(domain__in=needing) if value else queryset.exclude(
            domain__in=needing)


@extend_schema_view(
    list=extend_schema(summary="List takedown contacts (staff)",
                       responses={200: ContactSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A site's takedown contact (staff)",
                           responses={200: ContactSerializer, **ERRORS}),
    partial_update=extend_schema(summary="Set a site's takedown contact (staff)",
                                 responses={200: ContactSerializer, **ERRORS}),
)
class ContactViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin,
                     viewsets.GenericViewSet):
    """Takedown contacts, by registered domain."""

    serializer_class = ContactSerializer
    permission_classes = [IsPlatformStaff]
    filterset_class = ContactFilter
    queryset = SiteContact.objects.prefetch_related("suggestions").order_by("domain")
    lookup_field = "domain"
    lookup_value_regex = r"[^/\x00-\x1f\x7f]+"  # no control character reaches PostgreSQL
    http_method_names = ["get", "patch", "post", "head", "options"]
    ordering_fields = ["domain"]
    ordering = ["domain"]

    def perform_update(self, serializer):
        """Set the address through do_set_contact (audited)."""
        serializer.instance = contacts.do_set_contact(
            serializer.instance.domain, serializer.validated_data.get(
                "address", serializer.instance.address), self.request.user)

    @extend_schema(summary="Search the site for addresses (staff)", request=None,
                   responses={202: ContactSerializer, **ERRORS})
    @action(detail=True, methods=["post"], filterset_class=None, ordering_fields=[])
    def search(self, request, domain=None):
        """Queue the search of the site's pages for addresses (crawler.contacts); found ones
        appear in ``suggestions``. A search already running answers 400."""
        contact = contacts.do_search_contacts(self.get_object().domain, request.user)
        return Response(ContactSerializer(contact).data, status=202)
