"""App configuration of the dashboard."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DashboardConfig(AppConfig):
    """Customizes the admin site (titles, overview on the index page) when Django starts, and
    names the states of notice events in the audit trail, and reopens a removed notice whose copy
    is back (``dashboard.signals``)."""

    name = "dashboard"
    verbose_name = _("Infringement handling")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # here, not at the top: the models may be imported only once the app registry is ready
        from django.core import checks

        from core.models import AuditEvent, register_state_labels
        from dashboard import dkim_signing, signals
        from dashboard.models import NoticeEvent

        register_state_labels(AuditEvent.Kind.NOTICE, NoticeEvent)
        signals.connect()
        checks.register(dkim_signing.check_dkim_key)
