"""App configuration of core."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    """Registers the signal handlers (work deletion, roles after migrate) when Django starts."""

    name = "core"
    label = "core"
    verbose_name = _("Copyright tracking")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported in ready(): the signal handlers and models need the app registry loaded.
        from . import signals  # noqa: F401
        from .models import AccessState, AuditEvent, ConflictStatus, register_state_labels

        register_state_labels(AuditEvent.Kind.CONFLICT, ConflictStatus)
        register_state_labels(AuditEvent.Kind.ACCESS, AccessState)
