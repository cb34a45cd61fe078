"""Validators of what people type or upload as names (a holder's name, a work's reference,
title and author): refused when they hold control characters (``lib.text.untrusted``), which
would reach terminals, spreadsheets and notices as escape sequences or hidden text."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from lib.text.untrusted import control_chars


def no_control_characters(value: str) -> None:
    """Raise ValidationError (code "control_characters", in the active language, naming the
    characters as U+XXXX) when ``value`` (str) holds a control character; None otherwise."""
    found = control_chars(value or "")
    if found:
        raise ValidationError(
            _("Control characters are not allowed here (%(chars)s).")
            % {"chars": ", ".join(f"U+{ord(c):04X}" for c in found)},
            code="control_characters")
