"""The work and rights-holder columns shared by the admin lists of rows that belong to a work
(matches, cases): the work's title and its holder's name, sortable."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy


class WorkColumns:
    """Mixin of a ModelAdmin whose rows have a ``work`` foreign key: ``work_link`` and
    ``holder_name`` for its ``list_display``."""

    @admin.display(description=gettext_lazy("work"), ordering="work__title")
    def work_link(self, obj):
        """The row's work title."""
        return obj.work.title

    @admin.display(description=gettext_lazy("rights holder"), ordering="work__holder__name")
    def holder_name(self, obj):
        """The name of the row's work's rights holder."""
        return obj.work.holder.name
