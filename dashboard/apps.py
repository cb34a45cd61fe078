"""App configuration of the dashboard."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DashboardConfig(AppConfig):
    """Customizes the admin site (titles, overview on the index page) when Django starts."""

    name = "dashboard"
    verbose_name = _("Infringement handling")
    default_auto_field = "django.db.models.BigAutoField"
