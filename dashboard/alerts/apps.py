"""Django app of the alerts (see the package docstring)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AlertsConfig(AppConfig):
    """Connects the receiver that queues the immediate alert of each new match."""

    name = "dashboard.alerts"
    label = "alerts"  # the app label of its tables, migrations and permissions
    verbose_name = _("Alerts")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # here, not at the top: the signals import the models, ready only now
        from dashboard.alerts import signals

        signals.connect()
