"""Admin page of the web-archive scans (crawler.archives): one row per file or byte range with
its progress (records, bytes done of the total), matches and fault. Read-only: the platform
writes them; imported by crawler.admin."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core import notes
from core.admin import RecordAdminMixin
from crawler.models import ArchiveScan


@admin.register(ArchiveScan)
class ArchiveScanAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Archive scans, newest first, with their progress; failed ones name the fault."""

    list_display = ["number", "file", "status", "records", "bytes_progress", "pages_matched",
                    "matches", "attempts", "note_in_words", "created_at", "heartbeat_at"]
    list_filter = ["status"]
    search_fields = ["source", "batch"]
    date_hierarchy = "created_at"
    fields = ["source", "range_start", "range_end", "batch", "status", "offset", "records",
              "records_cut", "bytes_done", "bytes_total", "pages_matched", "matches", "attempts",
              "error_offset", "note_in_words", "created_at", "heartbeat_at", "finished_at"]
    readonly_fields = fields

    @admin.display(description=_("archive scan"), ordering="pk")
    def number(self, scan):
        return f"#{scan.pk}"

    @admin.display(description=_("file"), ordering="source")
    def file(self, scan):
        return str(scan)

    @admin.display(description=_("bytes done"))
    def bytes_progress(self, scan):
        if not scan.bytes_total:
            return f"{scan.bytes_done:,}"
        return _("%(done)s of %(total)s (%(percent)s%%)") % {
            "done": f"{scan.bytes_done:,}", "total": f"{scan.bytes_total:,}",
            "percent": round(100 * scan.bytes_done / scan.bytes_total)}

    @admin.display(description=_("note"))
    def note_in_words(self, scan):
        return notes.in_words(scan.note) if scan.note else "—"
