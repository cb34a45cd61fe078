"""The overview's querysets, narrowed by ``core.scoping``: staff see every holder's
data, a holder's users only their own. The admin pages, exports and URLs scope the same way
through ``core.admin.HolderScopedAdmin``, so another holder's id is not found (404).
"""

from __future__ import annotations

from django.db.models import QuerySet

from core.scoping import scope
from crawler.models import Match
from dashboard.models import TakedownNotice


def matches_for(user) -> QuerySet:
    """The matches ``user`` may see, with work and holder joined."""
    return scope(Match.objects.select_related("work", "work__holder"), user, "work__holder")


def notices_for(user) -> QuerySet:
    """The takedown notices ``user`` may see, with the holder joined."""
    return scope(TakedownNotice.objects.select_related("holder"), user, "holder")

