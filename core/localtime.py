"""How a time is shown to a person: in the active time zone (the reader's, activated by
``core.timezones``), with its UTC offset."""

from __future__ import annotations

from django.utils import timezone


def shown(moment) -> str:
    """Aware datetime ``moment`` in the active time zone with its UTC offset, as pages, notes
    and mails show a time: "2026-11-25 09:30 +0800"."""
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %z")
