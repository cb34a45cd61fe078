"""List filters of the crawler's admin pages: what started a scan, in words."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from crawler.labels import trigger_label


class TriggerFilter(admin.SimpleListFilter):
    """A scan run's trigger (schedule, command line, dashboard, demo, REST API), among the
    triggers recorded."""

    title = _("trigger")
    parameter_name = "trigger"

    def lookups(self, request, model_admin):
        codes = model_admin.get_queryset(request).order_by().values_list("trigger", flat=True)
        return [(code, trigger_label(code)) for code in sorted(set(codes))]

    def queryset(self, request, queryset):
        return queryset.filter(trigger=self.value()) if self.value() else queryset
