"""Django app of the crawler: its models (crawler.models: target sites, scan runs, whitelisted
domains, matches), its actions (crawler.actions), Celery tasks (crawler.tasks), the schedule
signals and the management commands add_site, scan, matches and demo_site."""

from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    """Connects the signals that keep each target site's beat schedule in step with the site, and
    names the states of review and scan events in the audit trail."""

    name = "crawler"
    verbose_name = "Crawler"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from crawler import schedule
        from crawler.models import ReviewStatus, ScanStatus
        from tracker.core.models import AuditEvent, register_state_labels

        schedule.connect()
        register_state_labels(AuditEvent.Kind.REVIEW, ReviewStatus)
        register_state_labels(AuditEvent.Kind.SCAN, ScanStatus)
