"""Errors of the core app: one base class, ``CoreError``, for every error it raises on purpose.

"Storage unavailable" means MongoDB or Redis only (``StorageUnavailable``); a refused address
(the crawler's SSRF guard) or a remote site's connection error is never storage.
"""

from __future__ import annotations


class CoreError(Exception):
    """Base class of the errors the core app raises."""


class StorageUnavailable(CoreError):
    """MongoDB or Redis could not be reached; the operation can be retried later."""


class ActionError(CoreError, ValueError):
    """A state change that is not allowed (no reason given, unknown status, wrong state); raised
    by the ``do_*`` actions of every app before anything is changed. The message is translated
    and meant for the user."""
