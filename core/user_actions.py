"""A user's own settings (time zone) and e-mail address.

Atomic and audited, follow-ups queued on commit (docs/architecture.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from . import notes
from .errors import ActionError
from .models import (
    AuditEvent,
    UserSettings,
)
from .timezones import names


def do_update_user_settings(user, acting_user, *, time_zone: str) -> UserSettings:
    """Set ``user``'s time zone (an IANA name; "" for settings.TIME_ZONE), recorded in the
    audit trail (kind "settings", the zone before and after) when it changes.

    Returns:
        The user's UserSettings row (created on first change).

    Raises:
        ActionError: ``time_zone`` is not a time zone this machine knows.
    """
    if time_zone and time_zone not in names():
        raise ActionError(_("Unknown time zone: %(zone)s") % {"zone": time_zone})
    with transaction.atomic():
        row, _created = UserSettings.objects.select_for_update().get_or_create(user=user)
        old = row.time_zone or settings.TIME_ZONE
        row.time_zone = time_zone
        row.save()
        if old != (time_zone or settings.TIME_ZONE):
            AuditEvent.record(kind=AuditEvent.Kind.USER_SETTINGS, user=acting_user, holder=None,
                              target=row, subject=user.get_username(), old_state=old,
                              new_state=time_zone or settings.TIME_ZONE)
    return row


def do_change_email(user, email: str, acting_user) -> bool:
    """Set ``user``'s e-mail address (where alerts go) to ``email`` and record the change.

    Returns:
        True when the address changed, False when it was already ``email``.
    """
    with transaction.atomic():
        user = type(user).objects.select_for_update().get(pk=user.pk)
        if user.email == email:
            return False
        old, user.email = user.email, email
        user.save(update_fields=["email"])
        AuditEvent.record(kind=AuditEvent.Kind.USER_SETTINGS, user=acting_user, holder=None,
                          target=user, subject=user.get_username(), old_state="",
                          new_state="", reason=notes.coded("email_changed", gettext_noop(
                              "e-mail address changed from %(old)s to %(new)s"),
                              old=old or "-", new=email or "-"))
    return True
