"""Django app of the crawler: Celery tasks (crawler.tasks), the schedule signals and the
management commands add_site, scan, matches and demo_site. Its models live in the core app
(tracker/core/models/sites.py and matches.py)."""

from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    """Connects the signals that keep each target site's beat schedule in step with the site."""

    name = "crawler"
    verbose_name = "Crawler"

    def ready(self):
        from crawler import schedule

        schedule.connect()
