"""Django app of the crawler: its models (crawler.models: target sites, scan runs, whitelisted
domains, matches), its actions (crawler.*_actions, one module per noun), Celery tasks (crawler.tasks), the schedule
signals and the management commands add_site, scan, matches and demo_site."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CrawlerConfig(AppConfig):
    """Connects the signals that keep each target site's beat schedule in step with the site and
    that search the stored pages for each newly indexed work (crawler.rematch) and look for a
    site's new domain after each of its scans (crawler.domain_moves), and names the states of
    review, scan and case events in the audit trail; registers the check of the platforms'
    registry (crawler.platform_registry), which names the line of an error at start."""

    name = "crawler"
    verbose_name = _("Crawler")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported in ready(): these modules need the app registry loaded (models).
        from django.core import checks

        from core.ingestion import work_indexed
        from core.models import AuditEvent, register_state_labels
        from crawler import domain_moves, platform_registry, rematch, scans, schedule
        from crawler.models import CaseState, ContactEvent, ReviewStatus, ScanStatus

        schedule.connect()
        work_indexed.connect(rematch.work_indexed, dispatch_uid="crawler.rematch")
        scans.scan_closed.connect(domain_moves.on_scan_closed, dispatch_uid="crawler.domain_moves")
        register_state_labels(AuditEvent.Kind.REVIEW, ReviewStatus)
        register_state_labels(AuditEvent.Kind.SCAN, ScanStatus)
        register_state_labels(AuditEvent.Kind.CASE, CaseState)
        register_state_labels(AuditEvent.Kind.SITE, ContactEvent)  # others: the common words
        checks.register(platform_registry.check_registry)
