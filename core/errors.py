"""Errors of the core app: one base class, ``CoreError``, for every error it raises on purpose.

"Storage unavailable" means MongoDB or Redis only (``StorageUnavailable``); a refused address
(the crawler's SSRF guard) or a remote site's connection error is never storage.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _


class CoreError(Exception):
    """Base class of the errors the core app raises."""


class StorageUnavailable(CoreError):
    """MongoDB or Redis could not be reached; the operation can be retried later."""


class ActionError(CoreError, ValueError):
    """A state change that is not allowed (no reason given, unknown status, wrong state); raised
    by the ``do_*`` actions of every app before anything is changed. The message is translated
    and meant for the user."""


def require_email_address(address: str) -> None:
    """Raise ActionError (in the user's language) when ``address`` is not an e-mail address
    (Django's ``validate_email``)."""
    try:
        validate_email(address)
    except ValidationError as exc:
        raise ActionError(_("“%(address)s” is not an e-mail address.") % {
            "address": address}) from exc
