"""Filters of the API's lists whose values need more checking than django-filter's own."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django_filters.fields import IsoDateTimeField


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 date and time, turned to UTC: PostgreSQL refuses offsets beyond ±15:59
    that Python accepts (up to ±23:59), e.g. 2000-01-01T00:00:00+16:00.

    Raises:
        ValidationError: "invalid", when the time in UTC falls outside years 1 to 9999.
    """

    def to_python(self, value):
        when = super().to_python(value)
        if when is None:
            return None
        try:
            return when.astimezone(UTC)
        except OverflowError:
            raise ValidationError(_("The time is out of range (years 1 to 9999 in UTC)."),
                                  code="invalid") from None


class UtcIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    """django-filter's IsoDateTimeFilter with the value in UTC (``UtcIsoDateTimeField``)."""

    field_class = UtcIsoDateTimeField
