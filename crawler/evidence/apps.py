"""Django app of the evidence captures (see the package docstring)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvidenceConfig(AppConfig):
    """Connects the receiver that requests the capture of newly matched page versions."""

    name = "crawler.evidence"
    label = "evidence"
    verbose_name = _("Evidence captures")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported in ready(): the signal handlers need the app registry loaded.
        from crawler.evidence import signals

        signals.connect()
