"""Rights holders: created (the demo, ``import_works``) and their users set.

Atomic and audited, follow-ups queued on commit (docs/architecture.md).
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from . import notes
from .models import (
    AccessState,
    AuditEvent,
    RightsHolder,
)


def do_set_holder_users(holder: RightsHolder, users, acting_user) -> tuple[list[str], list[str]]:
    """Give exactly ``users`` (an iterable of User) access to ``holder``'s works, and record who
    was added and who removed in the audit trail (kind "access").

    Returns:
        (usernames added, usernames removed), each sorted; both empty when nothing changed.
    """
    wanted = {user.pk: user for user in users}
    with transaction.atomic():
        holder = RightsHolder.objects.select_for_update(no_key=True).get(pk=holder.pk)
        current = {user.pk: user for user in holder.users.all()}
        added = sorted(wanted[pk].get_username() for pk in wanted.keys() - current.keys())
        removed = sorted(current[pk].get_username() for pk in current.keys() - wanted.keys())
        if not added and not removed:
            return [], []
        holder.users.set(wanted.values())
        AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=holder,
                          target=holder, subject=str(holder), old_state="", new_state="",
                          reason=notes.coded("holder_users_changed", gettext_noop(
                              "users added: %(added)s; users removed: %(removed)s"),
                              added=", ".join(added) or "-", removed=", ".join(removed) or "-"))
    return added, removed


def do_create_holder(name: str, acting_user=None) -> tuple[RightsHolder, bool]:
    """The rights holder named ``name`` (stripped), created and recorded when missing.

    Returns:
        (the holder, True when it was created now).
    """
    with transaction.atomic():
        holder, created = RightsHolder.objects.get_or_create(name=name.strip())
        if created:
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=holder,
                              target=holder, subject=str(holder), old_state="",
                              new_state=AccessState.CREATED, reason=notes.coded(
                                  "holder_created", gettext_noop("rights holder created")))
    return holder, created
