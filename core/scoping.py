"""Who sees what: platform staff see every rights holder's data, a holder's users only theirs.

Use ``scope(queryset, user, holder_path)`` for every list, page and export, and
``HolderScopedAdmin`` (core/admin.py) for admin pages. Objects outside a user's scope
answer 404, as if they did not exist.
"""

from __future__ import annotations

from django.db.models import QuerySet

from .models import RightsHolder

ALL_HOLDERS_PERMISSION = "core.view_all_holders"


def sees_all(user) -> bool:
    """True for active superusers and users with ``core.view_all_holders`` (platform staff)."""
    return bool(user and user.is_active and (user.is_superuser
                                             or user.has_perm(ALL_HOLDERS_PERMISSION)))


def holders_for(user) -> QuerySet[RightsHolder]:
    """The rights holders ``user`` may see: all for staff, else those it is a member of."""
    if sees_all(user):
        return RightsHolder.objects.all()
    if not (user and user.is_authenticated and user.is_active):
        return RightsHolder.objects.none()
    return RightsHolder.objects.filter(users=user)


def scope(queryset: QuerySet, user, holder_path: str = "holder") -> QuerySet:
    """Narrow ``queryset`` to what ``user`` may see.

    Args:
        queryset: any queryset whose rows lead to a RightsHolder.
        user: the request's user.
        holder_path: lookup from the model to its RightsHolder ("holder" for Work,
            "work__holder" for a match, "" for RightsHolder itself).

    Returns:
        The queryset unchanged for staff, else filtered to the user's holders.
    """
    if sees_all(user):
        return queryset
    field = f"{holder_path}__in" if holder_path else "pk__in"
    return queryset.filter(**{field: holders_for(user).values("pk")})

